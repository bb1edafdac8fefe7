/**
 * The HTTP classes: what each talks through, and the chat classes' model. The client follows the
 * protocol of the model's provider (`providers.ts`; the clients in `extra/` loaded only then):
 * Anthropic's Messages API for the models litellm sends there (`anthropic/...`, a bare `claude-...`,
 * `custom_llm_provider: anthropic`), Bedrock's Converse API (`bedrock/`), Vertex AI (`vertex_ai/`),
 * OpenAI's chat completions for every other provider and for gateways (OpenRouter included: it is
 * OpenAI-compatible, so `openrouter/anthropic/...` stays chat, as upstream's OpenRouter classes send
 * it), and the Responses API for the response classes (`extra/responses.ts`). {@link httpClient} builds
 * the client of a run, and of a check before one, in one way.
 *
 * @module
 */
import { type ConfigInput, resolveKeys } from "../config/keys.ts";
import type { ChatClient, Model } from "../types.ts";
import { resolvePath } from "../../lib/paths.ts";
import { OpenAIClient } from "./openai.ts";
import type { HttpClientDeps } from "./_http.ts";
import { OPENAI_KEYS } from "./_keys.ts";
import { type Protocol, PROVIDERS } from "./providers.ts";
import { cacheControlMode, CHAT_MODEL_KEYS, ChatModel } from "./model.ts";
import type { PyRegex } from "../../lib/python/pyregex/pyregex.ts";
import type { HttpModelClient, ModelContext } from "./model_class.ts";
import { isPlainObject } from "../../lib/json.ts";

export type { HttpClientDeps } from "./_http.ts";
export type { Gateway, GatewayHeaders, HeaderRule } from "./extra/_gateways.ts";
export { OPENAI_KEYS } from "./_keys.ts";

/** A client of one of the protocols: chat completions, as each protocol's client answers them. */
export type HttpChatClient = ChatClient & HttpModelClient & { ready(): Promise<void> };

/** The client of each protocol (`providers.ts` names each provider's); those in `extra/` load when chosen. */
const PROTOCOL_CLIENTS: Record<
  Protocol,
  (input: ConfigInput<typeof OPENAI_KEYS>, deps: HttpClientDeps) => Promise<HttpChatClient>
> = {
  chat: (input, deps) => Promise.resolve(new OpenAIClient(input, deps)),
  anthropic: async (input, deps) => new (await import("./extra/anthropic.ts")).AnthropicClient(input, deps),
  bedrock: async (input, deps) => new (await import("./extra/bedrock.ts")).BedrockClient(input, deps),
  vertex: async (input, deps) => new (await import("./extra/vertex.ts")).VertexClient(input, deps),
};

/** The protocol litellm picks for a name (and `custom_llm_provider`), not behind a gateway. */
export function protocolOf(input: ConfigInput<typeof OPENAI_KEYS>): Protocol {
  const name = typeof input.model_name === "string" ? input.model_name : "";
  const kwargs = input.model_kwargs;
  const custom = isPlainObject(kwargs) ? kwargs.custom_llm_provider : undefined;
  const prefix = typeof custom === "string"
    ? custom
    : name.includes("/")
    ? name.slice(0, name.indexOf("/"))
    : "";
  if (prefix !== "") return Object.hasOwn(PROVIDERS, prefix) ? PROVIDERS[prefix]!.protocol : "chat";
  // A bare name: Claude's are Anthropic's in litellm's model lists (unless another server is named).
  return /^claude-/.test(name) && input.base_url === undefined ? "anthropic" : "chat";
}

/**
 * The chat client of a model config: the client of its provider's protocol (not behind a gateway,
 * which speaks chat completions), else {@link OpenAIClient}.
 *
 * @throws {ConfigError} as the clients' constructors do
 */
export function chatClient(
  input: ConfigInput<typeof OPENAI_KEYS>,
  deps: HttpClientDeps,
): Promise<HttpChatClient> {
  return PROTOCOL_CLIENTS[deps.gateway === undefined ? protocolOf(input) : "chat"](input, deps);
}

/**
 * What an HTTP class's client is built from: its resolved keys (`input`), and the config the trajectory
 * records (`config`); a litellm registry's prices are read here.
 * @throws {ConfigError} for a bad key or value
 */
