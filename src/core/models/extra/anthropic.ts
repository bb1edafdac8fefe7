/**
 * Anthropic's native Messages API (`POST <base>/v1/messages`) over the runtime's `fetch`, as upstream
 * reaches `anthropic/` models through litellm: the conversation and parameters translated as litellm
 * translates them (see `_anthropic_request.ts`, `_anthropic_params.ts`), prompt-cache markers where
 * upstream's `set_cache_control` put them, and the answer saved as litellm returns it, OpenAI-shaped
 * (see `_anthropic_reply.ts`), with cache reads and writes priced at their own rates.
 *
 * @module
 */
import type { ChatClient, ChatRequest, Completion, Json } from "../../types.ts";
import type { ConfigInput } from "../../config/keys.ts";
import type { CostPolicy } from "../_cost.ts";
import type { Endpoint } from "../_presets.ts";
import type { RetryPolicy } from "./_retry.ts";
import { RequestBodies } from "../_body.ts";
import { Transport } from "../_transport.ts";
import type { OPENAI_KEYS } from "../_keys.ts";
import { type ClientRoute, type HttpClientDeps, httpSetup } from "../_http.ts";
import { type AnthropicMessage, anthropicTool, MessageTranslator } from "./_anthropic_request.ts";
import { anthropicParams } from "./_anthropic_params.ts";
import { parseAnthropicBody, readAnthropicStream } from "./_anthropic_reply.ts";
import { completionOf, servedModel } from "../_wire.ts";
import type { EndpointCheck } from "./_probe.ts";

/**
 * Where a base URL's requests go: `<base>/v1/messages`, as litellm appends it, except that a base
 * already ending in `/v1/messages` is used as it is (as litellm does) and one ending in `/v1` (the
 * OpenAI-compatible form, `https://api.anthropic.com/v1`) gets `/messages` only (litellm would send
 * it to `/v1/v1/messages`).
 *
 * @example
 * ```ts
 * import { messagesUrl } from "./anthropic.ts";
 * messagesUrl("https://api.anthropic.com"); // "https://api.anthropic.com/v1/messages"
 * ```
 */
export function messagesUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith("/v1/messages")
    ? path
    : path.endsWith("/v1")
    ? `${path}/messages`
    : `${path}/v1/messages`;
  return url.href;
}

/** The API version litellm sends (`anthropic-version`). */
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * Messages API client, with the chat client's deadline, retries (408/409/429/5xx, Anthropic's 529
 * overloaded included, honouring `Retry-After`; other 4xx fail at once), streaming and cost policy.
 *
 * @example
 * ```ts ignore
 * const client = new AnthropicClient({ model_name: "anthropic/claude-sonnet-4-5" }, { env: Deno.env.toObject(), costLimit: 3 });
 * const { message, cost } = await client.complete({ messages: [{ role: "user", content: "hi" }] });
 * ```
 */
export class AnthropicClient implements ChatClient {
  /** Where requests go: `<endpoint.baseUrl>/v1/messages` (see {@link messagesUrl}). */
  readonly endpoint: Endpoint;
  readonly #url: string;
  /** Fields sent after `model` and `messages`, `tools` aside. */
  readonly #fields: { [key: string]: Json };
  readonly #maxTokens: number;
  readonly #extraBody: { [key: string]: Json };
  readonly #stream: boolean;
  readonly #policy: RetryPolicy;
  readonly #costs: CostPolicy;
  readonly #transport: Transport;
  readonly #translator = new MessageTranslator();
  readonly #bodies = new RequestBodies();
  readonly #auth: { authHint: string; keyFrom: string | undefined };
  readonly #route: ClientRoute | undefined;
  /** The translated tools of the last request (the list is the same every step). */
  #tools: { of: readonly Json[]; as: Json[] } | undefined;

