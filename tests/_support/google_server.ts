/**
 * A loopback Google: an OAuth 2.0 token endpoint that checks what Google's checks (a service account's
 * JWT signed RS256 by the key whose public half it holds, issued for this endpoint, with `iat` and `exp`
 * an hour apart around now; an authorized user's refresh token and client), and Vertex AI's routes
 * that claudius uses, each behind a bearer token it issued and that has not expired: Claude's Messages
 * API at `.../publishers/anthropic/models/{model}:rawPredict` (Vertex's `anthropic_version`, no `model` in
 * the body, then the Messages API's own checks and prompt cache, see `anthropic_api.ts`), Mistral's chat
 * completions at `.../publishers/mistralai/models/{model}:rawPredict` (the body's `model` without the
 * URL's `@version`) and the OpenAI-compatible `.../endpoints/openapi/chat/completions`. Errors are
 * Google's shapes.
 *
 * @module
 */
import { isFault, type ScriptReply, toCompletionBody } from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";
import { anthropicErrorBody, invalidRequest, PromptCache } from "./anthropic_api.ts";
import { toAnthropicMessage } from "./anthropic_server.ts";

type Obj = { [key: string]: Json };

/** A service account the token endpoint knows. */
export interface KnownAccount {
  email: string;
  publicKey: CryptoKey;
}

/** An authorized user (gcloud's login) the token endpoint knows. */
export interface KnownUser {
  client_id: string;
  client_secret: string;
  refresh_token: string;
}

/** Options of {@link startGoogleServer}. */
export interface GoogleServerOptions {
  accounts?: readonly KnownAccount[];
  users?: readonly KnownUser[];
  /** The project and location Vertex serves (requests for others are denied). */
  project: string;
  location: string;
  /** Lifetime of the tokens issued, seconds (default 3599). */
  tokenSeconds?: number;
  /** The server's clock, ms (default the real one). */
  now?: () => number;
}

/** One request the server received. */
export interface GoogleRequest {
  path: string;
  headers: Record<string, string>;
  body: Json;
  /** Token requests: the form's fields. */
  form?: Record<string, string>;
}

/** A running loopback Google. */
export interface GoogleServer {
  /** Its origin (what `VERTEXAI_API_BASE` names). */
  url: string;
  /** The token endpoint (a credentials file's `token_uri`). */
  tokenUri: string;
  tokenRequests: GoogleRequest[];
  apiRequests: GoogleRequest[];
  close(): Promise<void>;
}

/** Make a service account: an RSA key pair and the JSON key file Google would give for it. */
export async function makeServiceAccount(
  tokenUri: string,
  opts: { email?: string; project?: string } = {},
): Promise<{ file: Obj; account: KnownAccount }> {
  const pair = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const b64 = btoa(String.fromCharCode(...der)).replace(/.{64}/g, "$&\n");
  const email = opts.email ?? "runner@loopback-project.iam.gserviceaccount.com";
  return {
    file: {
      type: "service_account",
      project_id: opts.project ?? "loopback-project",
      private_key_id: "k1",
      private_key: `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`,
      client_email: email,
      client_id: "1",
      token_uri: tokenUri,
    },
    account: { email, publicKey: pair.publicKey },
  };
}

const b64urlDecode = (s: string) =>
  Uint8Array.from(
    atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)),
    (c) => c.charCodeAt(0),
  );

function grantError(error: string, description: string, status = 400): Response {
  return Response.json({ error, error_description: description }, { status });
}

function googleError(status: number, message: string, code: string): Response {
  return Response.json({ error: { code: status, message, status: code } }, { status });
}