export async function httpConfig({ name, own, deps }: ModelContext): Promise<{
  input: ConfigInput<typeof OPENAI_KEYS>;
  config: Record<string, unknown>;
}> {
  const c = resolveKeys(OPENAI_KEYS, own, "model", { hostEnv: deps.hostEnv });
  const registry = c.litellm_model_registry || deps.hostEnv.LITELLM_MODEL_REGISTRY_PATH;
  const kwargs = c.model_kwargs as Record<string, unknown>;
  const priced = [c.input_cost_per_token, c.output_cost_per_token, kwargs.input_cost_per_token]
    .some((p) => p !== undefined);
  if (registry && !priced) {
    const from = c.litellm_model_registry ? "model.litellm_model_registry" : "LITELLM_MODEL_REGISTRY_PATH";
    const { registryPrices } = await import("./extra/_registry.ts");
    const found = await registryPrices(resolvePath(registry, deps.cwd), from, c.model_name);
    if ("prices" in found) Object.assign(c, found.prices);
    else deps.log(found.note);
  }
  // Upstream's get_model: cache markers for Anthropic-looking names unless the config says otherwise.
  const cacheControl = cacheControlMode(c.model_name, own.set_cache_control);
  // Upstream's OpenRouter classes always talk OpenRouter's dialect (its key, `usage.include`); the name
  // is recorded as configured (upstream's trajectories and preds.json carry it so), prefixed only for the client.
  const config = { ...own, ...c, set_cache_control: cacheControl };
  if (name.startsWith("openrouter") && !c.model_name.startsWith("openrouter/")) {
    c.model_name = `openrouter/${c.model_name}`;
  }
  return { input: { ...own, ...c }, config };
}

/** The HTTP client's own deps: the environment, the cost limit, the class's gateway, the stream sink. */
export async function httpDeps({ row, costLimit, deps }: ModelContext): Promise<HttpClientDeps> {
  const gateway = row.gateway ? (await import("./extra/_gateways.ts")).GATEWAYS[row.gateway] : undefined;
  if (gateway) deps.log(gateway.note);
  return {
    env: deps.hostEnv,
    log: deps.log,
    costLimit,
    ...(gateway ? { gateway } : {}),
    ...(deps.onStream ? { onStream: deps.onStream } : {}),
  };
}

/**
 * The client of a chat class as a run builds it (its cost limit checked before the first call), and
 * the config the trajectory records. A run and a check before one build it so.
 * @throws {ConfigError} for a bad key or value, a missing key, or a cost limit that cannot be enforced
 */
export async function httpClient(
  context: ModelContext,
): Promise<{ client: HttpChatClient; config: Record<string, unknown> }> {
  const { input, config } = await httpConfig(context);
  const client = await chatClient(input, await httpDeps(context));
  await client.ready();
  return { client, config };
}

/** `model.multimodal_regex` compiled (the regex translator loaded only when a config sets one). */
export async function multimodalRegex(config: Record<string, unknown>): Promise<PyRegex | undefined> {
  const pattern = config.multimodal_regex;
  if (typeof pattern !== "string" || pattern === "") return undefined;
  const { compileMultimodalRegex } = await import("./extra/_multimodal.ts");
  return compileMultimodalRegex(pattern, await import("../../lib/python/pyregex/pyregex.ts"));
}

/**
 * A {@link ChatModel} over `client` as the class's row says (tool calls or text), counted towards the
 * process-wide limits; text mode's `action_regex` compiled (the regex translator loaded only then).
 */
export async function chatModel(
  { row, deps }: ModelContext,
  client: ChatClient,
  config: Record<string, unknown>,
): Promise<Model> {
  const counted = deps.limits ? deps.limits.count(client) : client;
  const pattern = String(config.action_regex ?? CHAT_MODEL_KEYS.action_regex.default);
  const regex = row.format === "text"
    ? (await import("./extra/_action_regex.ts")).compileActionRegex(
      pattern,
      await import("../../lib/python/pyregex/pyregex.ts"),
    )
    : undefined;
  const format = row.format === "text" ? "text" : "toolcall";
  const multimodal = await multimodalRegex(config);
  return new ChatModel(config, counted, format, row.type, regex, multimodal, deps.now);
}

/** The registry's constructor of the HTTP chat classes (`openai`, `litellm_textbased`, ...; see `classes.ts`). */
export async function createModel(context: ModelContext): Promise<Model> {
  const replayed = context.deps.clients?.chat;
  if (replayed) return await chatModel(context, replayed, (await httpConfig(context)).config);
  const { client, config } = await httpClient(context);
  return await chatModel(context, client, config);
}
