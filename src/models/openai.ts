/**
 * One OpenAI-compatible chat-completions client over the runtime's `fetch`. Every provider is a base
 * URL (see the presets); there are no SDKs.
 *
 * @module
 */
import { ApiError, ConfigError } from "../errors.ts";
import type { ChatClient, ChatRequest, Completion, Json } from "../types.ts";
import type { Prices } from "./_cost.ts";
import { CostPolicy } from "./_cost_policy.ts";
import { type Endpoint, resolveEndpoint, routeUrl } from "./_presets.ts";
import {
  abortableSleep,
  MAX_TIMER_MS,
  parseRetryAfter,
  retry,
  type RetryPolicy,
  TransientError,
} from "./_retry.ts";
import {
  isObject,
  MalformedBodyError,
  oneLine,
  parseCompletionBody,
  type ParsedBody,
  type ParsedResponse,
  parseResponsesBody,
  ProviderErrorBody,
} from "./_wire.ts";
import { RequestBodies } from "./_body.ts";
import { readCompletionStream, type StreamSink } from "./_stream.ts";
import { type ConfigInput, type ConfigOf, defineKeys, resolveKeys } from "../config_keys.ts";
import type { Gateway } from "./_gateways.ts";

/** Deadline of one request attempt when neither `request_timeout` nor `model_kwargs.timeout` is set. */
export const DEFAULT_REQUEST_TIMEOUT = 600;

/** The `model:` keys the HTTP client reads. */
export const OPENAI_KEYS = defineKeys({
  model_name: {
    type: "string",
    required: "pass -m MODEL or set model.model_name",
    envVar: "MSWEA_MODEL_NAME",
    check: (v) => (v === "" ? "must not be empty" : undefined),
    doc: "Model id, optionally with a provider prefix that picks `base_url` and `api_key_env` when they " +
      "are unset (see Providers below); a known prefix is stripped before sending.",
  },
  model_kwargs: {
    type: "object",
    default: {},
    doc: "Merged into the request body (`temperature`, `max_tokens`, `reasoning_effort`, ...). Handled " +
      "here rather than sent: `api_base`/`base_url`, `timeout`/`request_timeout` (the deadline), " +
      "`extra_headers`, `extra_body` (merged into the body), `input_cost_per_token`/`output_cost_per_token`. " +
      "litellm-only keys (`drop_params`, `num_retries`, `caching`, ...) are dropped with a warning; " +
      "`api_key` is refused (use `api_key_env`).",
  },
  base_url: {
    type: "string",
    defaultDoc: "from the prefix",
    check: (v) => (v === "" ? "must not be empty" : undefined),
    doc: "OpenAI-compatible endpoint; requests go to `<base_url>/chat/completions` (the path goes before " +
      "a query string: `https://gw.example/v1?api-version=1` works).",
  },
  api_key_env: {
    type: "string",
    defaultDoc: "from the prefix",
    check: (v) => (v === "" ? "must not be empty" : undefined),
    doc: "Name of the variable holding the API key; no `Authorization` header when it is unset or empty.",
  },
  request_timeout: {
    type: "number",
    min: 0,
    defaultDoc: `\`model_kwargs.timeout\`, else ${DEFAULT_REQUEST_TIMEOUT}`,
    doc: "Deadline of one request attempt, seconds; 0 = none (also for `model_kwargs.timeout`).",
  },
  retry_attempts: {
    type: "int",
    default: 10,
    min: 1,
    envVar: "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT",
    doc: "Attempts per query, the first included; retried: 408, 409, 429, 5xx, network errors, missed " +
      "deadlines, bodies that are not JSON, provider errors in a 200 body (unless their code is a 4xx); " +
      "never 400/401/403/404, never a served completion (an odd shape is a format error).",
  },
  retry_base_delay: {
    type: "number",
    default: 1,
    min: 0,
    doc: "First backoff, seconds (doubles, full jitter); `retry-after-ms`, else `Retry-After`, is honoured.",
  },
  retry_max_delay: {
    type: "number",
    default: 60,
    min: 0,
    doc: "Longest wait between attempts (also caps `retry-after-ms` and `Retry-After`), seconds.",
  },
  input_cost_per_token: {
    type: "number",
    min: 0,
    doc: "Dollars per prompt token, used when the provider reports no cost; configured prices win over " +
      "the price database (see Providers and cost).",
  },
  output_cost_per_token: { type: "number", min: 0, doc: "Dollars per completion token." },
  cache_read_input_token_cost: {
    type: "number",
    min: 0,
    defaultDoc: "`input_cost_per_token`",
    doc: "Dollars per prompt token read from the provider's cache.",
  },
  cache_creation_input_token_cost: {
    type: "number",
    min: 0,
    defaultDoc: "`input_cost_per_token`",
    doc: "Dollars per prompt token written to the provider's cache.",
  },
  stream: {
    type: "bool",
    default: false,
    doc: "Ask for a streamed reply (`stream: true`) and show it as it arrives at a terminal; the saved " +
      "message and response are those of a non-streamed request. Off: the request bytes stay upstream's.",
  },
  cost_tracking: {
    type: "string",
    default: "default",
    values: ["default", "ignore_errors"],
    envVar: "MSWEA_COST_TRACKING",
    doc: "`ignore_errors`: an unknown cost is 0, with no warning and no stop at a cost limit.",
  },
});

