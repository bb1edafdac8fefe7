/**
 * `model_kwargs`' request parameters as litellm's Anthropic config maps them for the Messages API:
 * `max_tokens` (required: the model's most, or a thinking budget plus room for the answer), `stop`,
 * `tool_choice`, `parallel_tool_calls`, `user`, `reasoning_effort` (a thinking budget, or adaptive
 * thinking and `output_config.effort` from Claude 4.6 on); OpenAI parameters Anthropic has no
 * counterpart for are dropped under `drop_params`, else refused; Anthropic's own are sent as written.
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import type { Json } from "../../types.ts";
import { isPlainObject } from "../../../lib/json.ts";

type Block = { [key: string]: Json };

/** The OpenAI parameters litellm's Anthropic config takes (`get_supported_openai_params`). */
const SUPPORTED = new Set([
  "stop",
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "tool_choice",
  "parallel_tool_calls",
  "user",
  "thinking",
  "reasoning_effort",
  "speed",
  "context_management",
  "cache_control",
]);

/**
 * OpenAI chat parameters Anthropic has no counterpart for: dropped under `drop_params`, else refused
 * (litellm's `UnsupportedParamsError`). Parameters that are no OpenAI parameter at all (`top_k`,
 * `output_config`, ...) are Anthropic's own and sent as written.
 */
const OPENAI_ONLY = new Set([
  "frequency_penalty",
  "presence_penalty",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "n",
  "seed",
  "service_tier",
  "store",
  "modalities",
  "prediction",
  "audio",
  "stream_options",
  "functions",
  "function_call",
  "verbosity",
  "safety_identifier",
  "prompt_cache_key",
]);

/** What litellm does translate but claudius's client does not (a clear refusal, not a silent drop). */
const UNTRANSLATED = new Set(["response_format", "web_search_options"]);

/** litellm's thinking budgets for `reasoning_effort` (`DEFAULT_REASONING_EFFORT_*_THINKING_BUDGET`). */
export const THINKING_BUDGETS: Readonly<Record<string, number>> = {
  minimal: 128,
  low: 1024,
  medium: 2048,
  high: 4096,
};

/** litellm's `DEFAULT_MAX_TOKENS`: what a thinking budget is given on top for the answer. */
const ANSWER_TOKENS = 4096;

/**
 * The most output tokens of each Claude family, as Anthropic documents them (litellm asks its model
 * map for them); unknown models get 4096, litellm's `DEFAULT_ANTHROPIC_CHAT_MAX_TOKENS`.
 */
const MAX_OUTPUT: readonly [RegExp, number][] = [
  [/opus-4-[6-9]/, 128_000],
  [/(sonnet|haiku)-4-[5-9]|opus-4-5|sonnet-4\b|sonnet-4-\d{8}|3-7-sonnet/, 64_000],
  [/opus-4/, 32_000],
  [/3-5-(sonnet|haiku)/, 8192],
];

/** Claude 4.6 and later think adaptively: `thinking: {type: adaptive}` and `output_config.effort`. */
export function adaptiveThinking(model: string): boolean {
  return /(opus|sonnet|haiku)[-_.]4[-_.][6-9]|(opus|sonnet|haiku)[-_.][5-9](\b|[-_.])/.test(
    model.toLowerCase(),
  );
}

/** The request fields for `reasoning_effort`, as litellm's `_map_reasoning_effort` gives them. */
function reasoning(effort: string, model: string): Block {
  if (effort === "none") return {};
  if (adaptiveThinking(model)) {
    const mapped = effort === "minimal"
      ? "low"
      : effort === "xhigh"
      ? (/opus/.test(model) ? "max" : "high")
      : effort;
    if (!["low", "medium", "high", "max"].includes(mapped)) throw unmapped(effort);
    return { thinking: { type: "adaptive" }, output_config: { effort: mapped } };
  }
  const budget = THINKING_BUDGETS[effort];
  if (budget === undefined) throw unmapped(effort);
  return { thinking: { type: "enabled", budget_tokens: budget } };
}

function unmapped(effort: string): ConfigError {
  return new ConfigError(
    `Cannot configure model: reasoning_effort ${JSON.stringify(effort)} has no Anthropic counterpart ` +
      "(use none, minimal, low, medium or high, and xhigh or max from Claude 4.6 on)",
  );
}

/** The parameters of a Messages API request, and what was dropped under `drop_params`. */
export interface AnthropicParams {
  /** Sent after `model` and `messages` (and before `system` and `max_tokens`). */
  fields: Block;
  maxTokens: number;
  dropped: string[];
}

