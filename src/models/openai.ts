/**
 * One OpenAI-compatible chat-completions client over the runtime's `fetch`. Every provider is a base
 * URL (see the presets); there are no SDKs.
 *
 * @module
 */
import { ApiError, ConfigError } from "../errors.ts";
import type { ChatClient, ChatRequest, Completion, Json } from "../types.ts";
import { callCost, type Prices } from "./_cost.ts";
import { type Endpoint, resolveEndpoint } from "./_presets.ts";
import { abortableSleep, parseRetryAfter, retry, type RetryPolicy, TransientError } from "./_retry.ts";
import { isObject, MalformedBodyError, oneLine, parseCompletionBody } from "./_wire.ts";
import { RequestBodies } from "./_body.ts";

/** The `model:` keys the HTTP client reads. Every field but `model_name` is optional. */
export interface OpenAIClientConfig {
  /**
   * Model name, optionally with a provider prefix that picks `base_url` and `api_key_env` when they are
   * unset: `openai/`, `openrouter/`, `deepseek/`, `moonshot/`, `anthropic/`, `gemini/`, `groq/`, `xai/`,
   * `hosted_vllm/` or `vllm/` (127.0.0.1:8000), `ollama/` (127.0.0.1:11434), `llamacpp/` (127.0.0.1:8080),
   * `lm_studio/` (127.0.0.1:1234). A known prefix is stripped before sending. No prefix and no
   * `base_url` means OpenAI.
   */
  model_name: string;
  /**
   * Merged into the request body: `{model, messages, tools, ...model_kwargs}`. Handled here rather than
   * sent: `api_base`/`base_url` (base URL), `timeout`/`request_timeout` (deadline, seconds),
   * `extra_headers` (added to the request headers), `extra_body` (merged into the body),
   * `input_cost_per_token`/`output_cost_per_token` (prices). Dropped with a warning (litellm-only):
   * `drop_params`, `num_retries`, `max_retries`, `custom_llm_provider`, `caching`, `cache`, `metadata`,
   * `mock_response`, `fallbacks`, `api_version`, `stream`. Rejected: `api_key` (use `api_key_env`),
   * `model`, `messages`. Default `{}`.
   */
  model_kwargs?: { [key: string]: Json };
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1`. Default: from the model-name prefix. */
  base_url?: string;
  /**
   * Name of the environment variable holding the API key. Default: from the prefix (`OPENAI_API_KEY`,
   * ...); none for local servers. No `Authorization` header is sent when the variable is unset or empty.
   */
  api_key_env?: string;
  /** Deadline of one request attempt, in seconds. Default 600 (or `model_kwargs.timeout`). */
  request_timeout?: number;
  /** Total attempts per query, the first included. Default 10. */
  retry_attempts?: number;
  /** Base of the exponential backoff, in seconds. Default 1. */
  retry_base_delay?: number;
  /** Longest wait between attempts (also caps `Retry-After`), in seconds. Default 60. */
  retry_max_delay?: number;
  /** Dollars per prompt token. Default: unset (the provider's `usage.cost` is used when reported). */
  input_cost_per_token?: number;
  /** Dollars per completion token. Default: unset. */
  output_cost_per_token?: number;
  /** Dollars per cached prompt token. Default: `input_cost_per_token`. */
  cache_read_input_token_cost?: number;
  /** `ignore_errors` counts an unknown cost as 0 without warning or failing. Default `default`. */
  cost_tracking?: "default" | "ignore_errors";
}

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
 * 408/409/429/5xx, network errors, missed deadlines and malformed bodies (never on other 4xx), and a
 * cost policy decided before the first call when it can be.
 *
 * @example
 * ```ts ignore
 * const client = new OpenAIClient({ model_name: "openai/gpt-4o" }, { env: Deno.env.toObject(), costLimit: 3 });
 * const { message, cost } = await client.complete({ messages: [{ role: "user", content: "hi" }] });
 * ```
 */
export class OpenAIClient implements ChatClient {
  /** Where requests go: `${endpoint.baseUrl}/chat/completions`. */
  readonly endpoint: Endpoint;
  #url: string;
  #key: string;
  #keyEnv: string | undefined;
  #headers: Record<string, string>;
  #body: { [key: string]: Json };
  #timeoutMs: number;
  #policy: RetryPolicy;
  #prices: Prices | undefined;
  #ignoreCostErrors: boolean;
  #costLimit: number;
  #warnedCost = false;
  #bodies = new RequestBodies();

  /**
   * @param config the `model:` section (see {@link OpenAIClientConfig})
   * @param deps environment, cost limit and injectable effects
   * @throws {ConfigError} for a bad key or value, an `api_key` in `model_kwargs`, or a cost limit that
   *   cannot be enforced (no prices and a provider known not to report cost)
   */
  constructor(config: OpenAIClientConfig, deps: OpenAIClientDeps) {
    const log = deps.log ?? ((line: string) => console.error(line));
    if (typeof config.model_name !== "string" || config.model_name === "") {
      throw new ConfigError("Cannot configure model: model.model_name must be a non-empty string");
    }
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
    const baseUrl = str("base_url", config.base_url) ?? kwargUrl;
    this.endpoint = resolveEndpoint(config.model_name, baseUrl, str("api_key_env", config.api_key_env));
    this.#url = `${this.endpoint.baseUrl}/chat/completions`;
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
    const extraBody = kwargs.extra_body ?? {};
    if (!isObject(extraBody)) {
      throw new ConfigError("Cannot configure model: model.model_kwargs.extra_body must be a mapping");
    }
    const sent = Object.entries(kwargs).filter(([key]) => !DROPPED.includes(key) && !HANDLED.includes(key));
    this.#body = { ...this.endpoint.body, ...Object.fromEntries(sent), ...extraBody };

    const kwargTimeout = num("model_kwargs.timeout", kwargs.timeout) ??
      num("model_kwargs.request_timeout", kwargs.request_timeout);
    this.#timeoutMs = 1000 * (num("request_timeout", config.request_timeout) ?? kwargTimeout ?? 600);
    const attempts = num("retry_attempts", config.retry_attempts) ?? 10;
    if (!Number.isInteger(attempts) || attempts < 1) {
      throw new ConfigError("Cannot configure model: model.retry_attempts must be an integer >= 1");
    }
    this.#policy = {
      attempts,
      baseDelayMs: 1000 * (num("retry_base_delay", config.retry_base_delay) ?? 1),
      maxDelayMs: 1000 * (num("retry_max_delay", config.retry_max_delay) ?? 60),
      sleep: deps.sleep ?? abortableSleep,
      random: deps.random ?? Math.random,
      log: (line) => log(this.#redact(line)),
    };

    this.#prices = prices(config, kwargs);
    if (config.cost_tracking !== undefined && !["default", "ignore_errors"].includes(config.cost_tracking)) {
      throw new ConfigError(
        "Cannot configure model: model.cost_tracking must be `default` or `ignore_errors`",
      );
    }
    this.#ignoreCostErrors = config.cost_tracking === "ignore_errors";
    this.#costLimit = deps.costLimit > 0 ? deps.costLimit : 0;
    if (this.#costLimit > 0 && this.#prices === undefined) {
      if (this.#ignoreCostErrors) {
        log(`warning: the cost limit ($${this.#costLimit}) cannot be enforced: model cost is untracked`);
      } else if (this.endpoint.reportsCost === "no") {
        throw new ConfigError(
          `Cannot enforce the cost limit ($${this.#costLimit}): ${this.endpoint.baseUrl} does not report cost ` +
            `and no price is configured; set model.input_cost_per_token and model.output_cost_per_token ` +
            `(dollars per token), or set agent.cost_limit to 0, or model.cost_tracking: ignore_errors`,
        );
      }
    }
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
    const body = this.#bodies.serialise({ ...payload, ...this.#body }, request.messages);
    const parsed = await retry(this.#url, () => this.#attempt(body, signal), this.#policy, signal);
    const cost = callCost(parsed.usage, this.#prices) ?? this.#unknownCost();
    return { message: parsed.message, finish_reason: parsed.finish_reason, cost, response: parsed.body };
  }

  async #attempt(body: string | Uint8Array<ArrayBuffer>, signal?: AbortSignal) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    let status: number, headers: Headers, text: string;
    try {
      const response = await fetch(this.#url, {
        method: "POST",
        headers: this.#headers,
        body,
        signal: controller.signal,
      });
      status = response.status;
      headers = response.headers;
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
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
    if (status < 200 || status > 299) throw this.#statusError(status, headers, text);
    try {
      return parseCompletionBody(text);
    } catch (error) {
      if (error instanceof MalformedBodyError) throw new TransientError(this.#redact(error.message), status);
      throw error;
    }
  }

  #statusError(status: number, headers: Headers, text: string): Error {
    const detail = this.#redact(providerMessage(text));
    const what = `HTTP ${status} from ${this.#url}${detail === "" ? "" : `: ${detail}`}`;
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      return new TransientError(what, status, parseRetryAfter(headers.get("retry-after")));
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

  #unknownCost(): number {
    if (this.#ignoreCostErrors) return 0;
    const why = `${this.endpoint.baseUrl} reported no usage.cost for model "${this.endpoint.model}" and no ` +
      `price is configured`;
    const fix = "set model.input_cost_per_token and model.output_cost_per_token (dollars per token)";
    if (this.#costLimit > 0) {
      throw new ConfigError(
        `Cannot enforce the cost limit ($${this.#costLimit}): ${why}, so the cost of the call just made is ` +
          `unknown; ${fix}, or set agent.cost_limit to 0, or model.cost_tracking: ignore_errors`,
      );
    }
    if (!this.#warnedCost) {
      this.#warnedCost = true;
      this.#policy.log(
        `warning: counting model calls as $0: ${why}; ${fix}, or model.cost_tracking: ignore_errors`,
      );
    }
    return 0;
  }

  #redact(text: string): string {
    return this.#key.length >= 4 ? text.replaceAll(this.#key, "[REDACTED]") : text;
  }
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
  const input = num("input_cost_per_token", config.input_cost_per_token) ??
    num("model_kwargs.input_cost_per_token", kwargs.input_cost_per_token);
  const output = num("output_cost_per_token", config.output_cost_per_token) ??
    num("model_kwargs.output_cost_per_token", kwargs.output_cost_per_token);
  const cached = num("cache_read_input_token_cost", config.cache_read_input_token_cost);
  if (input === undefined && output === undefined) return undefined;
  if (input === undefined || output === undefined) {
    throw new ConfigError(
      "Cannot configure model: set both model.input_cost_per_token and model.output_cost_per_token",
    );
  }
  return cached === undefined
    ? { input_cost_per_token: input, output_cost_per_token: output }
    : { input_cost_per_token: input, output_cost_per_token: output, cache_read_input_token_cost: cached };
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
