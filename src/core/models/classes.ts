/**
 * The model classes, one table: each name a config can give as `model.model_class` (upstream's names
 * included), how it talks, the keys it reads and one line of documentation; and the factory that
 * builds the model a config names (scripted and Responses classes loaded only when used).
 *
 * @module
 */
import { type Keys, resolveKeys } from "../config/keys.ts";
import { ConfigError } from "../errors.ts";
import type { GlobalLimits } from "../global_limits.ts";
import type { ChatClient, Model, StreamSink } from "../types.ts";
import { resolvePath } from "../../lib/files.ts";
import { CHAT_MODEL_KEYS, ChatModel, compileActionRegex, type PyRegexModule } from "./model.ts";
import { compileMultimodalRegex } from "./extra/_multimodal.ts";
import type { PyRegex } from "../../lib/python/pyregex/pyregex.ts";
import { chatClient, cloudProtocol, responsesClient } from "./clients.ts";
import type { BedrockClient } from "./extra/bedrock.ts";
import type { VertexClient } from "./extra/vertex.ts";
import type { AnthropicClient } from "./extra/anthropic.ts";
import type { OpenAIClient } from "./openai.ts";
import { OPENAI_KEYS } from "./_openai_keys.ts";
import { cacheControlMode } from "./_cache_control.ts";
import type { ResponsesClient } from "./extra/responses.ts";
import { SCRIPTED_KEYS } from "./_scripted_config.ts";
import { GATEWAYS, PORTKEY_KEYS } from "./extra/_gateways.ts";
import { registryPrices } from "./extra/_registry.ts";
import { INTERLEAVING_KEYS, metaModel, ROULETTE_KEYS } from "./extra/roulette.ts";

/** How a model class talks (HTTP, a replayed script, or through its own models) and writes its actions. */
export interface ModelClass {
  /** Talks over HTTP (`http`), replays a script (`scripted`), or picks among models of its own (`meta`). */
  transport: "http" | "scripted" | "meta";
  /** Tool calls or one fenced block (chat completions), or tool calls over the Responses API. */
  format: "toolcall" | "text" | "response";
  /** Responses API: system and user messages as `{role, content}` (litellm) or typed (OpenRouter). */
  style?: "plain" | "typed";
  /**
   * Recorded as `info.config.model_type`; classes that behave alike share one (a resume or replay
   * picks the first class of the type), so a class that behaves otherwise needs its own.
   */
  type: string;
  /** An OpenAI-compatible gateway upstream reaches with its own client (a key of `GATEWAYS`). */
  gateway?: "portkey" | "requesty";
  /** The `model:` keys the class reads. */
  keys: Keys;
  /** One line for `--help` and the config reference. */
  doc: string;
}

const HTTP_KEYS = { ...CHAT_MODEL_KEYS, ...OPENAI_KEYS };
const SCRIPTED_MODEL_KEYS = { ...CHAT_MODEL_KEYS, ...SCRIPTED_KEYS };
const TOOLCALL = "claudius.models.OpenAIModel";
const TEXT = "claudius.models.OpenAITextbasedModel";
const RESPONSE = "claudius.models.ResponsesModel";

const http = (format: ModelClass["format"], type: string, doc: string): ModelClass => ({
  transport: "http",
  format,
  type,
  keys: HTTP_KEYS,
  doc,
});
const scripted = (format: ModelClass["format"], type: string, doc: string): ModelClass => ({
  transport: "scripted",
  format,
  type,
  keys: SCRIPTED_MODEL_KEYS,
  doc,
});

