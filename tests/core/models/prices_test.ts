/**
 * Prices from the price database (`@pydantic/genai-prices`) against the providers' published prices,
 * and how the client uses them: model names as users write them, configured prices first, cached
 * tokens at their own rate, and a cost limit that cannot be enforced refused before any call.
 */
import { assert, assertEquals, assertRejects } from "../../_support/assert.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import type { OpenAIClientConfig } from "../../../src/core/models/_keys.ts";
import { findPrice } from "../../../src/core/models/_cost.ts";
import type { ChatRequest } from "../../../src/core/types.ts";
import { startFakeServer } from "../../_support/fake_server.ts";

const M = 1e-6; // dollars per token, from dollars per million tokens
const REQUEST: ChatRequest = { messages: [{ role: "user", content: "hi" }] };
const near = (a: number | undefined, b: number) => a !== undefined && Math.abs(a - b) < 1e-12;

/** [model, provider prefix, $/M input, $/M cached input, $/M output], as the providers publish them. */
const PUBLISHED: [string, string, number, number, number][] = [
  // https://openai.com/api/pricing/ (GPT-5 mini: input $0.250, cached input $0.025, output $2.000 per 1M)
  ["gpt-5-mini", "openai", 0.25, 0.025, 2],
  // https://www.anthropic.com/pricing#api (Sonnet 4.5, prompts <= 200K: input $3, cache read $0.30, output $15 / MTok)
  ["claude-sonnet-4-5", "anthropic", 3, 0.3, 15],
  // https://ai.google.dev/gemini-api/docs/pricing (Gemini 2.5 Flash: input $0.30, caching $0.03, output $2.50 / 1M)
  ["gemini-2.5-flash", "gemini", 0.3, 0.03, 2.5],
  // https://platform.moonshot.ai/docs/pricing/chat (kimi-k2-0905-preview: cache miss $0.60, hit $0.15, output $2.50 / 1M)
  ["kimi-k2-0905-preview", "moonshot", 0.6, 0.15, 2.5],
];

Deno.test("findPrice() agrees with the providers' published prices, cached input included", async () => {
  for (const [model, provider, input, cached, output] of PUBLISHED) {
    const entry = await findPrice(model, provider);
    assert(entry !== undefined, `no price for ${provider}/${model}`);
    const usage = {
      prompt_tokens: 10_000,
      completion_tokens: 1_000,
      prompt_tokens_details: { cached_tokens: 4_000 },
    };
    const want = 6_000 * input * M + 4_000 * cached * M + 1_000 * output * M;
    assert(near(entry.cost(usage), want), `${model}: ${entry.cost(usage)} != ${want}`);
  }
  assertEquals(await findPrice("surely-not-a-model-7f3a", "openai"), undefined);
});

Deno.test("findPrice() knows the common models under the names users write", async () => {
  const names: [string, string | undefined][] = [
    ["gpt-5", "openai"],
    ["gpt-4o", undefined],
    ["claude-sonnet-4-5-20250929", "anthropic"],
    ["claude-opus-4-1", "anthropic"],
    ["gemini-2.5-pro", "gemini"],
    ["deepseek-chat", "deepseek"],
    ["deepseek-reasoner", "deepseek"],
    ["kimi-k2-turbo-preview", "moonshot"],
    ["anthropic/claude-sonnet-4.5", "openrouter"],
    ["openai/gpt-5-mini", "openrouter"],
    ["grok-4", "xai"],
  ];
  for (const [model, provider] of names) assert(await findPrice(model, provider), `${provider}/${model}`);
});

