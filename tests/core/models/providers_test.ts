/**
 * Where requests go and which key they carry, as litellm resolves them per provider prefix: config,
 * `model_kwargs.api_base`, the provider's variables, its default (src/core/models/providers.ts,
 * _presets.ts), through the client against the loopback server.
 */
import { assert, assertEquals, assertThrows } from "../../_support/assert.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import { resolveEndpoint } from "../../../src/core/models/_presets.ts";
import { PROVIDERS } from "../../../src/core/models/providers.ts";
import { providersMarkdown } from "../../../src/core/models/provider_docs.ts";
import { KEY, REQUEST, withServer } from "./_client.ts";

const client = (config: Record<string, unknown>, env: Record<string, string>) =>
  new OpenAIClient({ cost_tracking: "ignore_errors", ...config }, { env, costLimit: 0, log: () => {} });

Deno.test("OPENAI_BASE_URL, then OPENAI_API_BASE, point openai/ and bare model names at the server, with OPENAI_API_KEY", async () => {
  await withServer([{ content: "a" }, { content: "b" }, { content: "c" }], async (server) => {
    const other = "http://127.0.0.1:9/v1";
    for (
      const [name, env] of [
        ["openai/gpt-4o", { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY }],
        ["gpt-4o", { OPENAI_BASE_URL: server.url, OPENAI_API_BASE: other, OPENAI_API_KEY: KEY }],
        ["openai/gpt-4o", { OPENAI_BASE_URL: `${server.url}/`, OPENAI_API_KEY: KEY }],
      ] as const
    ) {
      const c = client({ model_name: name }, env);
      assertEquals(c.endpoint.baseFrom, "OPENAI_BASE_URL" in env ? "$OPENAI_BASE_URL" : "$OPENAI_API_BASE");
      await c.complete(REQUEST);
    }
    assertEquals(server.requests.map((r) => [r.path, r.headers.authorization]), [
      ["/v1/chat/completions", `Bearer ${KEY}`],
      ["/v1/chat/completions", `Bearer ${KEY}`],
      ["/v1/chat/completions", `Bearer ${KEY}`],
    ]);
    assertEquals(
      server.requests.map((r) => (r.body as Record<string, unknown>).model),
      Array(3).fill("gpt-4o"),
    );
  });
});

Deno.test("resolveEndpoint(): model.base_url beats model_kwargs.api_base beats the variables beats the default", () => {
  const env = { OPENAI_BASE_URL: "http://env.example/v1", OPENAI_API_BASE: "http://env2.example/v1" };
  const at = (input: Partial<Parameters<typeof resolveEndpoint>[0]>) =>
    resolveEndpoint({ modelName: "openai/gpt-4o", env, ...input });
  assertEquals(
    at({ baseUrl: "http://flag.example/v1", kwargBaseUrl: "http://kw.example/v1" }).baseUrl,
    "http://flag.example/v1",
  );
  assertEquals(at({ kwargBaseUrl: "http://kw.example/v1" }).baseFrom, "model.model_kwargs.api_base");
  assertEquals(at({}).baseUrl, "http://env.example/v1");
  assertEquals(at({ env: {} }).baseFrom, "the openai default");
  assertEquals(at({ env: {} }).reportsCost, "no");
  assertEquals(at({}).reportsCost, "unknown", "a proxy behind OpenAI's name may report cost");
});