/** Every model class name (upstream's names are aliases of claudius's HTTP classes). */
export const MODEL_CLASSES: Readonly<Record<string, ModelClass>> = {
  openai: http("toolcall", TOOLCALL, "any OpenAI-compatible endpoint, tool calls"),
  litellm: http("toolcall", TOOLCALL, "upstream's name: `openai`"),
  openrouter: http("toolcall", TOOLCALL, "upstream's name: `openai` with OpenRouter's dialect"),
  openai_textbased: http("text", TEXT, "the same, one fenced block per reply"),
  litellm_textbased: http("text", TEXT, "upstream's name: `openai_textbased`"),
  openrouter_textbased: http("text", TEXT, "upstream's name: `openai_textbased` with OpenRouter's dialect"),
  openai_response: http(
    "response",
    RESPONSE,
    "any endpoint of the Responses API (`<base_url>/responses`), tool calls",
  ),
  litellm_response: http("response", RESPONSE, "upstream's name: `openai_response`"),
  openrouter_response: {
    ...http(
      "response",
      "claudius.models.OpenRouterResponsesModel",
      "upstream's name: `openai_response` with OpenRouter's message shapes",
    ),
    style: "typed",
  },
  portkey: {
    ...http(
      "toolcall",
      "claudius.models.PortkeyModel",
      "upstream's Portkey gateway: `openai` at `https://api.portkey.ai/v1` with Portkey's headers",
    ),
    keys: { ...HTTP_KEYS, ...PORTKEY_KEYS },
    gateway: "portkey",
  },
  requesty: {
    ...http(
      "toolcall",
      "claudius.models.RequestyModel",
      "upstream's Requesty gateway: `openai` at `https://router.requesty.ai/v1`",
    ),
    gateway: "requesty",
  },
  portkey_response: {
    ...http(
      "response",
      RESPONSE,
      "upstream's Portkey gateway over the Responses API: `openai_response` at `https://api.portkey.ai/v1` " +
        "with Portkey's headers",
    ),
    type: "claudius.models.PortkeyResponsesModel",
    keys: { ...HTTP_KEYS, ...PORTKEY_KEYS },
    gateway: "portkey",
  },
  roulette: {
    transport: "meta",
    format: "toolcall",
    type: "claudius.models.RouletteModel",
    keys: ROULETTE_KEYS,
    doc: "upstream's `RouletteModel`: each call goes to a model picked at random from `model_kwargs`, " +
      "a list of model configs",
  },
  interleaving: {
    transport: "meta",
    format: "toolcall",
    type: "claudius.models.InterleavingModel",
    keys: INTERLEAVING_KEYS,
    doc:
      "upstream's `InterleavingModel`: the models of `model_kwargs` answer in turn (or as `sequence` orders)",
  },
  scripted: scripted(
    "toolcall",
    "claudius.models.ScriptedModel",
    "replays `script` or `replies`, for tests and demos; tool calls",
  ),
  scripted_textbased: scripted("text", "claudius.models.ScriptedTextbasedModel", "the same, text mode"),
};

/** The class used when no config sets `model.model_class`. */
export const DEFAULT_MODEL_CLASS = "openai";

/**
 * The modules some classes need beyond the chat client, loaded by the command layer when a config
 * picks such a class: start-up pays only for what runs.
 */
export interface ModelModules {
  /** `model_class: scripted` (replayed scripts). */
  scripted(): Promise<typeof import("./extra/scripted.ts")>;
  /** The Responses API classes (`*_response`). */
  responses(): Promise<typeof import("./extra/responses.ts")>;
  /** The regex engine for text mode's `action_regex` and `multimodal_regex`. */
  pyregex(): Promise<PyRegexModule>;
  /** `bedrock/` models: Bedrock's Converse API, SigV4-signed. */
  bedrock(): Promise<typeof import("./extra/bedrock.ts")>;
  /** `vertex_ai/` models: Vertex AI with Google's credentials. */
  vertex(): Promise<typeof import("./extra/vertex.ts")>;
}

/** The HTTP chat clients a class may talk through. */
export type HttpChatClient = OpenAIClient | AnthropicClient | BedrockClient | VertexClient;

/** The chat client of a config: a cloud provider's own (its module loaded now), else {@link chatClient}'s. */
async function httpChatClient(
  input: Parameters<typeof chatClient>[0],
  httpDeps: Parameters<typeof chatClient>[1],
  modules: ModelModules,
): Promise<HttpChatClient> {
  const cloud = httpDeps.gateway === undefined ? cloudProtocol(input) : undefined;
  if (cloud === "bedrock") return new (await modules.bedrock()).BedrockClient(input, httpDeps);
  if (cloud === "vertex") return new (await modules.vertex()).VertexClient(input, httpDeps);
  return chatClient(input, httpDeps);
}

