/**
 * Checking an endpoint without a paid call (`GET <base>/models`), against the loopback servers of
 * both protocols, a port where nothing listens and a host name that does not exist.
 */
import { assertEquals, assertMatch } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { startAnthropicServer } from "../../_support/anthropic_server.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import { AnthropicClient } from "../../../src/core/models/extra/anthropic.ts";
import { KEY } from "./_client.ts";

/** A port nothing listens on (taken, then let go). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

const client = (base_url: string, env: Record<string, string> = {}) =>
  new OpenAIClient(
    { model_name: "hosted_vllm/test-model", base_url, api_key_env: "TEST_KEY" },
    { env, costLimit: 0, log: () => {} },
  );

Deno.test("OpenAIClient.probe() asks GET <base>/models with the key and names the model among those listed", async () => {
  const server = await startFakeServer([], { models: ["other", "test-model"], key: KEY });
  try {
    const ok = await client(server.url, { TEST_KEY: KEY }).probe();
    assertEquals([ok.level, ok.text, ok.keyFrom], [
      "ok",
      `GET ${server.url}/models: HTTP 200, 2 models, test-model among them`,
      "TEST_KEY",
    ]);
    const refused = await client(server.url, { TEST_KEY: "sk-wrong" }).probe();
    assertEquals([refused.level, refused.text], [
      "error",
      `GET ${server.url}/models: HTTP 401, the key was refused (check TEST_KEY)`,
    ]);
    const missing = await new OpenAIClient(
      { model_name: "hosted_vllm/test-mdoel", base_url: server.url, api_key_env: "TEST_KEY" },
      { env: { TEST_KEY: KEY }, costLimit: 0 },
    ).probe();
    assertEquals(missing.level, "warning");
    assertMatch(missing.text, /HTTP 200, 2 models, test-mdoel not among them \(test-model, \.\.\.\)$/);
    assertEquals(server.requests.length, 0); // no chat request: nothing paid
  } finally {
    await server.close();
  }
});

Deno.test("OpenAIClient.probe() says what to check: no server at the port, no such host, no model list there", async () => {
  const port = freePort();
  const refused = await client(`http://127.0.0.1:${port}/v1`).probe();
  assertEquals([refused.level, refused.text], [
    "error",
    `GET http://127.0.0.1:${port}/v1/models: network error: connection refused; check that a server listens ` +
    `at 127.0.0.1:${port} (from model.base_url or --base-url)`,
  ]);
  const dns = await client("http://no-such-host.invalid/v1").probe();
  assertEquals(dns.level, "error");
  assertMatch(
    dns.text,
    /: network error: host name not found \(DNS: .+\); check the host name no-such-host\.invalid \(from model\.base_url or --base-url\) and the network$/,
  );
  const server = await startFakeServer([]);
  try {
    const noList = await client(server.url.replace(/\/v1$/, "")).probe();
    assertEquals(noList.level, "warning");
    assertMatch(
      noList.text,
      /HTTP 404: a server answers, without a model list there; check that the base URL ends/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("AnthropicClient.probe() asks GET <base>/v1/models with x-api-key and anthropic-version", async () => {
  const server = await startAnthropicServer([], { key: KEY, models: ["claude-sonnet-4-5"] });
  try {
    const make = (key: string) =>
      new AnthropicClient({ model_name: "anthropic/claude-sonnet-4-5" }, {
        env: { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.url },
        costLimit: 0,
      });
    const ok = await make(KEY).probe();
    assertEquals([ok.level, ok.text], [
      "ok",
      `GET ${server.url}/v1/models: HTTP 200, 1 model, claude-sonnet-4-5 among them`,
    ]);
    const bad = await make("sk-ant-wrong").probe();
    assertEquals([bad.level, bad.text], [
      "error",
      `GET ${server.url}/v1/models: HTTP 401, the key was refused (check ANTHROPIC_API_KEY)`,
    ]);
  } finally {
    await server.close();
  }
});
