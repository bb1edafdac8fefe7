/**
 * `azure/DEPLOYMENT` (the `azure` row of src/core/models/providers.ts, its routes in _presets.ts) against
 * a loopback Azure OpenAI resource that checks the deployment route, the api-version and the api-key
 * header (tests/_support/azure_server.ts).
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../../_support/assert.ts";
import { ApiError, ConfigError } from "../../../src/core/errors.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import { type AzureServer, startAzureServer } from "../../_support/azure_server.ts";

const KEY = "azure-key-0123456789";
const HI = { messages: [{ role: "user" as const, content: "hi" }] };

async function withAzure(
  replies: ScriptReply[],
  fn: (server: AzureServer) => Promise<void>,
  adToken?: string,
) {
  const server = await startAzureServer(replies, {
    deployments: { "my-gpt4o": "gpt-4o-2024-08-06", "gpt-4o": "gpt-4o-2024-08-06" },
    key: KEY,
    ...(adToken ? { adToken } : {}),
  });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

function azure(model: string, env: Record<string, string>, config: Record<string, unknown> = {}) {
  const logs: string[] = [];
  const client = new OpenAIClient(
    { model_name: model, cost_tracking: "ignore_errors", ...config },
    { env, costLimit: 0, log: (l) => logs.push(l), sleep: () => Promise.resolve() },
  );
  return { client, logs };
}

Deno.test("azure/: the deployment's route with litellm's api-version, the key in api-key and no bearer", async () => {
  await withAzure([{ content: "hello" }], async (server) => {
    const { client } = azure("azure/my-gpt4o", { AZURE_API_BASE: `${server.url}/`, AZURE_API_KEY: KEY });
    const out = await client.complete(HI);
    assertEquals(out.message.content, "hello");
    const r = server.requests[0]!;
    assertEquals(r.path, "/openai/deployments/my-gpt4o/chat/completions");
    assertEquals(r.query, { "api-version": "2025-02-01-preview" });
    assertEquals(r.headers["api-key"], KEY);
    assertEquals(r.headers.authorization, undefined);
    assertEquals((r.body as { model: string }).model, "my-gpt4o");
    assertEquals(client.endpoint.baseUrl, server.url);
  });
});

Deno.test("azure/: AZURE_AD_TOKEN goes as a bearer token; AZURE_API_VERSION and model_kwargs.api_version are honoured", async () => {
  await withAzure([{ content: "a" }, { content: "b" }], async (server) => {
    const env = {
      AZURE_API_BASE: server.url,
      AZURE_AD_TOKEN: "entra-token",
      AZURE_API_VERSION: "2024-10-21",
    };
    const { client, logs } = azure("azure/gpt-4o", env);
    await client.complete(HI);
    const k = azure("azure/gpt-4o", env, { model_kwargs: { api_version: "2024-06-01" } });
    await k.client.complete(HI);
    assertEquals(
      server.requests.map((r) => [r.headers.authorization, r.headers["api-key"], r.query["api-version"]]),
      [
        ["Bearer entra-token", undefined, "2024-10-21"],
        ["Bearer entra-token", undefined, "2024-06-01"],
      ],
    );
    assertEquals([...logs, ...k.logs], [], "api_version is read, not ignored with a warning");
  }, "entra-token");
});

Deno.test("azure/: the Responses API on Azure's /openai/responses route (v1 for api-version preview)", async () => {
  await withAzure([{ commands: ["ls"] }], async (server) => {
    const { client } = azure("azure/my-gpt4o", { AZURE_API_BASE: server.url, AZURE_OPENAI_API_KEY: KEY });
    const out = await client.respond({ input: [{ role: "user", content: "hi" }], tools: [] });
    assertEquals(out.output.some((i) => i.type === "function_call"), true);
    const r = server.requests[0]!;
    assertEquals([r.path, r.query["api-version"], (r.body as { model: string }).model], [
      "/openai/v1/responses",
      "preview",
      "my-gpt4o",
    ]);
  });
});

Deno.test("azure/: a missing endpoint or key is a config error naming the variables; a wrong key names them too", async () => {
  const base = assertThrows(() => azure("azure/my-gpt4o", { AZURE_API_KEY: KEY }), ConfigError);
  assertEquals(
    base.message,
    'Cannot configure model: "azure/my-gpt4o" needs the endpoint of your resource: set AZURE_API_BASE or ' +
      "AZURE_OPENAI_ENDPOINT (e.g. https://RESOURCE.openai.azure.com), or model.base_url",
  );
  const key = assertThrows(
    () => azure("azure/my-gpt4o", { AZURE_API_BASE: "https://r.openai.azure.com" }),
    ConfigError,
  );
  assert(key.message.includes("set AZURE_OPENAI_API_KEY or AZURE_API_KEY or AZURE_AD_TOKEN"), key.message);
  await withAzure([{ content: "never" }], async (server) => {
    const { client } = azure("azure/my-gpt4o", { AZURE_API_BASE: server.url, AZURE_API_KEY: "wrong" });
    const e = await assertRejects(() => client.complete(HI), ApiError);
    assert(
      e.message.startsWith(
        `Cannot query model: HTTP 401 from ${server.url} (check AZURE_API_KEY): Access denied`,
      ),
      e.message,
    );
    const unknown = azure("azure/nope", { AZURE_API_BASE: server.url, AZURE_API_KEY: KEY }).client;
    const d = await assertRejects(() => unknown.complete(HI), ApiError);
    assert(d.message.includes("The API deployment for this resource does not exist"), d.message);
  });
});

Deno.test("azure/: the check before a run lists the resource's models with the key", async () => {
  await withAzure([], async (server) => {
    const { client } = azure("azure/my-gpt4o", { AZURE_API_BASE: server.url, AZURE_API_KEY: KEY });
    const check = await client.probe();
    assertEquals(check.level, "ok");
    assert(check.text.includes("the key is accepted"), check.text);
    assert(check.url.endsWith("/openai/models?api-version=2025-02-01-preview"), check.url);
    const bad = await azure("azure/my-gpt4o", { AZURE_API_BASE: server.url, AZURE_API_KEY: "no" }).client
      .probe();
    assertEquals(bad.level, "error");
  });
});

Deno.test("azure/: a deployment named after its model is priced from the database's azure entries", async () => {
  await withAzure([{ content: "x" }], async (server) => {
    const client = new OpenAIClient({ model_name: "azure/gpt-4o" }, {
      env: { AZURE_API_BASE: server.url, AZURE_API_KEY: KEY },
      costLimit: 3,
      log: () => {},
    });
    await client.ready();
    assert((await client.complete(HI)).cost > 0);
  });
});

Deno.test("azure/: a deployment named unlike its model runs under a cost limit, priced by the model the answer names (as litellm prices it)", async () => {
  await withAzure([{ content: "x" }], async (server) => {
    const client = new OpenAIClient({ model_name: "azure/my-gpt4o" }, {
      env: { AZURE_API_BASE: server.url, AZURE_API_KEY: KEY },
      costLimit: 3,
      log: () => {},
    });
    await client.ready();
    const out = await client.complete(HI);
    // gpt-4o-2024-08-06's price ($2.50 and $10 per million) for the scripted usage.
    const usage = (out.response as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    const expected = usage.prompt_tokens * 2.5e-6 + usage.completion_tokens * 1e-5;
    assert(Math.abs(out.cost - expected) < 1e-12, `${out.cost} vs ${expected}`);
  });
});
