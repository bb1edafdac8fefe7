/**
 * `model.model_kwargs` read as litellm reads `litellm.completion(**model_kwargs)`: litellm's own
 * parameters (the key, the endpoint, the provider, `drop_params`, `allowed_openai_params`, the
 * deadline, extra headers and body, prices, ...) are interpreted here and never sent; the rest are
 * request parameters, checked against what the target API takes ({@link chatParams}).
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Json } from "../types.ts";
import { stringifyPythonJson } from "../../lib/python/pyjson.ts";
import { isPlainObject } from "../../lib/json.ts";

/** litellm's parameters that claudius interprets. */
const INTERPRETED = new Set([
  "api_key",
  "api_base",
  "base_url",
  "custom_llm_provider",
  "drop_params",
  "allowed_openai_params",
  "extra_headers",
  "extra_body",
  "timeout",
  "request_timeout",
  "input_cost_per_token",
  "output_cost_per_token",
]);

/**
 * litellm's parameters with no counterpart here: never sent, named in one warning (litellm's
 * `all_litellm_params` and `completion()` arguments that are not request fields).
 */
const IGNORED = new Set([
  "num_retries",
  "max_retries",
  "retry_policy",
  "retry_strategy",
  "fallbacks",
  "context_window_fallback_dict",
  "caching",
  "cache",
  "cache_key",
  "ttl",
  "metadata",
  "litellm_metadata",
  "tags",
  "mock_response",
  "mock_timeout",
  "api_version",
  "stream",
  "stream_timeout",
  "modify_params",
  "additional_drop_params",
  "logger_fn",
  "verbose",
  "headers",
  "base_model",
  "model_info",
  "input_cost_per_second",
  "output_cost_per_second",
  "litellm_logging_obj",
  "litellm_call_id",
  "litellm_trace_id",
  "litellm_session_id",
  "litellm_credential_name",
  "use_litellm_proxy",
  "merge_reasoning_content_in_choices",
  "ensure_alternating_roles",
  "user_continue_message",
  "assistant_continue_message",
  "supports_system_message",
  "region_name",
  "no-log",
]);

/** A key and where it came from (for messages). */
export interface ApiKey {
  value: string;
  /** `model.model_kwargs.api_key`, or the variable `os.environ/NAME` named. */
  from: string;
}

/** `model_kwargs`, interpreted. */
export interface ModelKwargs {
  /** `api_key`: the literal, or the value of the variable `os.environ/NAME` names. */
  apiKey: ApiKey | undefined;
  /** `api_base` (or `base_url`). */
  baseUrl: string | undefined;
  /** `custom_llm_provider`. */
  provider: string | undefined;
  /** `drop_params`: parameters the target API does not take are dropped instead of refused. */
  dropParams: boolean;
  /** `allowed_openai_params`: sent even when the target API is not known to take them. */
  allowed: ReadonlySet<string>;
  /** `extra_headers`, names as given. */
  headers: Record<string, string>;
  /** `extra_body`, merged into the body last. */
  extraBody: { [key: string]: Json };
  /** `timeout` (or `request_timeout`), seconds. */
  timeout: number | undefined;
  inputCostPerToken: number | undefined;
  outputCostPerToken: number | undefined;
  /** The request parameters, in the config's order. */
  params: { [key: string]: Json };
  /** litellm-only keys that have no effect here (never sent). */
  ignored: string[];
  /** `api_version` (Azure's; ignored elsewhere). */
  apiVersion: string | undefined;
}

/**
 * Interpret `model_kwargs`.
 *
 * @param kwargs `model.model_kwargs`
 * @param env where `os.environ/NAME` keys are read
 * @throws {ConfigError} for a value of the wrong type, `model` or `messages` (claudius sets them), or an
 *   `os.environ/NAME` key whose variable is unset
 */
export function readModelKwargs(
  kwargs: { [key: string]: Json },
  env: Readonly<Record<string, string | undefined>>,
): ModelKwargs {
  for (const key of ["model", "messages"]) {
    if (key in kwargs) {
      throw new ConfigError(
        `Cannot configure model: model.model_kwargs.${key} is not allowed: it is set by claudius`,
      );
    }
  }
  const params: { [key: string]: Json } = {};
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(kwargs)) {
    if (IGNORED.has(key)) ignored.push(key);
    else if (!INTERPRETED.has(key)) params[key] = value;
  }
  const allowed = kwargs.allowed_openai_params ?? [];
  if (!Array.isArray(allowed) || !allowed.every((v) => typeof v === "string")) {
    throw kwargError("allowed_openai_params", "must be a list of parameter names");
  }
  const drop = kwargs.drop_params ?? false;
  if (typeof drop !== "boolean") throw kwargError("drop_params", "must be true or false");
  return {
    apiKey: apiKey(kwargs.api_key, env),
    baseUrl: str("api_base", kwargs.api_base) ?? str("base_url", kwargs.base_url),
    provider: str("custom_llm_provider", kwargs.custom_llm_provider),
    dropParams: drop,
    allowed: new Set(allowed as string[]),
    headers: headers(kwargs.extra_headers),
    extraBody: mapping("extra_body", kwargs.extra_body),
    timeout: num("timeout", kwargs.timeout) ?? num("request_timeout", kwargs.request_timeout),
    inputCostPerToken: num("input_cost_per_token", kwargs.input_cost_per_token),
    outputCostPerToken: num("output_cost_per_token", kwargs.output_cost_per_token),
    params,
    ignored,
    apiVersion: str("api_version", kwargs.api_version),
  };
}