/** What building a model needs from the episode. */
export interface ModelDeps {
  /** Loads the modules of the classes not always needed. */
  modules: ModelModules;
  /** The host's environment variables (keys, base URLs, registry paths). */
  hostEnv: Record<string, string>;
  /** Receives one-line notes (a registry in use, what stands in for a gateway). */
  log: (line: string) => void;
  /** Directory relative paths (scripts, registries) are resolved against. */
  cwd: string;
  /** Process-wide limits every call counts towards. */
  limits?: GlobalLimits;
  /** Receives streamed replies as they arrive (`model.stream`). */
  onStream?: StreamSink;
  /** Random numbers in [0, 1) for `roulette` (default `Math.random`). */
  random?: () => number;
  /**
   * Answer every call from these instead of the class's own endpoint or script (`claudius replay`):
   * the class still decides its config, action format, templates and message shapes.
   */
  clients?: ModelClients;
}

/** The two transports a model class talks through (see {@link ModelDeps.clients}). */
export interface ModelClients {
  /** Answers chat-completion classes. */
  chat: ChatClient;
  /** Answers Responses API classes. */
  responses: ResponsesClient;
}

/**
 * Build the model named by `model.model_class` (`priorCalls`: model calls of the run before this
 * process, where a scripted model's script goes on).
 * @throws {ConfigError} for an unknown class or missing model name / script
 */
export async function makeModel(
  config: Record<string, unknown>,
  costLimit: number,
  deps: ModelDeps,
  priorCalls = 0,
): Promise<Model> {
  const { model_class: cls = DEFAULT_MODEL_CLASS, ...own } = config;
  const spec = MODEL_CLASSES[String(cls)];
  if (!spec) {
    throw new ConfigError(
      `Unknown model.model_class '${cls}' (known: ${Object.keys(MODEL_CLASSES).join(", ")})`,
    );
  }
  if (spec.transport === "meta") {
    const build = (entry: Record<string, unknown>) => makeModel(entry, costLimit, deps);
    return await metaModel(String(cls), spec, own, build, deps.random);
  }
  // Like upstream, the class selector is not part of the model's own config.
  const built = spec.transport === "scripted"
    ? await scriptedClient(String(cls), own, deps, priorCalls)
    : await httpClient(String(cls), spec, own, costLimit, deps);
  if ("model" in built) return built.model;
  const client = deps.limits ? deps.limits.count(built.client) : built.client;
  const pattern = String(built.config.action_regex ?? CHAT_MODEL_KEYS.action_regex.default);
  const regex = spec.format === "text"
    ? compileActionRegex(pattern, await deps.modules.pyregex())
    : undefined;
  const format = spec.format === "text" ? "text" : "toolcall";
  const multimodal = await multimodalRegex(built.config, deps);
  return new ChatModel(built.config, client, format, spec.type, regex, multimodal);
}

type Built = { client: ChatClient; config: Record<string, unknown> } | { model: Model };

/** `model.multimodal_regex` compiled (the regex translator loaded only when a config sets one). */
async function multimodalRegex(
  config: Record<string, unknown>,
  deps: ModelDeps,
): Promise<PyRegex | undefined> {
  const pattern = config.multimodal_regex;
  if (typeof pattern !== "string" || pattern === "") return undefined;
  return compileMultimodalRegex(pattern, await deps.modules.pyregex());
}

async function scriptedClient(
  cls: string,
  own: Record<string, unknown>,
  deps: ModelDeps,
  priorCalls: number,
): Promise<Built> {
  const c = resolveKeys(SCRIPTED_KEYS, own, "model");
  if (deps.clients) return { config: { ...own, ...c }, client: deps.clients.chat };
  const { loadScript, parseScript, ScriptedClient } = await deps.modules.scripted();
  const script = c.script === undefined ? undefined : resolvePath(c.script, deps.cwd);
  const replies = await (async () => {
    if (c.replies !== undefined) return parseScript(c.replies, "model.replies");
    if (script !== undefined) return await loadScript(script);
  })().catch((e: Error) => {
    // A missing or malformed script is the config's fault: exit 2, naming the key.
    const where = c.replies !== undefined ? "model.replies" : `model.script '${script}'`;
    throw new ConfigError(`Cannot load ${where}: ${e.message.replace(/^Cannot load script \S+: /, "")}`);
  });
  if (!replies) throw new ConfigError(`model.model_class '${cls}' needs model.script or model.replies`);
  return {
    config: { ...own, ...c },
    client: new ScriptedClient(replies, { model_name: c.model_name, first: priorCalls }),
  };
}

