/**
 * What a model class is to the registry (`classes.ts`): its row (recorded type, keys, doc, action
 * format and the loader of its module) and what its module's `createModel` is given. A type-only
 * module: the classes import it without importing the registry.
 *
 * @module
 */
import type { Keys } from "../config/keys.ts";
import type { GlobalLimits } from "../extra/global_limits.ts";
import type { ChatClient, Model, StreamSink } from "../types.ts";
import type { Json } from "../types.ts";
import type { Endpoint } from "./_presets.ts";
import type { ParsedResponse } from "./extra/_responses_body.ts";

/** One model class, as configs name it by `model.model_class`. */
export interface ModelRow {
  /**
   * Recorded as `info.config.model_type`; classes that behave alike share one (a resume or replay
   * picks the first row of the type), so a class that behaves otherwise needs its own.
   */
  type: string;
  /** The `model:` keys the class reads. */
  keys: Keys;
  /** One line for `--help` and the config reference. */
  doc: string;
  /** The README's heading the class is listed under (`HTTP classes`, `scripted`, `meta models`). */
  group: string;
  /** Tool calls or one fenced block (chat completions), or tool calls over the Responses API. */
  format: "toolcall" | "text" | "response";
  /** Responses API: system and user messages as `{role, content}` (litellm) or typed (OpenRouter). */
  style?: "plain" | "typed";
  /** An OpenAI-compatible gateway upstream reaches with its own client (a key of `GATEWAYS`). */
  gateway?: "portkey" | "requesty";
  /** Loads the class's module (a literal `import()`, so `deno compile` embeds it). */
  load: () => Promise<ModelModule>;
}

/** What a class's module exports for the registry. */
export interface ModelModule {
  /**
   * Build the model.
   * @throws {ConfigError} for a config the class cannot run with
   */
  createModel(context: ModelContext): Promise<Model>;
  /** HTTP classes: the client a run would talk through, built as a run builds it (checks before a run). */
  httpClient?(context: ModelContext): Promise<{ client: HttpModelClient }>;
}

/** What a check before a run asks of an HTTP class's client (see `check_endpoint.ts`). */
export interface HttpModelClient {
  /** Where requests go. */
  readonly endpoint: Endpoint;
  /** Where the key comes from (a variable's name, `model.model_kwargs.api_key`), or undefined: none. */
  readonly keyFrom: string | undefined;
  /** Ask the endpoint for its models (`GET`, free), with the key a run would send. */
  probe(signal?: AbortSignal, timeoutMs?: number): Promise<EndpointCheck>;
}

/** What building one model is given. */
export interface ModelContext {
  /** The class name the config gave (`openai`, `litellm_textbased`). */
  name: string;
  /** The class's row. */
  row: ModelRow;
  /** The `model:` section, less `model_class` (like upstream, the selector is not the model's own config). */
  own: Record<string, unknown>;
  /** The agent's cost limit in dollars (0: none); decides what an unknown cost means. */
  costLimit: number;
  /** The episode's deps. */
  deps: ModelDeps;
  /** Model calls of the run before this process, where a scripted model's script goes on. */
  priorCalls: number;
  /** Build a model of the same registry from a config of its own (the meta models' entries). */
  build(config: Record<string, unknown>): Promise<Model>;
}

/** What building a model needs from the episode. */
export interface ModelDeps {
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
  /** The wall clock in milliseconds, for the messages' timestamps (default `Date.now`). */
  now?: () => number;
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

/** The transport: one stateless Responses API call (the HTTP client implements it). */
export interface ResponsesClient {
  /** Send one request (the whole input, the tools) and parse the response and its cost. */
  respond(
    request: { input: readonly InputItem[]; tools: Json[] },
    signal?: AbortSignal,
  ): Promise<ParsedResponse & { cost: number }>;
}

/** One input item of a request (a message, or an earlier response's output item), sent as JSON. */
export type InputItem = Readonly<Record<string, unknown>>;

/** What an endpoint said to `GET <base>/models`. */
export interface EndpointCheck {
  /** What was asked. */
  url: string;
  /** `ok`: it answered with its models; `warning`: it answered, not as expected; `error`: a run would fail. */
  level: "ok" | "warning" | "error";
  /** One line: what it answered, or what is wrong and what to check. */
  text: string;
  /** Where the key sent came from (a variable's name, `model.model_kwargs.api_key`), or undefined. */
  keyFrom: string | undefined;
}