/** The resolved `model:` keys of the HTTP client. */
export type OpenAIClientConfig = ConfigOf<typeof OPENAI_KEYS>;

/** What the client needs from the outside world. */
export interface OpenAIClientDeps {
  /** Environment variables (the API key is read from here once, at construction). */
  env: Readonly<Record<string, string | undefined>>;
  /** The agent's cost limit in dollars (0 = none); decides what an unknown cost means. */
  costLimit: number;
  /** Waits between attempts. Default: a timer that the abort signal cuts short. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Receives warnings and one line per retry. Default: `console.error`. */
  log?: (line: string) => void;
  /** Jitter source in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** An OpenAI-compatible gateway (upstream's `portkey`, `requesty`): its URL and headers. */
  gateway?: Gateway;
  /** Receives a streamed reply as it arrives (`model.stream`). */
  onStream?: StreamSink;
}

const DROPPED = [
  "drop_params",
  "num_retries",
  "max_retries",
  "custom_llm_provider",
  "caching",
  "cache",
  "metadata",
  "mock_response",
  "fallbacks",
  "api_version",
  "stream",
];
const HANDLED = [
  "api_base",
  "base_url",
  "timeout",
  "request_timeout",
  "extra_headers",
  "extra_body",
  "input_cost_per_token",
  "output_cost_per_token",
];
const NO_RETRY_HINT: Record<number, string> = {
  404: " (check model.model_name and model.base_url)",
  422: " (check model.model_kwargs)",
};

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
  #key: string;
  #secrets: string[] = [];
  #keyEnv: string | undefined;
  #headers: Record<string, string>;
  #body: { [key: string]: Json };
  /** `model_kwargs` as sent: the Responses API gets these without the preset's chat-only fields. */
  #kwargs: { [key: string]: Json };
  #timeoutMs: number;
  #policy: RetryPolicy;
  #costs: CostPolicy;
  #bodies = new RequestBodies();
  /** The endpoint answered 411: bodies go whole (with a Content-Length), not streamed. */
  #lengthRequired = false;
  #stream: { sink: StreamSink | undefined } | undefined;

  /**
   * @param config the `model:` section (see {@link OpenAIClientConfig})
   * @param deps environment, cost limit and injectable effects
   * @throws {ConfigError} for a bad key or value, an `api_key` in `model_kwargs`, or a cost limit that
   *   cannot be enforced (no prices and a provider known not to report cost)
   */
  constructor(input: ConfigInput<typeof OPENAI_KEYS>, deps: OpenAIClientDeps) {
    const log = deps.log ?? ((line: string) => console.error(line));
    const config = resolveKeys(OPENAI_KEYS, input, "model", { hostEnv: deps.env });
    const kwargs = { ...config.model_kwargs };
    for (const key of ["api_key", "model", "messages"]) {
      if (key in kwargs) {
        const hint = key === "api_key"
          ? "never put a key in a config (it would land in the trajectory); set model.api_key_env to the name " +
            "of the environment variable that holds it"
          : "it is set by claudius";
        throw new ConfigError(`Cannot configure model: model.model_kwargs.${key} is not allowed: ${hint}`);
      }
    }
    const dropped = DROPPED.filter((key) => key in kwargs);
    if (dropped.length > 0) {
      log(`warning: ignoring litellm-only model.model_kwargs keys: ${dropped.join(", ")}`);
    }
    const kwargUrl = str("model_kwargs.api_base", kwargs.api_base) ??
      str("model_kwargs.base_url", kwargs.base_url);
    const gateway = deps.gateway;
    this.endpoint = gateway
      ? gateway.endpoint(config.model_name, config.base_url ?? kwargUrl, config.api_key_env)
      : resolveEndpoint(config.model_name, config.base_url ?? kwargUrl, config.api_key_env);
    this.#url = routeUrl(this.endpoint.baseUrl, "/chat/completions");
    this.#responsesUrl = routeUrl(this.endpoint.baseUrl, "/responses");
    this.#keyEnv = this.endpoint.apiKeyEnv;
    this.#key = this.#keyEnv === undefined ? "" : deps.env[this.#keyEnv] ?? "";

    this.#headers = { "content-type": "application/json", accept: "application/json" };
    const extraHeaders = kwargs.extra_headers;
    if (extraHeaders !== undefined) {
      if (!isObject(extraHeaders) || !Object.values(extraHeaders).every((v) => typeof v === "string")) {
        throw new ConfigError(
          "Cannot configure model: model.model_kwargs.extra_headers must map names to strings",
        );
      }
      for (const [name, value] of Object.entries(extraHeaders)) {
        this.#headers[name.toLowerCase()] = String(value);
      }
    }
    if (this.#key !== "") this.#headers.authorization = `Bearer ${this.#key}`;
    if (gateway) this.#secrets = gateway.addHeaders(this.#headers, deps.env, input, this.endpoint.baseUrl);
    const extraBody = kwargs.extra_body ?? {};
    if (!isObject(extraBody)) {
      throw new ConfigError("Cannot configure model: model.model_kwargs.extra_body must be a mapping");
    }
    const sent = Object.entries(kwargs).filter(([key]) => !DROPPED.includes(key) && !HANDLED.includes(key));
    this.#kwargs = { ...Object.fromEntries(sent), ...extraBody };
    this.#body = { ...this.endpoint.body, ...this.#kwargs };

    const kwargTimeout = num("model_kwargs.timeout", kwargs.timeout) ??
      num("model_kwargs.request_timeout", kwargs.request_timeout);
    this.#timeoutMs = 1000 * (config.request_timeout ?? kwargTimeout ?? DEFAULT_REQUEST_TIMEOUT);
    this.#policy = {
      attempts: config.retry_attempts,
      baseDelayMs: 1000 * config.retry_base_delay,
      maxDelayMs: 1000 * config.retry_max_delay,
      sleep: deps.sleep ?? abortableSleep,
      random: deps.random ?? Math.random,
      log: (line) => log(this.#redact(line)),
    };

    if (config.stream) this.#stream = { sink: deps.onStream };
    this.#costs = new CostPolicy({
      prices: prices(config, kwargs),
      endpoint: this.endpoint,
      costLimit: deps.costLimit > 0 ? deps.costLimit : 0,
      ignoreErrors: config.cost_tracking === "ignore_errors",
      log: this.#policy.log,
    });
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
    const url = this.#url;
    const parse = (text: string | Json): ParsedBody => parseCompletionBody(text);
    const parsed = await retry(url, () => this.#attempt(url, body, parse, signal), this.#policy, signal);
    const cost = await this.#costs.cost(parsed.usage);
    const { message, finish_reason, body: response, problem } = parsed;
    return { message, finish_reason, cost, response, ...(problem !== undefined ? { problem } : {}) };
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
    request: { input: readonly Json[]; tools: Json[] },
    signal?: AbortSignal,
  ): Promise<ParsedResponse & { cost: number }> {
    const payload = {
      model: this.endpoint.model,
      input: request.input,
      tools: request.tools,
      ...this.#kwargs,
    };
    const body = this.#bodies.serialise(payload, request.input as object[], "input");
    const url = this.#responsesUrl;
    const parse = (text: string | Json) =>
      parseResponsesBody(typeof text === "string" ? text : JSON.stringify(text));
    const parsed = await retry(url, () => this.#attempt(url, body, parse, signal), this.#policy, signal);
    return { ...parsed, cost: await this.#costs.cost(parsed.usage) };
  }

  async #attempt<T>(
    url: string,
    body: string | Uint8Array[],
    parse: (text: string | Json) => T,
    signal?: AbortSignal,
    redirected = false,
  ): Promise<T> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = this.#timeoutMs > 0
      ? setTimeout(() => controller.abort(), Math.min(this.#timeoutMs, MAX_TIMER_MS))
      : undefined;
    let status = 0, headers: Headers, text: string | Json;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: this.#headers,
        body: typeof body === "string" ? body : this.#lengthRequired ? joined(body) : streamOf(body),
        signal: controller.signal,
        redirect: "manual",
      });
      status = response.status;
      headers = response.headers;
      const received = cappedBody(response, url);
      text = this.#stream && response.ok && headers.get("content-type")?.startsWith("text/event-stream")
        ? await readCompletionStream(received, this.#stream.sink)
        : await new Response(received).text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof ApiError) throw error;
      if (error instanceof MalformedBodyError) throw new TransientError(this.#redact(error.message), status);
      if (controller.signal.aborted) {
        throw new TransientError(
          `no complete response within ${this.#timeoutMs / 1000} s (model.request_timeout)`,
        );
      }
      // fetch says "fetch failed"; the cause says why (refused, reset, closed before the answer...).
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const message = (cause instanceof Error ? cause.message : String(cause))
        .replace(/^error sending request .*?: (?=client error)/, "");
      throw new TransientError(`network error: ${this.#redact(oneLine(message))}`, 0, undefined, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    if (status === 411 && typeof body !== "string" && !this.#lengthRequired) {
      // A server that wants a Content-Length: send whole bodies from now on (more memory, same bytes).
      this.#lengthRequired = true;
      this.#policy.log(`note: ${this.endpoint.baseUrl} wants a Content-Length; sending whole request bodies`);
      return await this.#attempt(url, body, parse, signal, redirected);
    }
    if (status >= 300 && status <= 399) {
      const target = redirectTarget(url, status, headers.get("location"), redirected);
      return await this.#attempt(target, body, parse, signal, true);
    }
    if (status < 200 || status > 299) throw this.#statusError(url, status, headers, String(text));
    try {
      return parse(text);
    } catch (error) {
      // Not JSON, or the provider's error object: nothing was served, so another attempt buys nothing twice.
      if (error instanceof MalformedBodyError) throw new TransientError(this.#redact(error.message), status);
      if (error instanceof ProviderErrorBody) {
        const code = error.code;
        const what = this.#redact(error.message);
        if (code === undefined || code === 408 || code === 409 || code === 429 || code >= 500) {
          throw new TransientError(what, code ?? status);
        }
        throw new ApiError(`Cannot query model: ${what} (code ${code})${NO_RETRY_HINT[code] ?? ""}`, code);
      }
      throw error;
    }
  }

  #statusError(url: string, status: number, headers: Headers, text: string): Error {
    const detail = this.#redact(providerMessage(text));
    const what = `HTTP ${status} from ${url}${detail === "" ? "" : `: ${detail}`}`;
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      return new TransientError(what, status, parseRetryAfter(headers));
    }
    if (status === 401 || status === 403) {
      const hint = this.#keyEnv === undefined
        ? "set model.api_key_env to the name of the variable holding the API key"
        : `${this.#key === "" ? "set" : "check"} ${this.#keyEnv}`;
      return new ApiError(
        `Cannot query model: HTTP ${status} from ${this.endpoint.baseUrl} (${hint})${
          detail === "" ? "" : `: ${detail}`
        }`,
        status,
      );
    }
    return new ApiError(`Cannot query model: ${what}${NO_RETRY_HINT[status] ?? ""}`, status);
  }

  #redact(text: string): string {
    for (const secret of this.#key.length >= 4 ? [this.#key, ...this.#secrets] : this.#secrets) {
      text = text.replaceAll(secret, "[REDACTED]");
    }
    return text;
  }
}

