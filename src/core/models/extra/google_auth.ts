/**
 * Google's application default credentials, as litellm (through google-auth) finds and uses them for
 * Vertex AI: `model_kwargs.vertex_credentials` or `VERTEXAI_CREDENTIALS` (a path or the JSON itself),
 * else the file `GOOGLE_APPLICATION_CREDENTIALS` names, else gcloud's
 * (`$CLOUDSDK_CONFIG` or `~/.config/gcloud`, `application_default_credentials.json`). A service account
 * signs a JWT with its RS256 key (Web Crypto) and exchanges it at its `token_uri` (OAuth 2.0's JWT
 * bearer grant); an authorized user (gcloud's login) exchanges its refresh token. The access token is
 * kept and renewed 3 min 45 s before it expires, as google-auth renews it.
 *
 * @module
 */
import { ApiError, ConfigError } from "../../errors.ts";
import { GOOGLE_CREDENTIALS } from "../providers.ts";
import { TransientError } from "./_retry.ts";
import { networkFailure } from "./_failures.ts";

/** The scope litellm asks for. */
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** google-auth's default token endpoint (authorized users' files often name none). */
const TOKEN_URI = "https://oauth2.googleapis.com/token";
/** Renew a token this long before it expires (google-auth's `REFRESH_THRESHOLD`). */
const REFRESH_MS = 225_000;

/** What finding and using the credentials needs from the outside world. */
export interface GoogleIO {
  /** The environment (the variables named above). */
  env: Readonly<Record<string, string | undefined>>;
  /** A file's text, or undefined when it does not exist. */
  readText(path: string): Promise<string | undefined>;
  /** The clock, ms since the epoch (the JWT's `iat` and `exp`, the token's expiry). */
  now?: () => number;
}

type Kind = "service_account" | "authorized_user";

