/**
 * Which client a model config talks through (src/core/models/chat.ts, extra/responses.ts), and a whole
 * run of upstream's `litellm` class with an `anthropic/` model over the native API, through the CLI.
 */
import { assert, assertEquals, assertThrows } from "../../_support/assert.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { AnthropicClient, messagesUrl } from "../../../src/core/models/extra/anthropic.ts";
import { chatClient } from "../../../src/core/models/chat.ts";
import { responsesClient } from "../../../src/core/models/extra/responses.ts";
import { GATEWAYS } from "../../../src/core/models/extra/_gateways.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import { startAnthropicServer } from "../../_support/anthropic_server.ts";
import { KEY } from "./_client.ts";

const deps = {
  env: { ANTHROPIC_API_KEY: KEY, OPENROUTER_API_KEY: KEY, PORTKEY_API_KEY: KEY, OPENAI_API_KEY: KEY },
  costLimit: 0,
  log: () => {},
};

Deno.test("chatClient(): Anthropic's models speak the Messages API; OpenRouter, gateways and the rest chat completions", async () => {
  const kind = async (config: Record<string, unknown>, gateway?: keyof typeof GATEWAYS) =>
    (await chatClient({ cost_tracking: "ignore_errors", ...config }, {
      ...deps,
      ...(gateway ? { gateway: GATEWAYS[gateway]! } : {}),
    }))
      .constructor.name;
  assertEquals(await kind({ model_name: "anthropic/claude-sonnet-4-5" }), AnthropicClient.name);
  assertEquals(await kind({ model_name: "claude-3-5-haiku-latest" }), AnthropicClient.name);
  assertEquals(
    await kind({ model_name: "my-claude", model_kwargs: { custom_llm_provider: "anthropic" } }),
    AnthropicClient.name,
  );
  assertEquals(await kind({ model_name: "openrouter/anthropic/claude-sonnet-4-5" }), OpenAIClient.name);
  assertEquals(
    await kind({ model_name: "claude-sonnet-4-5", base_url: "http://127.0.0.1:9/v1" }),
    OpenAIClient.name,
  );
  assertEquals(await kind({ model_name: "@anthropic/claude-sonnet-4-5" }, "portkey"), OpenAIClient.name);
  assertEquals(await kind({ model_name: "openai/gpt-4o" }), OpenAIClient.name);
  assertThrows(
    () => responsesClient({ model_name: "anthropic/claude-sonnet-4-5" }, deps),
    ConfigError,
    "has no Responses API; use model_class litellm",
  );
});

Deno.test("claudius with upstream's litellm class and an anthropic/ model runs over the Messages API, with cache hits and cache prices", async () => {
  const server = await startAnthropicServer([
    { content: "Looking around.", commands: ["ls"] },
    { commands: ["echo hi"] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ], { key: KEY });
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../../main.ts", import.meta.url).pathname,
        ...["-t", "t", "-m", "anthropic/claude-sonnet-4-5-20250929", "-c", "model.model_class=litellm"],
        ...["--create-cwd", "--cwd", `${dir}/ws`, "-o", `${dir}/t.traj.json`],
      ],
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    assertEquals(server.requests.length, 3);
    assertEquals(server.cache.map((c) => c.breakpoints.length), [1, 1, 1]);
    assert(server.cache.slice(1).every((c) => c.cache_read_input_tokens > 0), JSON.stringify(server.cache));
    const trajectory = JSON.parse(await Deno.readTextFile(`${dir}/t.traj.json`));
    const assistant = trajectory.messages.find((m: { role: string }) => m.role === "assistant");
    assertEquals(assistant.tool_calls[0].function, { arguments: '{"command": "ls"}', name: "bash" });
    assertEquals(assistant.content, "Looking around.");
    const usage = trajectory.messages.filter((m: { role: string }) =>
      m.role === "assistant"
    )[1].extra.response.usage;
    assertEquals(usage.cache_read_input_tokens, server.cache[1]!.cache_read_input_tokens);
    assertEquals(usage.prompt_tokens_details.cached_tokens, server.cache[1]!.cache_read_input_tokens);
    assertEquals(trajectory.info.config.model.set_cache_control, "default_end");
    // Priced from the database at Claude's rates: a cache read costs a tenth of an input token.
    assert(trajectory.info.model_stats.instance_cost > 0, stderr);
  } finally {
    await server.close();
  }
});

Deno.test("messagesUrl() appends /v1/messages as litellm does, keeping a base that ends in it or in /v1", () => {
  assertEquals(messagesUrl("https://api.anthropic.com"), "https://api.anthropic.com/v1/messages");
  assertEquals(messagesUrl("https://api.anthropic.com/v1/"), "https://api.anthropic.com/v1/messages");
  assertEquals(messagesUrl("http://proxy/anthropic/v1/messages"), "http://proxy/anthropic/v1/messages");
  assertEquals(messagesUrl("http://proxy/anthropic?tenant=a"), "http://proxy/anthropic/v1/messages?tenant=a");
});
