/**
 * One OpenAI-compatible chat-completions client over the runtime's `fetch`. Every provider is a base
 * URL (see the presets); there are no SDKs.
 *
 * @module
 */
import type { InputItem } from "./model_class.ts";
import type { ChatClient, ChatRequest, Completion, Json } from "../types.ts";
import type { CostPolicy } from "./_cost.ts";
import { type Endpoint, routeUrl } from "./_presets.ts";
import type { RetryPolicy } from "./extra/_retry.ts";
import { completionOf, parseCompletionBody, servedModel } from "./_wire.ts";
import { RequestBodies } from "./_body.ts";
import { Transport } from "./_transport.ts";
import type { OPENAI_KEYS } from "./_keys.ts";
import type { ConfigInput } from "../config/keys.ts";
import { type ClientRoute, type HttpClientDeps, httpSetup } from "./_http.ts";
import { ANY_PARAMS, chatParams, openaiRules } from "./_kwargs.ts";
import type { EndpointCheck } from "./extra/_probe.ts";
import { isPlainObject } from "../../lib/json.ts";
import type { ParsedResponse } from "./extra/_responses_body.ts";

/** What the client needs from the outside world (see {@link HttpClientDeps}). */
export type OpenAIClientDeps = HttpClientDeps;

/**
 * Chat-completions client for any OpenAI-compatible endpoint, with a per-request deadline, retries on
 * 408/409/429/5xx, network errors, missed deadlines, bodies that are not JSON and provider errors sent
 * with a 200 (never on other 4xx, never on a served completion, whatever its shape), and a cost
 * policy decided before the first call when it can be.
 *
 * @example
 * ```ts ignore
 * const client = new OpenAIClient({ model_name: "openai/gpt-4o" }, { env: Deno.env.toObject(), costLimit: 3 });
 * const { message, cost } = await client.complete({ messages: [{ role: "user", content: "hi" }] });
 * ```
 */
export class OpenAIClient implements ChatClient {
  /** Where requests go: `<endpoint.baseUrl>/chat/completions`, before any query string. */
  readonly endpoint: Endpoint;
  #url: string;
  #responsesUrl: string;
  #body: { [key: string]: Json };
  /** `model_kwargs` as the Responses API gets them: without the preset's chat-only fields. */
  #responseKwargs: { [key: string]: Json };
  #policy: RetryPolicy;
  #costs: CostPolicy;
  #bodies = new RequestBodies();
  #transport: Transport;
  /** `model.stream` is on: ask for a streamed reply. */
  #stream: boolean;
  #auth: { authHint: string; keyFrom: string | undefined };