/**
 * Where a redirect may be followed: a 307 or 308 to the same origin, once (the caller resends the
 * body whole, as a stream cannot be redelivered). Anything else fails at once: a POST cannot follow
 * 301/302/303, and neither the key nor the conversation goes to a host the config does not name.
 *
 * @throws {ApiError} naming the new location and the `base_url` to set
 */
function redirectTarget(url: string, status: number, location: string | null, again: boolean): string {
  const target = location === null ? null : URL.parse(location, url);
  if (target === null) {
    throw new ApiError(`Cannot query model: HTTP ${status} from ${url} with no redirect to follow`, status);
  }
  const why = again
    ? "redirected again"
    : status !== 307 && status !== 308
    ? "a POST cannot follow it"
    : target.origin !== new URL(url).origin
    ? "another origin: the key and the conversation stay with the configured one"
    : undefined;
  if (why === undefined) return target.href;
  const path = target.pathname.replace(/\/(?:chat\/completions|responses)\/?$/, "");
  throw new ApiError(
    `Cannot query model: HTTP ${status} from ${url} redirects to ${target.href} (${why}); ` +
      `set model.base_url to ${target.origin}${path}${target.search}`,
    status,
  );
}

/** The most bytes of one response body read (64 MiB): a longer one fails the query. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The body, failing with an {@link ApiError} (not retried: the answer may have been paid for) once it
 * says or proves itself longer than {@link MAX_RESPONSE_BYTES}, before it is all held in memory.
 */
