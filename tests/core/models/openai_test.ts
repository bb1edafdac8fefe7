import { assert, assertEquals, assertRejects, assertThrows } from "../../_support/assert.ts";
import { ApiError, ConfigError } from "../../../src/core/errors.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import type { OpenAIClientConfig } from "../../../src/core/models/_keys.ts";
import type { Json } from "../../../src/core/types.ts";
import { assertIncludes, field, KEY, REQUEST, setup, withServer } from "./_client.ts";

Deno.test("OpenAIClient.complete() returns the tool calls and the raw body", async () => {
  await withServer([{ content: "hm", commands: ["ls"], reasoning_content: "why" }], async (server) => {
    const { client } = setup(server);
    const completion = await client.complete(REQUEST);
    assertEquals(completion.message, {
      role: "assistant",
      content: "hm",
      reasoning_content: "why",
      tool_calls: [{
        id: "call_0_0",
        type: "function",
        function: { name: "bash", arguments: '{"command":"ls"}' },
      }],
    });
    assertEquals(completion.finish_reason, "tool_calls");
    assertEquals(field(completion.response, "object"), "chat.completion");
    assertEquals(field(completion.response, "model"), "test-model");
  });
});

Deno.test("OpenAIClient.complete() sends model (prefix stripped), messages, tools and model_kwargs only", async () => {
  await withServer([{ content: "ok" }], async (server) => {
    const { client, logs } = setup(server, {
      model_kwargs: {
        temperature: 0.2,
        drop_params: true,
        num_retries: 3,
        timeout: 30,
        extra_headers: { "X-Title": "claudius" },
        extra_body: { top_k: 5 },
      },
    });
    await client.complete(REQUEST);
    const [request] = server.requests;
    assertEquals(request?.body, {
      model: "test-model",
      messages: REQUEST.messages,
      tools: REQUEST.tools ?? null,
      temperature: 0.2,
      top_k: 5,
    } as Json);
    assertEquals(request?.headers["x-title"], "claudius");
    assertEquals(request?.headers["authorization"], undefined);
    assertEquals(logs.length, 1);
    assertIncludes(logs[0] ?? "", "litellm-only model.model_kwargs keys: num_retries");
  });
});

Deno.test("OpenAIClient.complete() sends the key only when its variable is set, and never leaks it", async () => {
  const echo = JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } });
  await withServer([{ content: "ok" }, { fault: "status", status: 401, body: echo }], async (server) => {
    const { client, logs } = setup(server, { api_key_env: "TEST_KEY" }, { env: { TEST_KEY: KEY } });
    await client.complete(REQUEST);
    assertEquals(server.requests[0]?.headers["authorization"], `Bearer ${KEY}`);
    const error = await assertRejects(() => client.complete(REQUEST), ApiError);
    assertEquals(error.status, 401);
    assertIncludes(error.message, "check TEST_KEY");
    assert(!error.message.includes(KEY), error.message);
    assert(!logs.join("\n").includes(KEY));
  });
  await withServer([{ content: "ok" }], async (server) => {
    const { client } = setup(server, { api_key_env: "TEST_KEY" }, { env: { TEST_KEY: "" } });
    await client.complete(REQUEST);
    assertEquals(server.requests[0]?.headers["authorization"], undefined);
  });
});

Deno.test("OpenAIClient.complete() takes the cost from usage.cost, else from prices", async () => {
  await withServer([
    { content: "a", cost: 0.125 },
    {
      content: "b",
      usage: { prompt_tokens: 1000, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 400 } },
    },
    { content: "c", cost: 0 },
  ], async (server) => {
    const { client, logs } = setup(server, {
      cost_tracking: "default",
      input_cost_per_token: 1e-6,
      output_cost_per_token: 4e-6,
      cache_read_input_token_cost: 1e-7,
    }, { costLimit: 5 });
    assertEquals((await client.complete(REQUEST)).cost, 0.125);
    const cost = (await client.complete(REQUEST)).cost;
    assert(Math.abs(cost - (600e-6 + 400e-7 + 400e-6)) < 1e-12, String(cost));
    assertEquals((await client.complete(REQUEST)).cost, 0);
    assertEquals(logs, []);
  });
});

Deno.test("OpenAIClient.complete() counts an unknown cost as 0 with exactly one warning when no limit is set", async () => {
  await withServer([{ content: "a" }, { content: "b" }], async (server) => {
    const { client, logs } = setup(server, { model_name: "my-model", cost_tracking: "default" });
    assertEquals((await client.complete(REQUEST)).cost, 0);
    assertEquals((await client.complete(REQUEST)).cost, 0);
    assertEquals(logs.length, 1);
    assertIncludes(logs[0] ?? "", "input_cost_per_token");
  });
});