/** Start the loopback Google; Vertex's routes play `replies` in order. */
export function startGoogleServer(
  replies: readonly ScriptReply[],
  opts: GoogleServerOptions,
): Promise<GoogleServer> {
  const now = opts.now ?? Date.now;
  const tokens = new Map<string, number>();
  const tokenRequests: GoogleRequest[] = [];
  const apiRequests: GoogleRequest[] = [];
  const cache = new PromptCache();
  let issued = 0;
  let served = 0;
  let origin = "";

  async function token(form: URLSearchParams): Promise<Response> {
    const grant = form.get("grant_type");
    if (grant === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      const [h = "", p = "", s = ""] = (form.get("assertion") ?? "").split(".");
      let header: Obj, claims: Obj;
      try {
        header = JSON.parse(new TextDecoder().decode(b64urlDecode(h)));
        claims = JSON.parse(new TextDecoder().decode(b64urlDecode(p)));
      } catch {
        return grantError("invalid_grant", "Invalid JWT: malformed");
      }
      if (header.alg !== "RS256") return grantError("invalid_grant", "Invalid JWT: unsupported algorithm");
      const account = (opts.accounts ?? []).find((a) => a.email === claims.iss);
      if (!account) return grantError("invalid_grant", "Invalid grant: account not found");
      const ok = await crypto.subtle.verify(
        "RSASSA-PKCS1-v1_5",
        account.publicKey,
        b64urlDecode(s),
        new TextEncoder().encode(`${h}.${p}`),
      );
      if (!ok) return grantError("invalid_grant", "Invalid JWT Signature.");
      const t = now() / 1000;
      const iat = Number(claims.iat), exp = Number(claims.exp);
      if (!(exp > t && iat <= t + 60 && exp - iat <= 3600)) {
        return grantError(
          "invalid_grant",
          "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your " +
            "iat and exp values in the JWT claim.",
        );
      }
      if (claims.aud !== `${origin}/token`) {
        return grantError("invalid_grant", "Invalid JWT: audience mismatch");
      }
      if (!String(claims.scope ?? "").split(" ").includes("https://www.googleapis.com/auth/cloud-platform")) {
        return grantError("invalid_scope", "Invalid OAuth scope or ID token audience provided.");
      }
    } else if (grant === "refresh_token") {
      const user = (opts.users ?? []).find((u) => u.client_id === form.get("client_id"));
      if (!user || user.client_secret !== form.get("client_secret")) {
        return grantError("invalid_client", "The OAuth client was not found.", 401);
      }
      if (user.refresh_token !== form.get("refresh_token")) {
        return grantError("invalid_grant", "Token has been expired or revoked.");
      }
    } else {
      return grantError("unsupported_grant_type", `Invalid grant_type: ${grant}`);
    }
    const value = `ya29.loopback-${++issued}`;
    const seconds = opts.tokenSeconds ?? 3599;
    tokens.set(value, now() + seconds * 1000);
    return Response.json({ access_token: value, expires_in: seconds, token_type: "Bearer" });
  }

  function authorized(req: Request): Response | undefined {
    const auth = req.headers.get("authorization") ?? "";
    const expires = auth.startsWith("Bearer ") ? tokens.get(auth.slice(7)) : undefined;
    if (expires === undefined || expires <= now()) {
      return googleError(
        401,
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid " +
          "authentication credential.",
        "UNAUTHENTICATED",
      );
    }
    return undefined;
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const text = await req.text();
    const headers = Object.fromEntries(req.headers);
    if (req.method === "POST" && url.pathname === "/token") {
      const form = new URLSearchParams(text);
      tokenRequests.push({ path: url.pathname, headers, body: null, form: Object.fromEntries(form) });
      return await token(form);
    }
    let body: Json = null;
    try {
      body = JSON.parse(text);
    } catch { /* below */ }
    apiRequests.push({ path: url.pathname, headers, body });
    const denied = authorized(req);
    if (denied) return denied;
    const route = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (!route) return googleError(404, `no route ${url.pathname}`, "NOT_FOUND");
    const [, project, location, rest = ""] = route;
    if (project !== opts.project || location !== opts.location) {
      return googleError(
        403,
        `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/` +
          `locations/${location}' (or it may not exist).`,
        "PERMISSION_DENIED",
      );
    }
    const claude = /^publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(
      decodeURIComponent(rest),
    );
    const reply = () => replies[served++];
    if (claude) {
      const b = typeof body === "object" && body !== null && !Array.isArray(body) ? body as Obj : {};
      if (b.anthropic_version !== "vertex-2023-10-16") {
        return new Response(anthropicErrorBody(400, "anthropic_version: vertex-2023-10-16 is required"), {
          status: 400,
        });
      }
      if ("model" in b) {
        return new Response(anthropicErrorBody(400, "model: Extra inputs are not permitted"), {
          status: 400,
        });
      }
      const { anthropic_version: _, ...messages } = b;
      const problem = invalidRequest({ ...messages, model: claude[1]! });
      if (problem) return new Response(anthropicErrorBody(400, problem), { status: 400 });
      const r = reply();
      if (r === undefined || isFault(r)) {
        return new Response(anthropicErrorBody(500, "no reply"), { status: 500 });
      }
      const { breakpoints: __, blocks: ___, ...usage } = cache.use({ ...messages, model: claude[1]! });
      return Response.json(toAnthropicMessage(r, served - 1, claude[1]!, usage));
    }
    const mistral = /^publishers\/mistralai\/models\/([^/:]+):rawPredict$/.exec(decodeURIComponent(rest));
    if (mistral) {
      // Mistral's chat completions; the body names the model without the URL's @version.
      const b = typeof body === "object" && body !== null && !Array.isArray(body) ? body as Obj : {};
      const want = mistral[1]!.split("@")[0]!;
      if (b.model !== want) {
        return googleError(400, `Invalid model "${b.model}": expected "${want}"`, "INVALID_ARGUMENT");
      }
      const r = reply();
      if (r === undefined || isFault(r)) return googleError(500, "no reply", "INTERNAL");
      return Response.json(toCompletionBody(r, served - 1, want));
    }
    if (rest === "endpoints/openapi/chat/completions") {
      const b = typeof body === "object" && body !== null && !Array.isArray(body) ? body as Obj : {};
      if (typeof b.model !== "string" || !b.model.includes("/")) {
        return googleError(
          400,
          `Invalid model "${b.model}": expected publisher/model, e.g. google/gemini-2.5-pro`,
          "INVALID_ARGUMENT",
        );
      }
      const r = reply();
      if (r === undefined || isFault(r)) return googleError(500, "no reply", "INTERNAL");
      return Response.json(toCompletionBody(r, served - 1, b.model));
    }
    return googleError(404, `no route ${url.pathname}`, "NOT_FOUND");
  });
  origin = `http://127.0.0.1:${server.addr.port}`;
  return Promise.resolve({
    url: origin,
    tokenUri: `${origin}/token`,
    tokenRequests,
    apiRequests,
    async close() {
      await server.shutdown();
    },
  });
}

if (import.meta.main) {
  // deno run -A tests/_support/google_server.ts SCRIPT.yaml KEYFILE.json PROJECT LOCATION: writes a service
  // account's key file whose token_uri is this server's, prints its URL, serves until killed.
  const { loadScript } = await import("../../src/core/models/extra/_script.ts");
  const [path, keyFile, project = "loopback-project", location = "us-central1"] = Deno.args;
  if (path === undefined || keyFile === undefined) {
    console.error(
      "usage: deno run -A tests/_support/google_server.ts SCRIPT.yaml KEYFILE.json [PROJECT] [LOCATION]",
    );
    Deno.exit(2);
  }
  const accounts: KnownAccount[] = [];
  const server = await startGoogleServer(await loadScript(path), {
    project,
    location,
    get accounts() {
      return accounts;
    },
  });
  const sa = await makeServiceAccount(server.tokenUri, { project });
  accounts.push(sa.account);
  await Deno.writeTextFile(keyFile, JSON.stringify(sa.file, null, 2));
  console.log(server.url);
  Deno.addSignalListener("SIGTERM", () => server.close().then(() => Deno.exit(0)));
}