/** Base64url of bytes or text. */
function b64url(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A PKCS#8 PEM private key as a Web Crypto RS256 signing key. */
async function signingKey(pem: string, where: string): Promise<CryptoKey> {
  const body = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(pem);
  if (!body) {
    throw new ConfigError(`Cannot use ${where}: private_key is not a PKCS#8 PEM key (BEGIN PRIVATE KEY)`);
  }
  const der = Uint8Array.from(atob(body[1]!.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  try {
    return await crypto.subtle.importKey(
      "pkcs8",
      der,
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["sign"],
    );
  } catch (e) {
    throw new ConfigError(
      `Cannot use ${where}: private_key is not an RSA key (${e instanceof Error ? e.message : e})`,
    );
  }
}

/**
 * A signed JWT of a service account for the token endpoint (OAuth 2.0's JWT bearer grant, RFC 7523).
 *
 * @param now seconds since the epoch (`iat`; `exp` is an hour later)
 */
export async function serviceAccountJwt(
  key: CryptoKey,
  claims: { email: string; keyId?: string; audience: string; now: number },
): Promise<string> {
  const header = { alg: "RS256", typ: "JWT", ...(claims.keyId ? { kid: claims.keyId } : {}) };
  const payload = {
    iss: claims.email,
    scope: SCOPE,
    aud: claims.audience,
    iat: claims.now,
    exp: claims.now + 3600,
  };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(input));
  return `${input}.${b64url(new Uint8Array(signature))}`;
}

/** Where the credentials came from, shown in messages: `GOOGLE_APPLICATION_CREDENTIALS (/path/key.json)`. */
interface Source {
  from: string;
  data: Record<string, unknown>;
}

async function findCredentials(explicit: string | undefined, io: GoogleIO, home: string): Promise<Source> {
  const env = io.env;
  const parse = (text: string, where: string): Record<string, unknown> => {
    try {
      const data = JSON.parse(text);
      if (typeof data === "object" && data !== null && !Array.isArray(data)) return data;
    } catch { /* below */ }
    throw new ConfigError(`Cannot read Google credentials: ${where} is not a JSON object`);
  };
  const fromValue = async (value: string, name: string): Promise<Source> => {
    if (value.trimStart().startsWith("{")) return { from: name, data: parse(value, name) };
    const text = await io.readText(value);
    if (text === undefined) {
      throw new ConfigError(`Cannot read Google credentials: ${name} names ${value}, which does not exist`);
    }
    return { from: `${name} (${value})`, data: parse(text, `${name} (${value})`) };
  };
  if (explicit) return await fromValue(explicit, "model.model_kwargs.vertex_credentials");
  if (env.VERTEXAI_CREDENTIALS) return await fromValue(env.VERTEXAI_CREDENTIALS, "VERTEXAI_CREDENTIALS");
  if (env.GOOGLE_APPLICATION_CREDENTIALS) {
    return await fromValue(env.GOOGLE_APPLICATION_CREDENTIALS, "GOOGLE_APPLICATION_CREDENTIALS");
  }
  const dir = env.CLOUDSDK_CONFIG || `${home}/.config/gcloud`;
  const path = `${dir}/application_default_credentials.json`;
  const text = await io.readText(path);
  if (text !== undefined) {
    const shown = path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
    return { from: `gcloud's application default credentials (${shown})`, data: parse(text, shown) };
  }
  throw new ConfigError(`Cannot configure model: no Google credentials: set ${GOOGLE_CREDENTIALS}`);
}

/** The credentials of one run and its current access token. */
export class GoogleAuth {
  /** Where the credentials came from, for messages. */
  readonly from: string;
  /** The project the file names (`project_id`, else an authorized user's `quota_project_id`). */
  readonly project: string | undefined;
  /** An authorized user's quota project, sent as `x-goog-user-project`. */
  readonly quotaProject: string | undefined;
  /** Where tokens come from. */
  readonly tokenUri: string;
  readonly #kind: Kind;
  readonly #data: Record<string, unknown>;
  readonly #now: () => number;
  #key: Promise<CryptoKey> | undefined;
  #token: { value: string; expires: number } | undefined;
  #pending: Promise<string> | undefined;

  private constructor(source: Source, now: () => number) {
    const d = source.data;
    const type = d.type;
    if (type !== "service_account" && type !== "authorized_user") {
      throw new ConfigError(
        `Cannot use Google credentials from ${source.from}: type ${
          JSON.stringify(type)
        } is not read by claudius ` +
          "(service_account and authorized_user are; for workload identity federation, export an access token's " +
          "credentials from gcloud)",
      );
    }
    const need = type === "service_account"
      ? ["client_email", "private_key"]
      : ["client_id", "client_secret", "refresh_token"];
    const missing = need.filter((k) => typeof d[k] !== "string" || d[k] === "");
    if (missing.length > 0) {
      throw new ConfigError(
        `Cannot use Google credentials from ${source.from}: ${type} needs ${missing.join(", ")}`,
      );
    }
    this.from = source.from;
    this.#kind = type;
    this.#data = d;
    this.#now = now;
    const str = (k: string) => (typeof d[k] === "string" && d[k] !== "" ? d[k] as string : undefined);
    this.quotaProject = str("quota_project_id");
    this.project = str("project_id") ?? this.quotaProject;
    this.tokenUri = str("token_uri") ?? TOKEN_URI;
  }

  /**
   * Find the application default credentials.
   *
   * @param explicit `model_kwargs.vertex_credentials` (a path or the JSON), if set
   * @param home the home directory (gcloud's default file)
   * @throws {ConfigError} when none are found (naming what to set) or the file is not usable
   */
  static async load(explicit: string | undefined, io: GoogleIO, home: string): Promise<GoogleAuth> {
    const source = await findCredentials(explicit, io, home);
    return new GoogleAuth(source, io.now ?? Date.now);
  }

  /** A service account (`client_email`) or an authorized user, for messages. */
  get who(): string {
    return this.#kind === "service_account"
      ? `service account ${this.#data.client_email}`
      : "an authorized user";
  }

  /**
   * The current access token, fetched or renewed when it is missing or expires within 3 min 45 s.
   *
   * @throws {ApiError} when the token endpoint refuses the credentials (naming what to check)
   * @throws {TransientError} when it cannot be reached or answers 5xx (another attempt may work)
   */
  token(signal?: AbortSignal): Promise<string> {
    const t = this.#token;
    if (t && t.expires - this.#now() > REFRESH_MS) return Promise.resolve(t.value);
    return this.#pending ??= this.#fetch(signal).finally(() => (this.#pending = undefined));
  }

  async #fetch(signal?: AbortSignal): Promise<string> {
    const form = new URLSearchParams();
    if (this.#kind === "service_account") {
      this.#key ??= signingKey(String(this.#data.private_key), this.from);
      const jwt = await serviceAccountJwt(await this.#key, {
        email: String(this.#data.client_email),
        ...(typeof this.#data.private_key_id === "string" ? { keyId: this.#data.private_key_id } : {}),
        audience: this.tokenUri,
        now: Math.floor(this.#now() / 1000),
      });
      form.set("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer");
      form.set("assertion", jwt);
    } else {
      form.set("grant_type", "refresh_token");
      form.set("client_id", String(this.#data.client_id));
      form.set("client_secret", String(this.#data.client_secret));
      form.set("refresh_token", String(this.#data.refresh_token));
    }
    let response: Response;
    try {
      response = await fetch(this.tokenUri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: form.toString(),
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      // The token endpoint is the credentials' (their token_uri), not the model's: say which, and check that.
      const { said, unreachable } = networkFailure(e);
      throw new TransientError(
        `Cannot get a Google access token from ${this.tokenUri} (the token_uri of ${this.from}): ${said}`,
        0,
        undefined,
        {
          cause: e,
          ...(unreachable ? { unreachable } : {}),
          advice: `check the network, and the token_uri of ${this.from}`,
        },
      );
    }
    const text = await response.text();
    let data: Record<string, unknown> = {};
    try {
      data = JSON.parse(text);
    } catch { /* below */ }
    if (response.ok && typeof data.access_token === "string") {
      const seconds = typeof data.expires_in === "number" ? data.expires_in : 3600;
      this.#token = { value: data.access_token, expires: this.#now() + seconds * 1000 };
      return data.access_token;
    }
    const said = [data.error, data.error_description].filter((v) => typeof v === "string").join(": ") ||
      text.slice(0, 200);
    const what = `Cannot get a Google access token from ${this.tokenUri} (HTTP ${response.status}): ${said}`;
    if (response.status >= 500 || response.status === 429) throw new TransientError(what, response.status);
    throw new ApiError(`${what} (${this.#hint(said)})`, response.status);
  }

  /** What to check when the token endpoint refuses. */
  #hint(said: string): string {
    if (this.#kind === "authorized_user") {
      return `the refresh token of ${this.from} was refused: run 'gcloud auth application-default login' again`;
    }
    if (/iat|exp|timeframe|short-lived/i.test(said)) {
      return `the JWT's times come from this machine's clock: check it; the key is ${this.from}`;
    }
    return `check the service account key in ${this.from}: it may be deleted or rotated (create a new key file)`;
  }
}
