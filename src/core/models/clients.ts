/**
 * The HTTP client a model class talks through: Anthropic's Messages API for the models litellm sends
 * there (`anthropic/...`, a bare `claude-...`, `custom_llm_provider: anthropic`), OpenAI's chat
 * completions for every other provider and for gateways (OpenRouter included: it is OpenAI-compatible,
 * so `openrouter/anthropic/...` stays chat, as upstream's OpenRouter classes send it), and the
 * Responses API for the response classes.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { ConfigInput } from "../config/keys.ts";
import { AnthropicClient } from "./extra/anthropic.ts";
import { OpenAIClient } from "./openai.ts";
import type { HttpClientDeps } from "./_http.ts";
import type { OPENAI_KEYS } from "./_openai_keys.ts";
import { PROVIDERS } from "./providers.ts";

export type { HttpClientDeps } from "./_http.ts";
export type { Gateway, GatewayHeaders, HeaderRule } from "./extra/_gateways.ts";
export { OPENAI_KEYS } from "./_openai_keys.ts";

/** The provider prefix litellm picks for a name (`custom_llm_provider` first), "" for a bare name. */
function prefixOf(input: ConfigInput<typeof OPENAI_KEYS>): string {
  const name = typeof input.model_name === "string" ? input.model_name : "";
  const kwargs = input.model_kwargs;
  const custom = kwargs !== null && typeof kwargs === "object" && !Array.isArray(kwargs)
    ? kwargs.custom_llm_provider
    : undefined;
  return typeof custom === "string" ? custom : name.includes("/") ? name.slice(0, name.indexOf("/")) : "";
}

/** The provider litellm picks for a name (and `custom_llm_provider`), as far as the protocol goes. */
function speaksAnthropic(input: ConfigInput<typeof OPENAI_KEYS>): boolean {
  const prefix = prefixOf(input);
  if (prefix !== "") return Object.hasOwn(PROVIDERS, prefix) && PROVIDERS[prefix]!.protocol === "anthropic";
  // A bare name: Claude's are Anthropic's in litellm's model lists (unless another server is named).
  const name = typeof input.model_name === "string" ? input.model_name : "";
  return /^claude-/.test(name) && input.base_url === undefined;
}

/**
 * The cloud provider whose own client a model config needs (Bedrock's Converse API, Vertex AI), or
 * undefined: chat completions or Anthropic's Messages API do.
 */
export function cloudProtocol(input: ConfigInput<typeof OPENAI_KEYS>): "bedrock" | "vertex" | undefined {
  const prefix = prefixOf(input);
  const protocol = Object.hasOwn(PROVIDERS, prefix) ? PROVIDERS[prefix]!.protocol : undefined;
  return protocol === "bedrock" || protocol === "vertex" ? protocol : undefined;
}

/**
 * The chat client of a model config: {@link AnthropicClient} for Anthropic's models (not behind a
 * gateway), else {@link OpenAIClient}.
 *
 * @throws {ConfigError} as the clients' constructors do
 */
export function chatClient(
  input: ConfigInput<typeof OPENAI_KEYS>,
  deps: HttpClientDeps,
): OpenAIClient | AnthropicClient {
  return deps.gateway === undefined && speaksAnthropic(input)
    ? new AnthropicClient(input, deps)
    : new OpenAIClient(input, deps);
}

/**
 * The client of a Responses API class (`POST <base_url>/responses`).
 *
 * @throws {ConfigError} for an Anthropic model, whose API has no `/responses`, or as the constructor does
 */
export function responsesClient(input: ConfigInput<typeof OPENAI_KEYS>, deps: HttpClientDeps): OpenAIClient {
  if (deps.gateway === undefined && cloudProtocol(input)) {
    throw new ConfigError(
      `Cannot configure model: "${input.model_name}" is served by ${
        cloudProtocol(input) === "bedrock" ? "Bedrock's Converse API" : "Vertex AI"
      } here, which has no Responses API; use model_class litellm (tool calls) or litellm_textbased`,
    );
  }
  if (deps.gateway === undefined && speaksAnthropic(input)) {
    throw new ConfigError(
      `Cannot configure model: "${input.model_name}" is served by Anthropic's Messages API, which has no ` +
        "Responses API; use model_class litellm (the Messages API, tool calls) or an OpenAI-compatible " +
        "gateway's model name (openrouter/...)",
    );
  }
  return new OpenAIClient(input, deps);
}