function cappedBody(response: Response, url: string): ReadableStream<Uint8Array> {
  const tooLarge = (size: string) =>
    new ApiError(
      `Cannot query model: the response body from ${url} is ${size} bytes, over the ${
        MAX_RESPONSE_BYTES / 2 ** 20
      } MiB cap (not retried: it may have been paid for)`,
      response.status,
    );
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > MAX_RESPONSE_BYTES) {
    response.body?.cancel().catch(() => {});
    throw tooLarge(String(declared));
  }
  let read = 0;
  const empty = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  return (response.body ?? empty).pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) controller.error(tooLarge(`at least ${read}`));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** The chunks as one buffer. */
function joined(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * A request body streamed from its chunks, so no contiguous copy of a multi-megabyte history is made
 * per request (on HTTP/1.1 it goes chunked; a server that answers 411 gets whole bodies instead).
 */
function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

/** The provider's error text: `error.message`, `message`, `detail`, or the raw body, on one line. */
function providerMessage(text: string): string {
  let data: Json;
  try {
    data = JSON.parse(text);
  } catch {
    return oneLine(text);
  }
  if (isObject(data)) {
    const error = data.error;
    for (const candidate of [isObject(error) ? error.message : error, data.message, data.detail]) {
      if (typeof candidate === "string") return oneLine(candidate);
    }
  }
  return oneLine(text);
}

function prices(config: OpenAIClientConfig, kwargs: { [key: string]: Json }): Prices | undefined {
  const input = config.input_cost_per_token ??
    num("model_kwargs.input_cost_per_token", kwargs.input_cost_per_token);
  const output = config.output_cost_per_token ??
    num("model_kwargs.output_cost_per_token", kwargs.output_cost_per_token);
  const cached = config.cache_read_input_token_cost;
  const written = config.cache_creation_input_token_cost;
  if (input === undefined && output === undefined) return undefined;
  if (input === undefined || output === undefined) {
    throw new ConfigError(
      "Cannot configure model: set both model.input_cost_per_token and model.output_cost_per_token",
    );
  }
  const prices: Prices = { input_cost_per_token: input, output_cost_per_token: output };
  if (cached !== undefined) prices.cache_read_input_token_cost = cached;
  if (written !== undefined) prices.cache_creation_input_token_cost = written;
  return prices;
}

function num(key: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ConfigError(
      `Cannot configure model: model.${key} must be a number >= 0, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function str(key: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value === "") {
    throw new ConfigError(`Cannot configure model: model.${key} must be a non-empty string`);
  }
  return value;
}
