/**
 * Upstream's model classes by the names its configs and trajectories give them, and the claudius class
 * that runs in each one's place.
 *
 * @module
 */
import { MODEL_CLASSES } from "./classes.ts";
import type { ModelRow } from "./model_class.ts";

/**
 * An upstream model class as claudius runs it: `cls` for a run of upstream v2 (and a config naming
 * the class by its dotted path); `text` for a run of upstream v1, whose agent read every reply as
 * text (one fenced block), whatever the model class; none: claudius has no text-mode counterpart.
 */
export interface UpstreamModelClass {
  /** The claudius class that runs upstream v2's class. */
  cls: string;
  /** The claudius class that runs upstream v1's class (text mode), if any. */
  text?: string;
}

const M = "minisweagent.models.";
/**
 * Every model class upstream has had (v1.10 to v2.4), by the dotted path its trajectories record
 * as `info.config.model_type` and its configs may give as `model_class`.
 */
export const UPSTREAM_MODEL_CLASSES: Readonly<Record<string, UpstreamModelClass>> = {
  [`${M}litellm_model.LitellmModel`]: { cls: "litellm", text: "litellm_textbased" },
  [`${M}litellm_textbased_model.LitellmTextbasedModel`]: {
    cls: "litellm_textbased",
    text: "litellm_textbased",
  },
  [`${M}litellm_response_model.LitellmResponseModel`]: { cls: "litellm_response" },
  // v1's name of the Responses API class (its replies were read as text: no counterpart).
  [`${M}litellm_response_api_model.LitellmResponseAPIModel`]: { cls: "litellm_response" },
  // v1: litellm with cache markers for Claude, which claudius sets for Claude names by default.
  [`${M}anthropic.AnthropicModel`]: { cls: "litellm", text: "litellm_textbased" },
  [`${M}openrouter_model.OpenRouterModel`]: { cls: "openrouter", text: "openrouter_textbased" },
  [`${M}openrouter_textbased_model.OpenRouterTextbasedModel`]: {
    cls: "openrouter_textbased",
    text: "openrouter_textbased",
  },
  [`${M}openrouter_response_model.OpenRouterResponseModel`]: { cls: "openrouter_response" },
  [`${M}portkey_model.PortkeyModel`]: { cls: "portkey" },
  [`${M}portkey_response_model.PortkeyResponseAPIModel`]: { cls: "portkey_response" },
  [`${M}portkey_response_api_model.PortkeyResponseAPIModel`]: { cls: "portkey_response" },
  [`${M}requesty_model.RequestyModel`]: { cls: "requesty" },
  [`${M}extra.roulette.RouletteModel`]: { cls: "roulette", text: "roulette" },
  [`${M}extra.roulette.InterleavingModel`]: { cls: "interleaving", text: "interleaving" },
  [`${M}test_models.DeterministicModel`]: { cls: "deterministic", text: "deterministic" },
  [`${M}test_models.DeterministicToolcallModel`]: { cls: "deterministic_toolcall" },
  [`${M}test_models.DeterministicResponseAPIToolcallModel`]: { cls: "deterministic_response" },
};

/**
 * The claudius class that runs in place of an upstream model class, if claudius has one.
 *
 * @example
 * ```ts
 * import { upstreamModelClass } from "./upstream_classes.ts";
 * upstreamModelClass("minisweagent.models.litellm_model.LitellmModel"); // "litellm"
 * upstreamModelClass("minisweagent.models.litellm_model.LitellmModel", true); // "litellm_textbased"
 * ```
 * @param name the dotted path (`minisweagent.models.litellm_model.LitellmModel`) or upstream's short name
 * @param text the run was upstream v1's (replies read as text)
 * @param classes the registry (default: claudius's)
 */
export function upstreamModelClass(
  name: string,
  text = false,
  classes: Readonly<Record<string, ModelRow>> = MODEL_CLASSES,
): string | undefined {
  const entry = Object.hasOwn(UPSTREAM_MODEL_CLASSES, name) ? UPSTREAM_MODEL_CLASSES[name] : undefined;
  const cls = entry === undefined ? (text ? undefined : name) : text ? entry.text : entry.cls;
  return cls !== undefined && Object.hasOwn(classes, cls) ? cls : undefined;
}
