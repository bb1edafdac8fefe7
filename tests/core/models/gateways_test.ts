/**
 * Upstream's gateway model classes (portkey, requesty) as claudius's HTTP client with the gateway's
 * URL and headers, against the loopback server.
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../../_support/assert.ts";
import { ApiError, ConfigError } from "../../../src/core/errors.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import { GATEWAYS } from "../../../src/core/models/extra/_gateways.ts";
import type { ChatRequest } from "../../../src/core/types.ts";
import { startFakeServer } from "../../_support/fake_server.ts";

const REQUEST: ChatRequest = { messages: [{ role: "user", content: "hi" }] };
const PORTKEY_KEY = "pk-test-SECRET-0123456789";

Deno.test("portkey: x-portkey-* headers, the model name sent whole, and no key in any message", async () => {
  const server = await startFakeServer([
    { content: "a", commands: ["ls"] },
    { content: "b", commands: ["ls"] },
    { fault: "status", status: 400, body: `{"error": {"message": "bad key ${PORTKEY_KEY}"}}` },
  ]);
  try {
    const make = (env: Record<string, string>) => {
      // `provider` is the portkey class's own key: the client hands the whole section to the gateway.
      const model = { model_name: "openai/gpt-5-mini", base_url: server.url, provider: "@openai" };
      return new OpenAIClient({ ...model, cost_tracking: "ignore_errors" }, {
        env,
        costLimit: 0,
        log: () => {},
        gateway: GATEWAYS.portkey!,
      });
    };
    await make({ PORTKEY_API_KEY: PORTKEY_KEY }).complete(REQUEST);
    const first = server.requests[0]!;
    assertEquals(first.headers["x-portkey-api-key"], PORTKEY_KEY);
    assertEquals(first.headers["x-portkey-provider"], "@openai");
    assertEquals(first.headers.authorization, undefined);
    assertEquals((first.body as { model: string }).model, "openai/gpt-5-mini", "no prefix stripped");
    await make({ PORTKEY_API_KEY: PORTKEY_KEY, PORTKEY_VIRTUAL_KEY: "vk-1234" }).complete(REQUEST);
    assertEquals(server.requests[1]!.headers["x-portkey-virtual-key"], "vk-1234");
    assertEquals(
      server.requests[1]!.headers["x-portkey-provider"],
      undefined,
      "a virtual key replaces the provider",
    );
    const e = await assertRejects(() => make({ PORTKEY_API_KEY: PORTKEY_KEY }).complete(REQUEST), ApiError);
    assert(!e.message.includes(PORTKEY_KEY) && e.message.includes("[REDACTED]"), e.message);
  } finally {
    await server.close();
  }
});

Deno.test("portkey: without PORTKEY_API_KEY the cloud gateway is refused before any call, naming the variable", () => {
  assertThrows(
    () =>
      new OpenAIClient({ model_name: "gpt-5-mini" }, {
        env: {},
        costLimit: 0,
        log: () => {},
        gateway: GATEWAYS.portkey!,
      }),
    ConfigError,
    "model_class portkey needs PORTKEY_API_KEY",
  );
});

Deno.test("requesty: its URL by default, Bearer key, upstream's attribution headers, the name sent whole", async () => {
  const client = new OpenAIClient({ model_name: "openai/gpt-4o" }, {
    env: {},
    costLimit: 0,
    log: () => {},
    gateway: GATEWAYS.requesty!,
  });
  assertEquals(client.endpoint.baseUrl, "https://router.requesty.ai/v1");
  const server = await startFakeServer([{ content: "a", commands: ["ls"] }]);
  try {
    const local = new OpenAIClient(
      { model_name: "openai/gpt-4o", base_url: server.url, cost_tracking: "ignore_errors" },
      {
        env: { REQUESTY_API_KEY: "rq-secret-1234" },
        costLimit: 0,
        log: () => {},
        gateway: GATEWAYS.requesty!,
      },
    );
    await local.complete(REQUEST);
    const { headers, body } = server.requests[0]!;
    assertEquals(headers.authorization, "Bearer rq-secret-1234");
    assertEquals([headers["http-referer"], headers["x-title"]], [
      "https://github.com/SWE-agent/mini-swe-agent",
      "mini-swe-agent",
    ]);
    assertEquals((body as { model: string }).model, "openai/gpt-4o");
  } finally {
    await server.close();
  }
});
