/**
 * A verifier of AWS Signature Version 4, written from AWS's published algorithm ("Create a signed AWS
 * API request": the canonical request, the string to sign, the signing key derived by HMAC-SHA256 from
 * `AWS4<secret>`, date, region, service and `aws4_request`) and checked against AWS's own test suite
 * (`tests/testdata/sigv4/aws_sigv4_test_suite.json`). It is independent of the signer claudius uses
 * (`aws4fetch`): a loopback Bedrock server checks with it what the real service checks, and answers
 * a failure as the service does (status, `x-amzn-ErrorType`, message).
 *
 * @module
 */

const encoder = new TextEncoder();

/** A request as the verifier sees it. */
export interface SignedRequest {
  method: string;
  /** The request target as sent: path and query, percent-encoded as on the wire. */
  target: string;
  /** Header names in any case; values as received. */
  headers: Iterable<[string, string]>;
  body: Uint8Array | string;
}

/** Hex of bytes. */
function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of text or bytes, as lower-case hex. */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return hex(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes)));
}

async function hmac(key: Uint8Array, data: string): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey(
    "raw",
    new Uint8Array(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, encoder.encode(data)));
}

/** RFC 3986 encoding of every byte but the unreserved characters (and `/` when `slash`). */
function uriEncode(text: string, slash: boolean): string {
  let out = "";
  for (const byte of encoder.encode(text)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (slash && c === "/")) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * The canonical URI of a path as sent: normalised (empty, `.` and `..` segments resolved, as for every
 * service but S3) and each segment URI-encoded once more (a `%3A` on the wire is `%253A` here).
 */
export function canonicalUri(path: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  const trailing = out.length > 0 && /\/\.{0,2}$/.test(path) ? "/" : "";
  return `/${out.map((s) => uriEncode(s, false)).join("/")}${trailing}`;
}

/** The canonical query string: each name and value decoded then URI-encoded, sorted by name, then value. */
export function canonicalQuery(query: string): string {
  if (query === "") return "";
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const pairs = query.split("&").filter((p) => p !== "").map((p) => {
    const eq = p.indexOf("=");
    const [k, v] = eq < 0 ? [p, ""] : [p.slice(0, eq), p.slice(eq + 1)];
    return [uriEncode(decode(k), false), uriEncode(decode(v), false)] as const;
  });
  pairs.sort(([k1, v1], [k2, v2]) => (k1 < k2 ? -1 : k1 > k2 ? 1 : v1 < v2 ? -1 : v1 > v2 ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join("&");
}

/** Header values by lower-case name, repeated headers joined by `,`, each trimmed and its spaces collapsed. */
function headerMap(headers: Iterable<[string, string]>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const clean = value.trim().replace(/\s+/g, " ");
    map.set(key, map.has(key) ? `${map.get(key)},${clean}` : clean);
  }
  return map;
}

/**
 * The canonical request: method, canonical URI, canonical query, the signed headers (`name:value`
 * lines, sorted), the signed header list, and the payload's SHA-256.
 *
 * @param signed the signed header names (lower case), as the Authorization header lists them
 */
export async function canonicalRequest(request: SignedRequest, signed: readonly string[]): Promise<string> {
  const q = request.target.indexOf("?");
  const path = q < 0 ? request.target : request.target.slice(0, q);
  const query = q < 0 ? "" : request.target.slice(q + 1);
  const headers = headerMap(request.headers);
  const names = [...signed].sort();
  const lines = names.map((n) => `${n}:${headers.get(n) ?? ""}`).join("\n");
  return [
    request.method.toUpperCase(),
    canonicalUri(path),
    canonicalQuery(query),
    `${lines}\n`,
    names.join(";"),
    await sha256Hex(request.body),
  ].join("\n");
}

/** The string to sign for a canonical request under a credential scope (`DATE/REGION/SERVICE/aws4_request`). */
export async function stringToSign(amzDate: string, scope: string, canonical: string): Promise<string> {
  return ["AWS4-HMAC-SHA256", amzDate, scope, await sha256Hex(canonical)].join("\n");
}

/** The signature of a string to sign: HMAC-SHA256 under the key derived from the secret and the scope. */
export async function signatureOf(
  secret: string,
  scope: { date: string; region: string; service: string },
  toSign: string,
): Promise<string> {
  let key = await hmac(encoder.encode(`AWS4${secret}`), scope.date);
  key = await hmac(key, scope.region);
  key = await hmac(key, scope.service);
  key = await hmac(key, "aws4_request");
  return hex((await hmac(key, toSign)).buffer as ArrayBuffer);
}

/** One known access key of a verifying server. */
export interface KnownKey {
  secret: string;
  /** Temporary credentials: the session token that must come with them. */
  sessionToken?: string;
  /** The temporary credentials expired (ExpiredTokenException). */
  expired?: boolean;
}

/** What the service checks against. */
export interface VerifyOptions {
  /** The access keys the service knows, by id. */
  keys: Readonly<Record<string, KnownKey>>;
  region: string;
  service: string;
  /** The service's clock. */
  now: Date;
}

/** The service's refusal: status, error type (`x-amzn-ErrorType`) and message. */
export interface SigV4Refusal {
  status: 400 | 403;
  type: string;
  message: string;
}

const BAD_SIGNATURE =
  "The request signature we calculated does not match the signature you provided. Check " +
  "your AWS Secret Access Key and signing method. Consult the service documentation for details.";

/** `20150830T123600Z` as a Date, or undefined. */
function amzTime(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
}

function amzFormat(date: Date): string {
  return date.toISOString().replace(/[:-]|\.\d{3}/g, "");
}

/**
 * Verify a request's SigV4 signature as AWS does: the Authorization header's parts, the date within
 * five minutes of the service's clock, the credential scope (date, region, service), the access key
 * and its session token, then the signature itself.
 *
 * @returns undefined when the request is authentic, else the refusal AWS would send
 */
export async function verifySigV4(
  request: SignedRequest,
  opts: VerifyOptions,
): Promise<SigV4Refusal | undefined> {
  const headers = headerMap(request.headers);
  const auth = headers.get("authorization");
  if (auth === undefined) {
    return {
      status: 403,
      type: "MissingAuthenticationTokenException",
      message: "Missing Authentication Token",
    };
  }
  const m = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
    auth,
  );
  if (m === null) {
    return {
      status: 403,
      type: "IncompleteSignatureException",
      message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters. ` +
        `Authorization=${auth.split(" ")[0]}`,
    };
  }
  const [keyId = "", date = "", region = "", service = "", terminal = ""] = m[1]!.split("/");
  const signed = m[2]!.split(";");
  const amzDate = headers.get("x-amz-date") ?? "";
  const when = amzTime(amzDate);
  if (when === undefined || !signed.includes("host") || !signed.includes("x-amz-date")) {
    return {
      status: 403,
      type: "IncompleteSignatureException",
      message: "Signature must include the host and x-amz-date headers, with a valid x-amz-date",
    };
  }
  const skew = when.getTime() - opts.now.getTime();
  if (Math.abs(skew) > 5 * 60_000) {
    const edge = amzFormat(new Date(opts.now.getTime() + (skew < 0 ? -1 : 1) * 5 * 60_000));
    return {
      status: 403,
      type: "InvalidSignatureException",
      message: `Signature ${skew < 0 ? "expired" : "not yet current"}: ${amzDate} is now ${
        skew < 0 ? "earlier" : "later"
      } than ${edge} (${amzFormat(opts.now)} ${skew < 0 ? "-" : "+"} 5 min.)`,
    };
  }
  if (date !== amzDate.slice(0, 8) || terminal !== "aws4_request") {
    return {
      status: 403,
      type: "InvalidSignatureException",
      message: `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: ` +
        `'${date}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`,
    };
  }
  if (region !== opts.region) {
    return {
      status: 403,
      type: "InvalidSignatureException",
      message: `Credential should be scoped to a valid region. `,
    };
  }
  if (service !== opts.service) {
    return {
      status: 403,
      type: "InvalidSignatureException",
      message: `Credential should be scoped to correct service: '${opts.service}'. `,
    };
  }
  const known = Object.hasOwn(opts.keys, keyId) ? opts.keys[keyId] : undefined;
  const token = headers.get("x-amz-security-token");
  const invalid = {
    status: 403 as const,
    type: "UnrecognizedClientException",
    message: "The security token included in the request is invalid.",
  };
  if (known === undefined || (known.sessionToken ?? undefined) !== token) return invalid;
  if (known.expired) {
    return {
      status: 403,
      type: "ExpiredTokenException",
      message: "The security token included in the request is expired",
    };
  }
  const canonical = await canonicalRequest(request, signed);
  const scope = `${date}/${region}/${service}/aws4_request`;
  const expected = await signatureOf(
    known.secret,
    { date, region, service },
    await stringToSign(amzDate, scope, canonical),
  );
  if (expected !== m[3]) return { status: 403, type: "InvalidSignatureException", message: BAD_SIGNATURE };
  return undefined;
}
