/**
 * A loopback Azure OpenAI resource that checks what Azure checks: chat completions only under a
 * deployment it has (`/openai/deployments/{name}/chat/completions`), the Responses API at
 * `/openai/responses` (and `/openai/v1/responses`), each with an `api-version`, and the key in the
 * `api-key` header (or a Microsoft Entra token as `Authorization: Bearer`). It answers a scripted reply
 * (see `src/core/models/extra/_script.ts`) naming the deployment's model, and refusals in Azure's shapes.
 *
 * @module
 */
import {
  isFault,
  type ScriptReply,
  toCompletionBody,
  toResponsesBody,
} from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";

/** One request the server received. */
export interface AzureRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Json;
}

/** Options of {@link startAzureServer}. */
export interface AzureServerOptions {
  /** Deployment name -> the model it serves (echoed as the response's `model`). */
  deployments: Readonly<Record<string, string>>;
  /** The resource's key (`api-key`). */
  key?: string;
  /** A Microsoft Entra token it accepts (`Authorization: Bearer`). */
  adToken?: string;
}

/** A running loopback Azure OpenAI resource. */
export interface AzureServer {
  /** The resource's endpoint, e.g. `http://127.0.0.1:41234` (what `AZURE_API_BASE` names). */
  url: string;
  requests: AzureRequest[];
  close(): Promise<void>;
}

const azureError = (status: number, code: string, message: string) =>
  Response.json({ error: { code, message } }, { status });

/** Start the server on 127.0.0.1; chat and Responses requests play `replies` in order. */
export function startAzureServer(
  replies: readonly ScriptReply[],
  opts: AzureServerOptions,
): Promise<AzureServer> {
  const requests: AzureRequest[] = [];
  let served = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const text = await req.text();
    let body: Json = null;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON */ }
    const record = {
      method: req.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(req.headers),
      body,
    };
    requests.push(record);
    const key = req.headers.get("api-key");
    const bearer = req.headers.get("authorization");
    const authentic = (key !== null && key === opts.key) ||
      (bearer !== null && opts.adToken !== undefined && bearer === `Bearer ${opts.adToken}`);
    if (!authentic) {
      return azureError(
        401,
        "401",
        "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for " +
          "an active subscription and use a correct regional API endpoint for your resource.",
      );
    }
    if (!url.searchParams.get("api-version")) return azureError(404, "404", "Resource not found");
    if (req.method === "GET" && /^\/openai(\/v1)?\/models$/.test(url.pathname)) {
      return Response.json({
        object: "list",
        data: [...new Set(Object.values(opts.deployments))].map((id) => ({ id })),
      });
    }
    const chat = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(url.pathname);
    const responses = /^\/openai(\/v1)?\/responses$/.test(url.pathname);
    if (req.method !== "POST" || (!chat && !responses)) return azureError(404, "404", "Resource not found");
    const deployment = chat
      ? decodeURIComponent(chat[1]!)
      : typeof body === "object" && body !== null && !Array.isArray(body)
      ? String(body.model)
      : "";
    const model = opts.deployments[deployment];
    if (model === undefined) {
      return azureError(
        404,
        "DeploymentNotFound",
        "The API deployment for this resource does not exist. If you created the deployment within the last 5 " +
          "minutes, please wait a moment and try again.",
      );
    }
    const reply = replies[served++];
    if (reply === undefined || isFault(reply)) return azureError(500, "InternalServerError", "no reply");
    return Response.json(
      chat ? toCompletionBody(reply, served - 1, model) : toResponsesBody(reply, served - 1, model),
    );
  });
  return Promise.resolve({
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    async close() {
      await server.shutdown();
    },
  });
}

if (import.meta.main) {
  // deno run -A tests/_support/azure_server.ts SCRIPT.yaml KEY DEPLOYMENT=MODEL...: prints its URL, serves until killed.
  const { loadScript } = await import("../../src/core/models/extra/_script.ts");
  const [path, key, ...pairs] = Deno.args;
  if (path === undefined || key === undefined || pairs.length === 0) {
    console.error("usage: deno run -A tests/_support/azure_server.ts SCRIPT.yaml KEY DEPLOYMENT=MODEL...");
    Deno.exit(2);
  }
  const deployments = Object.fromEntries(pairs.map((p) => p.split(/=(.*)/s).slice(0, 2) as [string, string]));
  const server = await startAzureServer(await loadScript(path), { deployments, key });
  console.log(server.url);
  Deno.addSignalListener("SIGTERM", () => server.close().then(() => Deno.exit(0)));
}