Deno.test("resolveEndpoint() reads each provider's own variables, as litellm does", () => {
  const cases: [string, Record<string, string>, string, string[]][] = [
    ["anthropic/claude-sonnet-4-5", { ANTHROPIC_BASE_URL: "http://a.example" }, "http://a.example", [
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_AUTH_TOKEN",
    ]],
    [
      "claude-sonnet-4-5",
      { ANTHROPIC_API_BASE: "http://b.example", ANTHROPIC_BASE_URL: "http://c" },
      "http://b.example",
      [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
      ],
    ],
    ["openrouter/x/y", { OPENROUTER_API_BASE: "http://or.example/api/v1" }, "http://or.example/api/v1", [
      "OPENROUTER_API_KEY",
      "OR_API_KEY",
    ]],
    ["hosted_vllm/q", { HOSTED_VLLM_API_BASE: "http://v.example/v1" }, "http://v.example/v1", [
      "HOSTED_VLLM_API_KEY",
    ]],
    // litellm falls back to OpenAI's variables for servers of no fixed address, and to OpenAI's key with them.
    ["hosted_vllm/q", { OPENAI_API_BASE: "http://o.example/v1" }, "http://o.example/v1", [
      "HOSTED_VLLM_API_KEY",
      "OPENAI_API_KEY",
    ]],
    ["hosted_vllm/q", {}, "http://127.0.0.1:8000/v1", ["HOSTED_VLLM_API_KEY"]],
    ["ollama/q", { OLLAMA_API_BASE: "http://gpu:11434" }, "http://gpu:11434/v1", []],
    ["gemini/g", { GEMINI_API_BASE: "https://g.example" }, "https://g.example/v1beta/openai", [
      "GEMINI_API_KEY",
      "GOOGLE_API_KEY",
    ]],
    [
      "deepseek/d",
      { DEEPSEEK_API_BASE: "http://d.example/v1", OPENAI_API_BASE: "http://no" },
      "http://d.example/v1",
      [
        "DEEPSEEK_API_KEY",
      ],
    ],
    ["groq/m", { OPENAI_API_BASE: "http://no" }, "https://api.groq.com/openai/v1", ["GROQ_API_KEY"]],
  ];
  for (const [modelName, env, baseUrl, keyEnv] of cases) {
    const endpoint = resolveEndpoint({ modelName, env });
    assertEquals(
      [endpoint.baseUrl, endpoint.keyEnv],
      [baseUrl, keyEnv],
      `${modelName} ${JSON.stringify(env)}`,
    );
  }
  assertEquals(resolveEndpoint({ modelName: "claude-3-5-haiku-latest" }).protocol, "anthropic");
  assertEquals(resolveEndpoint({ modelName: "openrouter/anthropic/claude-sonnet-4-5" }).protocol, "chat");
  assertEquals(resolveEndpoint({ modelName: "my-model", apiKeyEnv: "MINE", baseUrl: "http://x" }).keyEnv, [
    "MINE",
  ]);
  assertEquals(resolveEndpoint({ modelName: "Qwen/Qwen3-8B", baseUrl: "http://x" }).keyEnv, []);
  assertThrows(
    () => resolveEndpoint({ modelName: "openai/gpt-4o", env: { OPENAI_BASE_URL: "ftp://x" } }),
    ConfigError,
    "OPENAI_BASE_URL must be an http(s) URL",
  );
});

Deno.test("resolveEndpoint(): custom_llm_provider picks the provider whatever the name says, as litellm prefixes it", () => {
  const local = resolveEndpoint({
    modelName: "my-local-model",
    provider: "openai",
    kwargBaseUrl: "http://l/v1",
  });
  assertEquals([local.provider, local.model, local.keyEnv], ["openai", "my-local-model", ["OPENAI_API_KEY"]]);
  const claude = resolveEndpoint({ modelName: "claude-opus-4-5", provider: "anthropic" });
  assertEquals([claude.protocol, claude.model], ["anthropic", "claude-opus-4-5"]);
  // Already prefixed with it: unchanged.
  assertEquals(resolveEndpoint({ modelName: "openai/gpt-4o", provider: "openai" }).model, "gpt-4o");
  assertThrows(
    () => resolveEndpoint({ modelName: "m", provider: "nonesuch" }),
    ConfigError,
    'custom_llm_provider "nonesuch" is not a provider claudius knows',
  );
});

Deno.test("providersMarkdown() has one row per provider, naming every variable read", () => {
  const table = providersMarkdown();
  const rows = table.split("\n").slice(2);
  assertEquals(rows.length, Object.keys(PROVIDERS).length);
  for (const [prefix, p] of Object.entries(PROVIDERS)) {
    const row = rows.find((r) => r.startsWith(`| \`${prefix}/\` |`)) ?? "";
    for (const name of [...p.baseEnv, ...p.keyEnv]) assert(row.includes(`\`${name}\``), `${prefix}: ${name}`);
  }
  assert(table.includes("| `anthropic/` | Anthropic Messages | https://api.anthropic.com |"), table);
});