/**
 * `model_kwargs`' request parameters as litellm's Anthropic config maps them.
 *
 * @param params the parameters (litellm's own already taken out)
 * @param options the model, `drop_params`, `allowed_openai_params`, the reasoning effort
 * @throws {ConfigError} for a parameter Anthropic does not take (without `drop_params`), one claudius
 *   does not translate, or a reasoning effort with no counterpart
 */
export function anthropicParams(
  params: { [key: string]: Json },
  options: {
    model: string;
    dropParams: boolean;
    allowed: ReadonlySet<string>;
    effort: string | null | undefined;
  },
): AnthropicParams {
  const fields: Block = {};
  const dropped: string[] = [];
  let maxTokens: number | undefined;
  let toolChoice: Block | undefined;
  let parallel: boolean | undefined;
  for (const [key, value] of Object.entries(params)) {
    if (key === "reasoning_effort" || dropParam(key, options, dropped)) continue;
    if (!SUPPORTED.has(key)) fields[key] = value;
    else if (key === "max_tokens" || key === "max_completion_tokens") {
      if (typeof value === "number") maxTokens = Math.max(1, Math.round(value));
    } else if (key === "stop") {
      if (typeof value === "string") fields.stop_sequences = [value];
      else if (Array.isArray(value) && value.length > 0) fields.stop_sequences = value;
    } else if (key === "tool_choice") toolChoice = mapToolChoice(value);
    else if (key === "parallel_tool_calls") {
      parallel = value === true ? true : value === false ? false : undefined;
    } else if (key === "user") {
      if (typeof value === "string" && validUserId(value)) fields.metadata = { user_id: value };
    } else fields[key] = value;
  }
  if (parallel !== undefined && !(isPlainObject(toolChoice) && toolChoice.type === "none")) {
    toolChoice = { ...(toolChoice ?? { type: "auto" }), disable_parallel_tool_use: !parallel };
  }
  if (toolChoice !== undefined) fields.tool_choice = toolChoice;
  if (options.effort !== undefined && options.effort !== null) {
    Object.assign(fields, reasoning(options.effort, options.model));
  }
  maxTokens ??= defaultMaxTokens(fields.thinking, options.model);
  return { fields, maxTokens, dropped };
}

/**
 * True for a parameter dropped under `drop_params` (it is listed in `dropped`).
 * @throws {ConfigError} for one Anthropic does not take, or claudius does not translate
 */
function dropParam(
  key: string,
  options: { dropParams: boolean; allowed: ReadonlySet<string> },
  dropped: string[],
) {
  if (options.allowed.has(key)) return false;
  if (UNTRANSLATED.has(key)) {
    throw new ConfigError(
      `Cannot configure model: model.model_kwargs.${key} is not translated for Anthropic's Messages API by ` +
        "claudius; remove it (or list it in allowed_openai_params to send it as written)",
    );
  }
  if (!OPENAI_ONLY.has(key)) return false;
  if (options.dropParams) {
    dropped.push(key);
    return true;
  }
  throw new ConfigError(
    `Cannot configure model: model.model_kwargs.${key}: Anthropic's Messages API does not take it; remove ` +
      "it, or set model.model_kwargs.drop_params: true to drop it (as litellm does)",
  );
}

/** `max_tokens` when none is given: room for the answer past a thinking budget, else the model's maximum. */
function defaultMaxTokens(thinking: Json | undefined, model: string): number {
  const budget =
    isPlainObject(thinking) && thinking.type === "enabled" && typeof thinking.budget_tokens === "number"
      ? thinking.budget_tokens
      : undefined;
  if (budget !== undefined) return budget + ANSWER_TOKENS;
  const name = model.toLowerCase();
  return MAX_OUTPUT.find(([pattern]) => pattern.test(name))?.[1] ?? 4096;
}

/** OpenAI's `tool_choice` as Anthropic's (litellm's `_map_tool_choice`). */
function mapToolChoice(value: Json): Block | undefined {
  if (value === "auto") return { type: "auto" };
  if (value === "required") return { type: "any" };
  if (value === "none") return { type: "none" };
  if (isPlainObject(value)) {
    const name = isPlainObject(value.function) ? value.function.name : undefined;
    if (typeof name === "string") return { type: "tool", name };
  }
  return undefined;
}

/** litellm sends `user` as `metadata.user_id` unless it looks like an e-mail address or a phone number. */
function validUserId(id: string): boolean {
  return !/^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/.test(id) && !/^\+?[\d\s()-]{7,}$/.test(id);
}