  /**
   * A client for the model named by `input`, its key and endpoint resolved from `deps.env`.
   * @param input the `model:` section
   * @param deps environment, cost limit and injectable effects
   * @throws {ConfigError} for a bad key or value, a parameter Anthropic does not take (without
   *   `drop_params`), or a cost limit that cannot be enforced
   */
  constructor(input: ConfigInput<typeof OPENAI_KEYS>, deps: HttpClientDeps, route?: ClientRoute) {
    const setup = httpSetup(input, deps);
    const { endpoint, kwargs, config } = setup;
    this.endpoint = endpoint;
    this.#url = route
      ? (config.stream ? route.streamUrl ?? route.url : route.url)
      : messagesUrl(endpoint.baseUrl);
    this.#route = route;
    const { fields, maxTokens, dropped } = anthropicParams(kwargs.params, {
      model: endpoint.model,
      dropParams: kwargs.dropParams,
      allowed: kwargs.allowed,
      effort: setup.reasoningEffort,
    });
    if (dropped.length > 0) {
      setup.log(
        `note: drop_params: not sending ${dropped.join(", ")} (Anthropic's Messages API does not take them)`,
      );
    }
    this.#fields = fields;
    this.#maxTokens = maxTokens;
    this.#extraBody = kwargs.extraBody;
    this.#stream = config.stream;
    this.#policy = setup.policy;
    this.#costs = setup.costs;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(kwargs.headers)) headers[name.toLowerCase()] = value;
    // litellm's own headers go over the caller's: the version, and the key as x-api-key (a bearer
    // token from ANTHROPIC_AUTH_TOKEN). An Authorization in extra_headers is sent as given.
    // On another route (Vertex AI) the version goes in the body and the route's credentials replace the key.
    Object.assign(headers, {
      ...(route ? {} : { "anthropic-version": ANTHROPIC_VERSION }),
      accept: "application/json",
      "content-type": "application/json",
      ...route?.headers,
    });
    if (route === undefined && setup.key?.from === "ANTHROPIC_AUTH_TOKEN") {
      headers.authorization ??= `Bearer ${setup.key.value}`;
    } else if (route === undefined && setup.key !== undefined) headers["x-api-key"] = setup.key.value;
    const authHint = route?.authHint ?? setup.authHint;
    this.#transport = new Transport({
      headers,
      timeoutMs: setup.timeoutMs,
      baseUrl: endpoint.baseUrl,
      authHint,
      stream: config.stream ? { sink: deps.onStream, read: readAnthropicStream } : undefined,
      redact: setup.redact,
      log: setup.log,
      ...(route ? { sign: route.sign } : {}),
    });
    this.#auth = { authHint, keyFrom: route?.keyFrom ?? setup.key?.from };
  }

  /** Where the key comes from (a variable's name, `model.model_kwargs.api_key`), or undefined: none. */
  get keyFrom(): string | undefined {
    return this.#auth.keyFrom;
  }

  /**
   * Ask the endpoint for its models (`GET <base>/v1/models`, free), with the key a run would send.
   * @returns what it answered, or what is wrong and what to check
   */
  async probe(signal?: AbortSignal, timeoutMs?: number): Promise<EndpointCheck> {
    const url = this.#url.replace(/\/messages(?=$|\?)/, "/models");
    const target = { transport: this.#transport, endpoint: this.endpoint, url, ...this.#auth };
    const { probeEndpoint } = await import("./_probe.ts");
    return await probeEndpoint(target, signal, timeoutMs);
  }

  /**
   * Decide before the first call whether a cost limit can be enforced (see {@link CostPolicy.ready}).
   * @throws {ConfigError} when a limit is set and no price can be known
   */
  ready(): Promise<void> {
    return this.#costs.ready();
  }

  /**
   * Send one Messages API request, retrying transient failures.
   *
   * @param request OpenAI-shaped messages (already stripped of `extra`) and tools
   * @param signal aborts at once, also between attempts; the rejection is its reason
   * @returns litellm's OpenAI-shaped message and response, and the call's cost
   * @throws {ApiError} on a non-retryable HTTP status or when attempts run out
   * @throws {ConfigError} when the call's cost is unknown and a cost limit is set
   */
  async complete(request: ChatRequest, signal?: AbortSignal): Promise<Completion> {
    const { system, messages } = this.#translator.translate(request.messages);
    const payload: { [key: string]: unknown } = { model: this.endpoint.model, messages };
    if (request.tools !== undefined) payload.tools = this.#toolsOf(request.tools);
    Object.assign(payload, this.#fields);
    if (system.length > 0) payload.system = system;
    payload.max_tokens = this.#maxTokens;
    if (this.#stream) payload.stream = true;
    if (this.#route) {
      delete payload.model;
      Object.assign(payload, this.#route.body);
    }
    Object.assign(payload, this.#extraBody);
    const body = this.#bodies.serialise(payload, messages satisfies AnthropicMessage[]);
    const parsed = await this.#transport.send(this.#url, body, parseAnthropicBody, this.#policy, signal);
    return completionOf(parsed, await this.#costs.cost(parsed.usage, servedModel(parsed.body)));
  }

  #toolsOf(tools: readonly Json[]): Json[] {
    if (this.#tools?.of !== tools) this.#tools = { of: tools, as: tools.map(anthropicTool) };
    return this.#tools.as;
  }
}