Deno.test("together_ai/, mistral/, fireworks_ai/: litellm's endpoints, variables and names (Fireworks' accounts/ path)", async () => {
  const cases: [string, Record<string, string>, string, string, string[]][] = [
    [
      "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
      {},
      "https://api.together.xyz/v1",
      "meta-llama/Llama-3.3-70B-Instruct-Turbo",
      [
        "TOGETHER_API_KEY",
        "TOGETHER_AI_API_KEY",
        "TOGETHERAI_API_KEY",
        "TOGETHER_AI_TOKEN",
      ],
    ],
    ["together_ai/m", { TOGETHER_AI_API_BASE: "http://t.example/v1" }, "http://t.example/v1", "m", [
      "TOGETHER_API_KEY",
      "TOGETHER_AI_API_KEY",
      "TOGETHERAI_API_KEY",
      "TOGETHER_AI_TOKEN",
    ]],
    ["mistral/devstral-medium-2507", {}, "https://api.mistral.ai/v1", "devstral-medium-2507", [
      "MISTRAL_AZURE_API_KEY",
      "MISTRAL_API_KEY",
    ]],
    // litellm adds the /v1 Mistral always needs.
    ["mistral/m", { MISTRAL_AZURE_API_BASE: "https://m.example" }, "https://m.example/v1", "m", [
      "MISTRAL_AZURE_API_KEY",
      "MISTRAL_API_KEY",
    ]],
    [
      "fireworks_ai/kimi-k2-instruct",
      {},
      "https://api.fireworks.ai/inference/v1",
      "accounts/fireworks/models/kimi-k2-instruct",
      [
        "FIREWORKS_API_KEY",
        "FIREWORKS_AI_API_KEY",
        "FIREWORKSAI_API_KEY",
        "FIREWORKS_AI_TOKEN",
      ],
    ],
    [
      "fireworks_ai/accounts/me/models/tuned",
      { FIREWORKS_API_BASE: "http://f.example/v1" },
      "http://f.example/v1",
      "accounts/me/models/tuned",
      [
        "FIREWORKS_API_KEY",
        "FIREWORKS_AI_API_KEY",
        "FIREWORKSAI_API_KEY",
        "FIREWORKS_AI_TOKEN",
      ],
    ],
  ];
  for (const [modelName, env, baseUrl, model, keyEnv] of cases) {
    const e = resolveEndpoint({ modelName, env });
    assertEquals([e.baseUrl, e.model, e.keyEnv], [baseUrl, model, keyEnv], modelName);
  }
  // Through the client: the rewritten name and the key of the first variable set, at the server the variable names.
  await withServer([{ content: "f" }, { content: "t" }, { content: "m" }], async (server) => {
    await client({ model_name: "fireworks_ai/deepseek-v3p2" }, {
      FIREWORKS_API_BASE: server.url,
      FIREWORKS_AI_API_KEY: KEY,
    })
      .complete(REQUEST);
    await client({ model_name: "together_ai/Qwen/Qwen3-Coder" }, {
      TOGETHER_AI_API_BASE: server.url,
      TOGETHERAI_API_KEY: KEY,
    })
      .complete(REQUEST);
    await client({ model_name: "mistral/devstral-small" }, {
      MISTRAL_AZURE_API_BASE: server.url.replace(/\/v1$/, ""),
      MISTRAL_API_KEY: KEY,
    }).complete(REQUEST);
    assertEquals(
      server.requests.map((r) => [r.path, r.headers.authorization, (r.body as { model: string }).model]),
      [
        ["/v1/chat/completions", `Bearer ${KEY}`, "accounts/fireworks/models/deepseek-v3p2"],
        ["/v1/chat/completions", `Bearer ${KEY}`, "Qwen/Qwen3-Coder"],
        ["/v1/chat/completions", `Bearer ${KEY}`, "devstral-small"],
      ],
    );
  });
  // No key: refused before any request, naming the variables in litellm's order.
  assertThrows(
    () => client({ model_name: "fireworks_ai/x" }, {}),
    ConfigError,
    "set FIREWORKS_API_KEY or FIREWORKS_AI_API_KEY",
  );
});
