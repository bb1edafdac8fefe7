/**
 * The providers a model name's prefix selects (as litellm spells them), in one table: where requests
 * go, which environment variables say otherwise (in litellm's order), which hold the key, and which
 * wire protocol is spoken. The README's provider table is rendered from it ({@link providersMarkdown}).
 *
 * @module
 */
import type { Json } from "../types.ts";

/** Whether a provider puts the call's price in `usage.cost`. */
export type CostReporting = "yes" | "no" | "unknown";

/** The wire protocol of a provider: OpenAI's chat completions, or Anthropic's Messages API. */
export type Protocol = "chat" | "anthropic";

/** One provider's defaults. */
export interface Provider {
  /** Where requests go when nothing else says. */
  baseUrl: string;
  /** Variables naming the base URL, the first one set winning (litellm's lookup order). */
  baseEnv: readonly string[];
  /**
   * Appended to a base URL taken from a variable when the variable names the server's root rather
   * than its OpenAI-compatible path (Ollama's and Gemini's variables do).
   */
  baseEnvPath?: string;
  /** Variables holding the key, the first one set winning; none for local servers that need none. */
  keyEnv: readonly string[];
  /**
   * After its own variables, the base URL may come from `OPENAI_BASE_URL` / `OPENAI_API_BASE` (litellm
   * falls back to them for OpenAI-compatible servers it knows no address of); the key then comes from
   * `OPENAI_API_KEY`, the variable that goes with them.
   */
  openaiFallback?: boolean;
  /** Which API the provider speaks. */
  protocol: Protocol;
  /** Whether the provider reports each call's cost (else prices must be configured to enforce a cost limit). */
  reportsCost: CostReporting;
  /** A server on the user's own machine or network (never costs money, whatever its address). */
  local?: boolean;
  /** Extra body fields the provider needs (OpenRouter: `usage: {include: true}` to report cost). */
  body?: { [key: string]: Json };
}

const OPENAI_BASE_ENV = ["OPENAI_BASE_URL", "OPENAI_API_BASE"] as const;

/**
 * A local OpenAI-compatible server (no cost, a key only when a variable gives one); `openaiFallback`
 * for those litellm reads as OpenAI-compatible servers of no fixed address.
 */
function local(
  baseUrl: string,
  env: { base?: string[]; key?: string[]; path?: string; openaiFallback?: boolean } = {},
): Provider {
  return {
    baseUrl,
    baseEnv: env.base ?? [],
    keyEnv: env.key ?? [],
    protocol: "chat",
    reportsCost: "no",
    local: true,
    ...(env.path ? { baseEnvPath: env.path } : {}),
    ...(env.openaiFallback ? { openaiFallback: true } : {}),
  };
}

/** The providers, by model-name prefix. */
export const PROVIDERS: Readonly<Record<string, Provider>> = {
  openai: {
    baseUrl: "https://api.openai.com/v1",
    baseEnv: OPENAI_BASE_ENV,
    keyEnv: ["OPENAI_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  anthropic: {
    baseUrl: "https://api.anthropic.com",
    baseEnv: ["ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"],
    keyEnv: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    protocol: "anthropic",
    reportsCost: "no",
  },
  openrouter: {
    baseUrl: "https://openrouter.ai/api/v1",
    baseEnv: ["OPENROUTER_API_BASE"],
    keyEnv: ["OPENROUTER_API_KEY", "OR_API_KEY"],
    protocol: "chat",
    reportsCost: "yes",
    body: { usage: { include: true } },
  },
  deepseek: {
    baseUrl: "https://api.deepseek.com/v1",
    baseEnv: ["DEEPSEEK_API_BASE"],
    keyEnv: ["DEEPSEEK_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  moonshot: {
    baseUrl: "https://api.moonshot.ai/v1",
    baseEnv: ["MOONSHOT_API_BASE"],
    keyEnv: ["MOONSHOT_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  gemini: {
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    baseEnv: ["GEMINI_API_BASE"],
    baseEnvPath: "/v1beta/openai",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  groq: {
    baseUrl: "https://api.groq.com/openai/v1",
    baseEnv: ["GROQ_API_BASE"],
    keyEnv: ["GROQ_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  xai: {
    baseUrl: "https://api.x.ai/v1",
    baseEnv: ["XAI_API_BASE"],
    keyEnv: ["XAI_API_KEY"],
    protocol: "chat",
    reportsCost: "no",
  },
  hosted_vllm: local("http://127.0.0.1:8000/v1", {
    base: ["HOSTED_VLLM_API_BASE"],
    key: ["HOSTED_VLLM_API_KEY"],
    openaiFallback: true,
  }),
  vllm: local("http://127.0.0.1:8000/v1"),
  ollama: local("http://127.0.0.1:11434/v1", { base: ["OLLAMA_API_BASE"], path: "/v1" }),
  ollama_chat: local("http://127.0.0.1:11434/v1", { base: ["OLLAMA_API_BASE"], path: "/v1" }),
  llamacpp: local("http://127.0.0.1:8080/v1"),
  lm_studio: local("http://127.0.0.1:1234/v1", {
    base: ["LM_STUDIO_API_BASE"],
    key: ["LM_STUDIO_API_KEY"],
    openaiFallback: true,
  }),
};

/**
 * The README's provider table: one row per prefix with the wire protocol, the default endpoint, the
 * variables read for the endpoint (in order, after `model.base_url` / `--base-url` and
 * `model.model_kwargs.api_base`) and for the key (after `model.api_key_env` and
 * `model.model_kwargs.api_key`).
 *
 * @example
 * ```ts
 * import { providersMarkdown } from "./providers.ts";
 * providersMarkdown().split("\n")[0]; // "| prefix | protocol | default endpoint | endpoint from | key from |"
 * ```
 */
export function providersMarkdown(): string {
  const code = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(", ");
  const rows = Object.entries(PROVIDERS).map(([prefix, p]) => {
    const base = [...p.baseEnv, ...(p.openaiFallback ? OPENAI_BASE_ENV : [])];
    const suffix = p.baseEnvPath ? ` (+ \`${p.baseEnvPath}\`)` : "";
    const keys = [...p.keyEnv, ...(p.openaiFallback ? ["OPENAI_API_KEY"] : [])];
    const keyNote = p.openaiFallback ? " (`OPENAI_API_KEY` only with an `OPENAI_*` endpoint)" : "";
    return `| \`${prefix}/\` | ${p.protocol === "anthropic" ? "Anthropic Messages" : "chat completions"} | ` +
      `${p.baseUrl} | ${base.length ? code(base) + suffix : "-"} | ${
        keys.length ? code(keys) + keyNote : "none"
      } |`;
  });
  return [
    "| prefix | protocol | default endpoint | endpoint from | key from |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