Deno.test("OpenAIClient under a cost limit: a local server (hosted_vllm/, ollama/, ...) is free, with no warning", async () => {
  await withServer([{ content: "a" }, { content: "b", cost: 0.25 }, { content: "c" }], async (server) => {
    // Before: refused at start ('Cannot enforce the cost limit ($3)'), though such a server costs nothing.
    const { client, logs } = setup(server, { cost_tracking: "default" }, { costLimit: 3 });
    await client.ready();
    assertEquals((await client.complete(REQUEST)).cost, 0);
    assertEquals((await client.complete(REQUEST)).cost, 0.25); // a cost it reports still counts
    const priced = setup(server, {
      cost_tracking: "default",
      input_cost_per_token: 1e-3,
      output_cost_per_token: 0,
    }, {
      costLimit: 3,
    });
    assert((await priced.client.complete(REQUEST)).cost > 0); // and so do prices given for it
    assertEquals([...logs, ...priced.logs], []);
  });
});

Deno.test("OpenAIClient.complete() throws after the first call when an unknown endpoint reports no cost", async () => {
  await withServer([{ content: "a", cost: 0.5 }, { content: "b" }, { content: "c" }], async (server) => {
    const { client } = setup(server, { model_name: "my-model", cost_tracking: "default" }, { costLimit: 3 });
    assertEquals((await client.complete(REQUEST)).cost, 0.5);
    const error = await assertRejects(() => client.complete(REQUEST), ConfigError);
    assertIncludes(error.message, "cost of the call just made is unknown");
    assertEquals(server.requests.length, 2);
  });
});

Deno.test("OpenAIClient presets pick URL, key variable and body; bad configs fail naming the key", async () => {
  await withServer([{ content: "a", cost: 0.01 }], async (server) => {
    const { client } = setup(server, {
      model_name: "openrouter/anthropic/claude-x",
      cost_tracking: "default",
    }, {
      env: { OPENROUTER_API_KEY: KEY },
      costLimit: 1,
    });
    assertEquals((await client.complete(REQUEST)).cost, 0.01);
    const request = server.requests[0];
    assertEquals(field(request?.body, "model"), "anthropic/claude-x");
    assertEquals(field(request?.body, "usage"), { include: true });
    assertEquals(request?.headers["authorization"], `Bearer ${KEY}`);
  });
  const env = { env: { OPENAI_API_KEY: KEY }, costLimit: 0 };
  assertEquals(new OpenAIClient({ model_name: "gpt-4o" }, env).endpoint.baseUrl, "https://api.openai.com/v1");
  const keyless = { env: {}, costLimit: 0 };
  assertEquals(new OpenAIClient({ model_name: "ollama/qwen3" }, keyless).endpoint.keyEnv, []);
  // A provider's own endpoint needs a key: refused before any call, naming the variable; a server
  // named by model.base_url may need none.
  assertThrows(
    () => new OpenAIClient({ model_name: "openai/gpt-4o" }, keyless),
    ConfigError,
    "no API key for openai/gpt-4o (https://api.openai.com/v1): set OPENAI_API_KEY",
  );
  assertThrows(
    () => new OpenAIClient({ model_name: "deepseek/x", api_key_env: "MY_KEY" }, keyless),
    ConfigError,
    "set MY_KEY",
  );
  new OpenAIClient({ model_name: "openai/gpt-4o", base_url: "http://127.0.0.1:8000/v1" }, keyless);
  const cases: [Partial<OpenAIClientConfig>, string][] = [
    [{ model_name: "Qwen/Qwen3-8B" }, "model.base_url"],
    [{ model_name: "gpt-4o", model_kwargs: { api_key: "os.environ/UNSET_KEY" } }, "UNSET_KEY is not set"],
    [{ model_name: "gpt-4o", base_url: "ftp://x" }, "model.base_url"],
    [{ model_name: "gpt-4o", retry_attempts: 0 }, "model.retry_attempts"],
    [{ model_name: "gpt-4o", input_cost_per_token: 1e-6 }, "model.output_cost_per_token"],
  ];
  for (const [config, named] of cases) {
    assertThrows(() => new OpenAIClient(config, env), ConfigError, named);
  }
});

Deno.test("OpenAIClient puts the route before a base_url's query string (chat and Responses API)", async () => {
  await withServer([{ content: "ok" }, { commands: ["ls"] }], async (server) => {
    const { client } = setup(server, { base_url: `${server.url}/?api-version=2024-10` });
    assertEquals((await client.complete(REQUEST)).message.content, "ok");
    await client.respond({ input: [], tools: [] });
    assertEquals(server.requests.map((r) => r.path), [
      "/v1/chat/completions?api-version=2024-10",
      "/v1/responses?api-version=2024-10",
    ]);
  });
});