/** What an HTTP class's client is built from: its resolved keys, and the config the trajectory records. */
async function httpInputs(cls: string, own: Record<string, unknown>, deps: ModelDeps) {
  const c = resolveKeys(OPENAI_KEYS, own, "model", { hostEnv: deps.hostEnv });
  const registry = c.litellm_model_registry || deps.hostEnv.LITELLM_MODEL_REGISTRY_PATH;
  const kwargs = c.model_kwargs as Record<string, unknown>;
  const priced = [c.input_cost_per_token, c.output_cost_per_token, kwargs.input_cost_per_token]
    .some((p) => p !== undefined);
  if (registry && !priced) {
    const from = c.litellm_model_registry ? "model.litellm_model_registry" : "LITELLM_MODEL_REGISTRY_PATH";
    const found = await registryPrices(resolvePath(registry, deps.cwd), from, c.model_name);
    if ("prices" in found) Object.assign(c, found.prices);
    else deps.log(found.note);
  }
  // Upstream's get_model: cache markers for Anthropic-looking names unless the config says otherwise.
  const cacheControl = cacheControlMode(c.model_name, own.set_cache_control);
  // Upstream's OpenRouter classes always talk OpenRouter's dialect (its key, `usage.include`); the name
  // is recorded as configured (upstream's trajectories and preds.json carry it so), prefixed only for the client.
  const config = { ...own, ...c, set_cache_control: cacheControl };
  if (cls.startsWith("openrouter") && !c.model_name.startsWith("openrouter/")) {
    c.model_name = `openrouter/${c.model_name}`;
  }
  return { input: { ...own, ...c }, config };
}

/** The HTTP client's own deps: the environment, the cost limit, the class's gateway, the stream sink. */
function httpDepsOf(spec: ModelClass, costLimit: number, deps: ModelDeps) {
  const gateway = spec.gateway ? GATEWAYS[spec.gateway] : undefined;
  if (gateway) deps.log(gateway.note);
  return {
    env: deps.hostEnv,
    log: deps.log,
    costLimit,
    ...(gateway ? { gateway } : {}),
    ...(deps.onStream ? { onStream: deps.onStream } : {}),
  };
}

/** The client of an HTTP class, as a run builds it (its cost limit checked), for checks before a run. */
export async function newHttpClient(
  cls: string,
  spec: ModelClass,
  own: Record<string, unknown>,
  costLimit: number,
  deps: ModelDeps,
): Promise<HttpChatClient> {
  const { input } = await httpInputs(cls, own, deps);
  const httpDeps = httpDepsOf(spec, costLimit, deps);
  // Anthropic's models speak its Messages API (as litellm sends them), the rest chat completions.
  const client = spec.format === "response"
    ? responsesClient(input, httpDeps)
    : await httpChatClient(input, httpDeps, deps.modules);
  await client.ready();
  return client;
}

async function httpClient(
  cls: string,
  spec: ModelClass,
  own: Record<string, unknown>,
  costLimit: number,
  deps: ModelDeps,
): Promise<Built> {
  const { input, config } = await httpInputs(cls, own, deps);
  if (deps.clients) {
    if (spec.format !== "response") return { client: deps.clients.chat, config };
    const { ResponsesModel } = await deps.modules.responses();
    const multimodal = await multimodalRegex(config, deps);
    return {
      model: new ResponsesModel(config, deps.clients.responses, spec.style ?? "plain", spec.type, multimodal),
    };
  }
  const httpDeps = httpDepsOf(spec, costLimit, deps);
  if (spec.format !== "response") {
    // Anthropic's models speak its Messages API (as litellm sends them), the rest chat completions.
    const chat = await httpChatClient(input, httpDeps, deps.modules);
    await chat.ready();
    return { client: chat, config };
  }
  const http = responsesClient(input, httpDeps);
  await http.ready();
  const { ResponsesModel } = await deps.modules.responses();
  const limits = deps.limits;
  // Counted for the global limits as GlobalLimits.count counts chat calls.
  const counted: ResponsesClient = limits
    ? { respond: (r, s) => http.respond(r, s).then((out) => (limits.add(out.cost), out)) }
    : http;
  const multimodal = await multimodalRegex(config, deps);
  return { model: new ResponsesModel(config, counted, spec.style ?? "plain", spec.type, multimodal) };
}