/** The `os.environ/NAME` form of a litellm key: the value of `NAME`. */
const ENV_REFERENCE = /^os\.environ\/(.+)$/;

function apiKey(
  value: Json | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ApiKey | undefined {
  const text = str("api_key", value);
  if (text === undefined) return undefined;
  const reference = ENV_REFERENCE.exec(text);
  if (reference === null) return { value: text, from: "model.model_kwargs.api_key" };
  const name = reference[1]!;
  const found = env[name];
  if (!found) {
    throw new ConfigError(
      `Cannot configure model: model.model_kwargs.api_key is os.environ/${name}, but ${name} is not set; ` +
        "set it in the environment or a .env file",
    );
  }
  return { value: found, from: name };
}

function headers(value: Json | undefined): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value) || !Object.values(value).every((v) => typeof v === "string")) {
    throw kwargError("extra_headers", "must map names to strings");
  }
  return value as Record<string, string>;
}

function mapping(key: string, value: Json | undefined): { [key: string]: Json } {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw kwargError(key, "must be a mapping");
  return value;
}

function num(key: string, value: Json | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw kwargError(key, `must be a finite number >= 0, got ${stringifyPythonJson(value)}`);
  }
  return value;
}

function str(key: string, value: Json | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value === "") throw kwargError(key, "must be a non-empty string");
  return value;
}

function kwargError(key: string, why: string): ConfigError {
  return new ConfigError(`Cannot configure model: model.model_kwargs.${key} ${why}`);
}

/** What one request API takes of the OpenAI parameters. */
export interface ParamRules {
  /** OpenAI chat parameters the API does not take (`drop_params` drops them, else they are refused). */
  unsupported: ReadonlySet<string>;
  /** `temperature` must be 1 (OpenAI's reasoning models). */
  temperatureOne: boolean;
  /** `max_tokens` goes as `max_completion_tokens` (OpenAI's reasoning models). */
  maxCompletionTokens: boolean;
  /** Named in messages: `gpt-5-mini`, `Anthropic's Messages API`. */
  target: string;
}

/** No rules: every parameter is sent as written. */
export const ANY_PARAMS: ParamRules = {
  unsupported: new Set(),
  temperatureOne: false,
  maxCompletionTokens: false,
  target: "",
};

/**
 * What an OpenAI model takes, as litellm's OpenAI configs say: the reasoning models (`gpt-5*`, `o1`,
 * `o3`, `o4-mini`, ...) take no sampling parameters but `temperature: 1`, and `max_completion_tokens`
 * for `max_tokens`; the others take everything.
 *
 * @param model the model name as sent (prefix removed)
 */
export function openaiRules(model: string): ParamRules {
  const name = model.toLowerCase();
  const gpt5 = name.includes("gpt-5");
  const oSeries = /^o\d/.test(name);
  if (!gpt5 && !oSeries) return ANY_PARAMS;
  const unsupported = ["logprobs", "top_p", "presence_penalty", "frequency_penalty", "top_logprobs"];
  if (gpt5) unsupported.push("stop");
  return {
    unsupported: new Set(unsupported),
    temperatureOne: true,
    maxCompletionTokens: true,
    target: model,
  };
}

/**
 * The request parameters an API is sent: `max_tokens` renamed where it must be, parameters the API
 * does not take dropped under `drop_params` (or kept when `allowed_openai_params` names them) and
 * refused otherwise, as litellm refuses them (before any call, rather than after the first).
 *
 * @param kwargs the interpreted `model_kwargs`
 * @param rules what the API takes
 * @returns the parameters to send and the names dropped
 * @throws {ConfigError} naming the parameter, the model and the fix, for one the API does not take
 */
export function chatParams(
  kwargs: Pick<ModelKwargs, "params" | "dropParams" | "allowed">,
  rules: ParamRules,
): { params: { [key: string]: Json }; dropped: string[] } {
  const params: { [key: string]: Json } = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(kwargs.params)) {
    const refused = kwargs.allowed.has(key)
      ? undefined
      : rules.unsupported.has(key)
      ? `${rules.target} does not take ${key}`
      : rules.temperatureOne && key === "temperature" && value !== 1 && value !== null
      ? `${rules.target} takes only temperature 1, got ${stringifyPythonJson(value)}`
      : undefined;
    if (refused === undefined) {
      params[rules.maxCompletionTokens && key === "max_tokens" ? "max_completion_tokens" : key] = value;
    } else if (kwargs.dropParams) {
      dropped.push(key);
    } else {
      throw new ConfigError(
        `Cannot configure model: model.model_kwargs.${key}: ${refused}; remove it, or set ` +
          `model.model_kwargs.drop_params: true to drop it (as litellm does), or list it in ` +
          "model.model_kwargs.allowed_openai_params to send it anyway",
      );
    }
  }
  return { params, dropped };
}