/** A key for each provider the tests name (a provider's own endpoint is refused without one). */
const KEYS = { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", DEEPSEEK_API_KEY: "k" };

function client(config: Partial<OpenAIClientConfig>, costLimit: number, logs: string[] = []) {
  return new OpenAIClient(
    { model_name: "openai/gpt-5-mini", ...config } as OpenAIClientConfig,
    { env: KEYS, costLimit, log: (l) => logs.push(l), sleep: () => Promise.resolve() },
  );
}

Deno.test("OpenAIClient prices the call from the database when the response carries no cost", async () => {
  const usage = {
    prompt_tokens: 10_000,
    completion_tokens: 500,
    prompt_tokens_details: { cached_tokens: 8_000 },
  };
  const server = await startFakeServer([{ content: "a", usage }, { content: "b", usage }]);
  try {
    // A provider prefix with another base URL (a proxy): priced by name, with the limit enforced.
    const c = client({ model_name: "anthropic/claude-sonnet-4-5", base_url: server.url }, 3);
    await c.ready();
    assert(near((await c.complete(REQUEST)).cost, 2_000 * 3 * M + 8_000 * 0.3 * M + 500 * 15 * M));
    // Configured prices win over the database.
    const own = client({ base_url: server.url, input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 }, 3);
    assert(near((await own.complete(REQUEST)).cost, 10_000 * 1e-6 + 500 * 2e-6));
  } finally {
    await server.close();
  }
});

Deno.test("OpenAIClient uses the cost the endpoint reports, even behind a provider prefix", async () => {
  // Before: `-m anthropic/... --base-url X` refused to start, saying X "does not report cost".
  const server = await startFakeServer([{ content: "a", cost: 0.42 }]);
  try {
    const c = client({ model_name: "anthropic/not-a-model-x1", base_url: server.url }, 3);
    await c.ready();
    assertEquals((await c.complete(REQUEST)).cost, 0.42);
  } finally {
    await server.close();
  }
});

Deno.test("OpenAIClient.ready() refuses a cost limit it cannot enforce, saying what is missing", async () => {
  for (const model_name of ["openai/gpt-5-mini", "anthropic/claude-sonnet-4-5", "deepseek/deepseek-chat"]) {
    await client({ model_name }, 3).ready();
  }
  const e = await assertRejects(
    () => client({ model_name: "openai/no-such-model-9z" }, 3).ready(),
    ConfigError,
  );
  for (
    const part of [
      "Cannot enforce the cost limit ($3)",
      'no price is known for model "no-such-model-9z"',
      "@pydantic/genai-prices has no entry",
      "model.input_cost_per_token",
      "agent.cost_limit: 0",
    ]
  ) assert(e.message.includes(part), `${e.message} lacks ${part}`);
  assert(!e.message.includes("does not report cost"), e.message);
  // Without a limit the same run goes ahead (its cost is then counted as 0, with a warning).
  await client({ model_name: "openai/no-such-model-9z" }, 0).ready();
});

Deno.test("OpenAIClient prices a response by the model that answered when it is not the configured one", async () => {
  const usage = { prompt_tokens: 10_000, completion_tokens: 500 };
  // A gateway serving an alias (inspect_swe's bridge answers `openai/inspect` with the real model).
  const server = await startFakeServer([{ content: "a", usage }, { content: "b", usage }, {
    content: "c",
    usage,
    cost: 0.42,
  }], { model: "claude-sonnet-4-5-20250929" });
  try {
    const c = client({ model_name: "openai/inspect", base_url: server.url }, 3);
    await c.ready();
    assert(near((await c.complete(REQUEST)).cost, 10_000 * 3 * M + 500 * 15 * M));
    // The answering model's price wins over configured prices for the alias...
    const own = client({
      model_name: "openai/inspect",
      base_url: server.url,
      input_cost_per_token: 1e-6,
      output_cost_per_token: 2e-6,
    }, 3);
    assert(near((await own.complete(REQUEST)).cost, 10_000 * 3 * M + 500 * 15 * M));
    // ...and a cost the provider reports wins over both.
    assertEquals((await own.complete(REQUEST)).cost, 0.42);
  } finally {
    await server.close();
  }
  // The configured model answering under a dated name keeps the configured prices.
  const dated = await startFakeServer([{ content: "a", usage }], { model: "gpt-5-mini-2025-08-07" });
  try {
    const own = client({ base_url: dated.url, input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 }, 3);
    assert(near((await own.complete(REQUEST)).cost, 10_000 * 1e-6 + 500 * 2e-6));
  } finally {
    await dated.close();
  }
  // A local server is never priced by the database, whatever name it answers with.
  const local = await startFakeServer([{ content: "a", usage }], { model: "gpt-5-mini" });
  try {
    const logs: string[] = [];
    const c = client({ model_name: "hosted_vllm/my-model", base_url: local.url }, 0, logs);
    assertEquals((await c.complete(REQUEST)).cost, 0);
  } finally {
    await local.close();
  }
});
