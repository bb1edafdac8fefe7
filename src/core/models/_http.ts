/**
 * What every HTTP model client sets up the same way from the `model:` section: the resolved keys,
 * `model_kwargs` interpreted, the endpoint, the key (and where it came from), what to redact, the
 * retry policy, the deadline and the cost policy.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import { type ConfigInput, resolveKeys } from "../config/keys.ts";
import { isSecretName, redactText } from "../redact.ts";
import type { Prices } from "./_cost.ts";
import { CostPolicy } from "./_cost.ts";
import type { Gateway } from "./extra/_gateways.ts";
import type { Json } from "../types.ts";
import { type ApiKey, type ModelKwargs, readModelKwargs } from "./_kwargs.ts";
import { DEFAULT_REQUEST_TIMEOUT, OPENAI_KEYS, type OpenAIClientConfig } from "./_keys.ts";
import { type Endpoint, resolveEndpoint } from "./_presets.ts";
import { PROVIDERS } from "./providers.ts";
import type { RetryPolicy, TransientError } from "./extra/_retry.ts";
import type { StreamSink } from "../types.ts";

/** What an HTTP client needs from the outside world. */
export interface HttpClientDeps {
  /** Environment variables (the key and the provider's variables are read from here, at construction). */
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

/**
 * A route other than the provider's own for a chat or Anthropic client (Vertex AI's): where requests
 * go, the headers that replace the key's, what authenticates each attempt, and what to say about it.
 */
export interface ClientRoute {
  /** Where requests go (Anthropic: `...:rawPredict`; chat: `.../chat/completions`). */
  url: string;
  /** Where a streamed request goes (Anthropic on Vertex: `...:streamRawPredict`). */
  streamUrl?: string;
  /** Headers sent instead of the key's (`x-goog-user-project`). */
  headers: Record<string, string>;
  /** Headers that authenticate one attempt (a bearer token, renewed before it expires). */
  sign: (url: string, method: "GET" | "POST", body: string | Uint8Array<ArrayBuffer> | Blob) => Promise<
    Record<string, string>
  >;
  /** What to check when the service refuses the credentials. */
  authHint: string;
  /** Where the credentials come from, for `config check`. */
  keyFrom: string;
  /** Fields set on every body (Anthropic on Vertex: `anthropic_version`; the model goes in the URL). */
  body?: { [key: string]: Json };
}

/** One client's setup. */
export interface HttpSetup {
  config: OpenAIClientConfig;
  kwargs: ModelKwargs;
  endpoint: Endpoint;
  /** The key, or undefined when no variable (or `model_kwargs.api_key`) gives one. */
  key: ApiKey | undefined;
  /** What to do about a 401 or 403 (`set OPENAI_API_KEY`, `check model.model_kwargs.api_key`, ...). */
  authHint: string;
  /** `text` without the key, secret header values and credential shapes. */
  redact: (text: string) => string;
  /** Adds values to what {@link redact} removes (a gateway's headers). */
  addSecrets: (values: readonly string[]) => void;
  policy: RetryPolicy;
  costs: CostPolicy;
  /** Deadline of one attempt, ms (0 = none). */
  timeoutMs: number;
  /** `model_kwargs.reasoning_effort`, else `model.reasoning_effort` (string or null), else undefined. */
  reasoningEffort: string | null | undefined;
  log: (line: string) => void;
}

/**
 * Set up a client from the `model:` section.
 *
 * @throws {ConfigError} for a bad key or value, an endpoint that cannot be found, or a cost limit that
 *   cannot be enforced
 */
export function httpSetup(input: ConfigInput<typeof OPENAI_KEYS>, deps: HttpClientDeps): HttpSetup {
  const log = deps.log ?? ((line: string) => console.error(line));
  const config = resolveKeys(OPENAI_KEYS, input, "model", { hostEnv: deps.env });
  const kwargs = readModelKwargs(config.model_kwargs, deps.env);
  const baseUrl = config.base_url;
  const endpoint = deps.gateway
    ? deps.gateway.endpoint(config.model_name, baseUrl ?? kwargs.baseUrl, config.api_key_env)
    : resolveEndpoint({
      modelName: config.model_name,
      baseUrl,
      kwargBaseUrl: kwargs.baseUrl,
      apiKeyEnv: config.api_key_env,
      provider: kwargs.provider,
      env: deps.env,
      apiVersion: kwargs.apiVersion,
    });
  // Azure reads api_version; everywhere else it is one more litellm-only key.
  const ignored = kwargs.ignored.filter((k) => !(k === "api_version" && endpoint.routes));
  if (ignored.length > 0) {
    log(`warning: ignoring litellm-only model.model_kwargs keys: ${ignored.join(", ")}`);
  }
  const { key, authHint } = apiKey(endpoint, kwargs, deps.env);
  if (key === undefined && !deps.gateway) refuseKeyless(config.model_name, endpoint);
  const { redact, addSecrets } = redactor(key, kwargs.headers);
  const policy: RetryPolicy = {
    attempts: config.retry_attempts,
    baseDelayMs: 1000 * config.retry_base_delay,
    maxDelayMs: 1000 * config.retry_max_delay,
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    random: deps.random ?? Math.random,
    log: (line) => log(redact(line)),
    advice: (error) => retryAdvice(error, endpoint),
    contact: { answered: false },
  };
  const costs = new CostPolicy({
    prices: prices(config, kwargs),
    endpoint,
    costLimit: deps.costLimit > 0 ? deps.costLimit : 0,
    ignoreErrors: config.cost_tracking === "ignore_errors",
    log: policy.log,
  });
  return {
    config,
    kwargs,
    endpoint,
    key,
    authHint,
    redact,
    addSecrets,
    policy,
    costs,
    timeoutMs: 1000 * (config.request_timeout ?? kwargs.timeout ?? DEFAULT_REQUEST_TIMEOUT),
    reasoningEffort: reasoningEffort(kwargs, config),
    log: policy.log,
  };
}

/** What to check about a failed request, in words: the part of the setup that would fix it. */
export function retryAdvice(error: TransientError, endpoint: Endpoint): string {
  const from = endpoint.baseFrom.startsWith("the ")
    ? endpoint.baseFrom
    : endpoint.baseFrom === "model.base_url"
    ? "model.base_url or --base-url"
    : endpoint.baseFrom;
  const origin = URL.parse(endpoint.baseUrl)?.host ?? endpoint.baseUrl;
  if (error.unreachable === "refused") return `check that a server listens at ${origin} (from ${from})`;
  if (error.unreachable === "dns") return `check the host name ${origin} (from ${from}) and the network`;
  if (error.status === 429) return "check the account's rate limits (fewer batch --workers help)";
  if (error.status >= 500) return "the server's side: check the provider's status, or retry later";
  if (error.status === 0 && /within .* model\.request_timeout/.test(error.message)) {
    return "a slow model may need a longer model.request_timeout";
  }
  if (error.status === 0 && error.message.startsWith("network error")) return `check the network and ${from}`;
  return `check that ${endpoint.baseUrl} (from ${from}) serves the model's API`;
}

/**
 * A provider's own endpoint (its default URL, or one its variables give) never answers without a key:
 * say so before anything runs, not at the first call (litellm refuses too, at the call). A server named
 * by `model.base_url` may need none (a local vLLM behind an `openai/` name), and a local provider never does.
 *
 * @throws {ConfigError} naming the variables to set
 */
function refuseKeyless(modelName: string, endpoint: Endpoint): void {
  const provider = endpoint.provider === undefined ? undefined : PROVIDERS[endpoint.provider];
  const named = endpoint.baseFrom === "model.base_url" || endpoint.baseFrom === "model.model_kwargs.api_base";
  if (!provider || provider.local || named || endpoint.keyEnv.length === 0) return;
  const names = endpoint.keyEnv.join(" or ");
  // Every face reads the global .env; only claudius's own reads ./.env too (upstream's faces do not).
  throw new ConfigError(
    `Cannot configure model: no API key for ${modelName} (${endpoint.baseUrl}): set ${names} in the ` +
      `environment or with 'mini-extra config set ${endpoint.keyEnv[0]} KEY' (the global .env; claudius ` +
      "also reads ./.env), or name the variable that holds it with model.api_key_env",
  );
}

/** The key (`model_kwargs.api_key`, else the first of the endpoint's variables set) and what a 401 asks for. */
function apiKey(
  endpoint: Endpoint,
  kwargs: ModelKwargs,
  env: Readonly<Record<string, string | undefined>>,
): { key: ApiKey | undefined; authHint: string } {
  const from = endpoint.keyEnv.find((name) => (env[name] ?? "") !== "");
  const value = from === undefined ? undefined : env[from];
  const key = kwargs.apiKey ?? (from !== undefined && value !== undefined ? { value, from } : undefined);
  const authHint = key !== undefined
    ? `check ${key.from}`
    : endpoint.keyEnv.length > 0
    ? `set ${endpoint.keyEnv[0]}`
    : "set model.api_key_env to the name of the variable holding the API key";
  return { key, authHint };
}

/**
 * `model_kwargs.reasoning_effort`, else `model.reasoning_effort`.
 * @throws {ConfigError} when it is not a string (or null)
 */
function reasoningEffort(kwargs: ModelKwargs, config: OpenAIClientConfig): string | null | undefined {
  const effort = "reasoning_effort" in kwargs.params
    ? kwargs.params.reasoning_effort
    : config.reasoning_effort;
  if (effort !== undefined && effort !== null && typeof effort !== "string") {
    throw new ConfigError("Cannot configure model: model.model_kwargs.reasoning_effort must be a string");
  }
  return effort;
}

/** What a client removes from messages: the key, secret header values (and their tokens), credential shapes. */
function redactor(key: ApiKey | undefined, headers: Record<string, string>) {
  const secrets: string[] = [];
  const addSecrets = (values: readonly string[]) => secrets.push(...values.filter((v) => v.length >= 4));
  if (key !== undefined) addSecrets([key.value]);
  for (const [name, value] of Object.entries(headers)) {
    if (isSecretName(name)) addSecrets([value, value.replace(/^(Bearer|Basic|Token)\s+/i, "")]);
  }
  return { redact: (text: string) => redactText(text, secrets), addSecrets };
}

function prices(config: OpenAIClientConfig, kwargs: ModelKwargs): Prices | undefined {
  const input = config.input_cost_per_token ?? kwargs.inputCostPerToken;
  const output = config.output_cost_per_token ?? kwargs.outputCostPerToken;
  const cached = config.cache_read_input_token_cost;
  const written = config.cache_creation_input_token_cost;
  if (input === undefined && output === undefined) return undefined;
  if (input === undefined || output === undefined) {
    throw new ConfigError(
      "Cannot configure model: set both model.input_cost_per_token and model.output_cost_per_token",
    );
  }
  const out: Prices = { input_cost_per_token: input, output_cost_per_token: output };
  if (cached !== undefined) out.cache_read_input_token_cost = cached;
  if (written !== undefined) out.cache_creation_input_token_cost = written;
  return out;
}
