/**
 * `model_kwargs`' request parameters as litellm's `AmazonConverseConfig` maps them for Bedrock's Converse
 * API: `inferenceConfig` (`maxTokens`, `temperature`, `topP`, `stopSequences`), `toolChoice`, the
 * reasoning effort (a thinking budget for Claude, `reasoning_effort` for gpt-oss, `reasoningConfig` for
 * Nova 2), and everything else in `additionalModelRequestFields`.
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";

import type { Json } from "../../types.ts";
import { isPlainObject } from "../../../lib/json.ts";

import { THINKING_BUDGETS } from "./_anthropic_params.ts";

type Block = { [key: string]: Json };

/** The request fields litellm's Converse config maps `model_kwargs`' parameters to. */
export interface ConverseParams {
  inferenceConfig: Block;
  additionalModelRequestFields: Block;
  toolChoice: Block | undefined;
  dropped: string[];
}

/** OpenAI parameters Converse has no counterpart for (refused unless `drop_params`). */
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
  "parallel_tool_calls",
  "user",
  "response_format",
  "stream_options",
]);

/**
 * `model_kwargs`' request parameters as litellm maps them for Converse: `max_tokens` /
 * `max_completion_tokens` -> `inferenceConfig.maxTokens`, `temperature`, `top_p` -> `topP`, `stop` ->
 * `stopSequences`, `tool_choice`, `reasoning_effort` -> a thinking budget (Claude), anything that is no
 * OpenAI parameter -> `additionalModelRequestFields` (as written: `top_k`, `thinking`, ...).
 *
 * @throws {ConfigError} for an OpenAI parameter Converse does not take (without `drop_params`)
 */
export function converseParams(
  params: { [key: string]: Json },
  options: {
    model: string;
    dropParams: boolean;
    allowed: ReadonlySet<string>;
    effort: string | null | undefined;
  },
): ConverseParams {
  const inference: Block = {};
  const extra: Block = {};
  const dropped: string[] = [];
  let toolChoice: Block | undefined;
  for (const [key, value] of Object.entries(params)) {
    if (key === "reasoning_effort") continue;
    if (key === "max_tokens" || key === "max_completion_tokens") inference.maxTokens = value;
    else if (key === "temperature") inference.temperature = value;
    else if (key === "top_p") inference.topP = value;
    else if (key === "stop") {
      if (typeof value === "string" && value !== "") inference.stopSequences = [value];
      else if (Array.isArray(value)) inference.stopSequences = value;
    } else if (key === "tool_choice") toolChoice = mapToolChoice(value);
    else if (OPENAI_ONLY.has(key) && !options.allowed.has(key)) {
      if (!options.dropParams) {
        throw new ConfigError(
          `Cannot configure model: model.model_kwargs.${key}: Bedrock's Converse API does not take it; remove ` +
            "it, or set model.model_kwargs.drop_params: true to drop it (as litellm does)",
        );
      }
      dropped.push(key);
    } else extra[key] = isPlainObject(value) ? { ...value } : value;
  }
  const effort = options.effort;
  if (effort !== undefined && effort !== null && effort !== "none") {
    const mapped = reasoningFields(effort, options.model);
    if (mapped) Object.assign(extra, mapped);
    else if (options.dropParams) dropped.push("reasoning_effort");
    else {
      throw new ConfigError(
        `Cannot configure model: reasoning_effort: bedrock/${options.model} takes none (litellm refuses it for ` +
          "this model); remove it, or set model.model_kwargs.drop_params: true to drop it",
      );
    }
  }
  toolChoice = withThinking(extra.thinking, inference, toolChoice);
  return { inferenceConfig: inference, additionalModelRequestFields: extra, toolChoice, dropped };
}

/**
 * The request fields for a reasoning effort, as litellm's `_handle_reasoning_effort_parameter` gives
 * them: gpt-oss takes `reasoning_effort` as written, Nova 2 Lite a `reasoningConfig`, Claude (and
 * DeepSeek-R1, and an ARN that hides its model) a thinking budget; undefined for a model that takes none.
 *
 * @throws {ConfigError} for an effort the model's mapping has no counterpart for
 */
function reasoningFields(effort: string, model: string): Block | undefined {
  const unmapped = (values: string) =>
    new ConfigError(
      `Cannot configure model: reasoning_effort ${JSON.stringify(effort)} has no Bedrock counterpart for ` +
        `${model} (use ${values})`,
    );
  if (model.includes("gpt-oss")) return { reasoning_effort: effort };
  if (/^(?:[a-z]+\.)?amazon\.nova-2-lite/.test(model)) {
    if (!["low", "medium", "high"].includes(effort)) throw unmapped("none, low, medium or high");
    return { reasoningConfig: { type: "enabled", maxReasoningEffort: effort } };
  }
  if (!/claude|anthropic|deepseek\.r1|^arn:/.test(model)) return undefined;
  const budget = THINKING_BUDGETS[effort];
  if (budget === undefined) throw unmapped("none, minimal, low, medium or high");
  return { thinking: { type: "enabled", budget_tokens: budget } };
}

/** Bedrock's least thinking budget (litellm's `BEDROCK_MIN_THINKING_BUDGET_TOKENS`: less is a 400). */
const MIN_THINKING_BUDGET = 1024;
/** litellm's `DEFAULT_MAX_TOKENS`: the answer's room past a thinking budget when no max_tokens is given. */
const ANSWER_TOKENS = 4096;

/**
 * What litellm's Converse config does once thinking is enabled (by `reasoning_effort` or `thinking`):
 * a budget under 1024 is raised to 1024, `maxTokens` without a `max_tokens` is the budget plus 4096
 * (Claude needs room past the budget), and a `tool_choice` that forces a tool becomes `auto` (Claude
 * does not think when forced).
 *
 * @returns the tool choice to send
 */
function withThinking(
  thinking: Json | undefined,
  inference: Block,
  toolChoice: Block | undefined,
): Block | undefined {
  if (!isPlainObject(thinking) || thinking.type !== "enabled") return toolChoice;
  if (typeof thinking.budget_tokens === "number") {
    if (thinking.budget_tokens < MIN_THINKING_BUDGET) thinking.budget_tokens = MIN_THINKING_BUDGET;
    inference.maxTokens ??= thinking.budget_tokens + ANSWER_TOKENS;
  }
  return toolChoice && ("any" in toolChoice || "tool" in toolChoice) ? { auto: {} } : toolChoice;
}

function mapToolChoice(value: Json): Block | undefined {
  if (value === "auto") return { auto: {} };
  if (value === "required") return { any: {} };
  if (isPlainObject(value) && isPlainObject(value.function) && typeof value.function.name === "string") {
    return { tool: { name: value.function.name } };
  }
  if (value === "none") {
    throw new ConfigError(
      "Cannot configure model: model.model_kwargs.tool_choice none: Bedrock's Converse API does not take it " +
        "(use auto, required or a function), as litellm refuses it",
    );
  }
  return undefined;
}