  /**
   * A client for the model named by `input`, its key and endpoint resolved from `deps.env`.
   * @param config the `model:` section (see {@link OpenAIClientConfig})
   * @param deps environment, cost limit and injectable effects
   * @throws {ConfigError} for a bad key or value, a parameter the model does not take (without
   *   `drop_params`), or a cost limit that cannot be enforced (no prices and a provider known not to
   *   report cost)
   */
  constructor(input: ConfigInput<typeof OPENAI_KEYS>, deps: OpenAIClientDeps, route?: ClientRoute) {
    const setup = httpSetup(input, deps);
    const { endpoint, kwargs, config } = setup;
    this.endpoint = endpoint;
    this.#url = route?.url ?? endpoint.routes?.chat ?? routeUrl(endpoint.baseUrl, "/chat/completions");
    this.#responsesUrl = endpoint.routes?.responses ?? routeUrl(endpoint.baseUrl, "/responses");

    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    for (const [name, value] of Object.entries(kwargs.headers)) headers[name.toLowerCase()] = value;
    // litellm lets extra_headers win: an Authorization given there is not replaced by the key's. Azure's
    // key goes in api-key (an AZURE_AD_TOKEN as a bearer token).
    const keyHeader = endpoint.keyHeader;
    if (route) Object.assign(headers, route.headers);
    else if (setup.key !== undefined && keyHeader && !keyHeader.bearerEnv.includes(setup.key.from)) {
      headers[keyHeader.name] ??= setup.key.value;
    } else if (setup.key !== undefined && headers.authorization === undefined) {
      headers.authorization = `Bearer ${setup.key.value}`;
    }
    if (deps.gateway) setup.addSecrets(deps.gateway.addHeaders(headers, deps.env, input, endpoint.baseUrl));

    const rules = endpoint.provider === "openai" ? openaiRules(endpoint.model) : ANY_PARAMS;
    const own = { ...kwargs.params };
    if (setup.reasoningEffort === null) delete own.reasoning_effort;
    else if (setup.reasoningEffort !== undefined) own.reasoning_effort = setup.reasoningEffort;
    const { params, dropped } = chatParams({ ...kwargs, params: own }, rules);
    if (dropped.length > 0) {
      setup.log(`note: drop_params: not sending ${dropped.join(", ")} (${rules.target} does not take them)`);
    }
    this.#body = { ...endpoint.body, ...params, ...kwargs.extraBody };
    this.#responseKwargs = { ...responsesParams(own), ...kwargs.extraBody };
    this.#policy = setup.policy;
    this.#stream = config.stream;
    const authHint = route?.authHint ?? setup.authHint;
    this.#transport = new Transport({
      headers,
      timeoutMs: setup.timeoutMs,
      baseUrl: endpoint.baseUrl,
      authHint,
      stream: config.stream ? { sink: deps.onStream } : undefined,
      redact: setup.redact,
      log: setup.log,
      ...(route ? { sign: route.sign } : {}),
    });
    this.#costs = setup.costs;
    this.#auth = { authHint, keyFrom: route?.keyFrom ?? setup.key?.from };
  }

  /** Where the key comes from (a variable's name, `model.model_kwargs.api_key`), or undefined: none. */
  get keyFrom(): string | undefined {
    return this.#auth.keyFrom;
  }

  /**
   * Ask the endpoint for its models (`GET <base>/models`, free), with the key a run would send.
   * @returns what it answered, or what is wrong and what to check
   */
  async probe(signal?: AbortSignal, timeoutMs?: number): Promise<EndpointCheck> {
    const url = this.endpoint.routes?.models ?? routeUrl(this.endpoint.baseUrl, "/models");
    const target = {
      transport: this.#transport,
      endpoint: this.endpoint,
      url,
      ...this.#auth,
      ...(this.endpoint.routes?.models ? { unrelatedList: true } : {}),
    };
    const { probeEndpoint } = await import("./extra/_probe.ts");
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
   * Send one chat-completions request, retrying transient failures.
   *
   * @param request messages (already stripped of `extra`) and tools
   * @param signal aborts at once, also between attempts; the rejection is its reason
   * @returns the parsed completion with its cost and the raw body
   * @throws {ApiError} on a non-retryable HTTP status or when attempts run out
   * @throws {ConfigError} when the call's cost is unknown and a cost limit is set
   */
  async complete(request: ChatRequest, signal?: AbortSignal): Promise<Completion> {
    const payload: { [key: string]: unknown } = { model: this.endpoint.model, messages: request.messages };
    if (request.tools !== undefined) payload.tools = request.tools;
    if (this.#stream) Object.assign(payload, { stream: true, stream_options: { include_usage: true } });
    const body = this.#bodies.serialise({ ...payload, ...this.#body }, request.messages);
    const parsed = await this.#transport.send(this.#url, body, parseCompletionBody, this.#policy, signal);
    return completionOf(parsed, await this.#costs.cost(parsed.usage, servedModel(parsed.body)));
  }

  /**
   * Send one Responses API request (`POST /responses`), stateless: `input` carries the whole
   * conversation, `model_kwargs` are merged in, and the call's cost is worked out as for chat.
   *
   * @param request the input items and tools
   * @param signal aborts at once, also between attempts
   * @returns the parsed response and its cost
   * @throws {ApiError} on a non-retryable HTTP status or when attempts run out
   * @throws {ConfigError} when the call's cost is unknown and a cost limit is set
   */
  async respond(
    request: { input: readonly InputItem[]; tools: Json[] },
    signal?: AbortSignal,
  ): Promise<ParsedResponse & { cost: number }> {
    const payload = {
      model: this.endpoint.model,
      input: request.input,
      tools: request.tools,
      ...this.#responseKwargs,
    };
    const body = this.#bodies.serialise(payload, request.input, "input");
    const { parseResponsesBody } = await import("./extra/_responses_body.ts");
    const parse = (text: string | Json) =>
      parseResponsesBody(typeof text === "string" ? text : JSON.stringify(text));
    const parsed = await this.#transport.send(this.#responsesUrl, body, parse, this.#policy, signal);
    return { ...parsed, cost: await this.#costs.cost(parsed.usage, servedModel(parsed.body)) };
  }
}

/**
 * The parameters as the Responses API takes them: `reasoning_effort` becomes `reasoning: {effort}`
 * (merged into a `reasoning` given too, whose own `effort` wins), as litellm sends it.
 */
function responsesParams(params: { [key: string]: Json }): { [key: string]: Json } {
  const { reasoning_effort: effort, ...rest } = params;
  if (effort === undefined || effort === null) return rest;
  const reasoning = isPlainObject(rest.reasoning) ? rest.reasoning : {};
  return { ...rest, reasoning: { effort, ...reasoning } };
}
