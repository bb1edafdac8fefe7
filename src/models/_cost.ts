/**
 * The cost of one call: what the provider reported in `usage.cost`, else configured per-token prices
 * times the token counts in `usage`.
 *
 * @module
 */
import type { Json } from "../types.ts";

/** Per-token prices in dollars (litellm's model-registry key names). */
export interface Prices {
  input_cost_per_token: number;
  output_cost_per_token: number;
  /** Price of a prompt token read from the provider's cache; defaults to `input_cost_per_token`. */
  cache_read_input_token_cost?: number;
}

/**
 * Compute a call's cost from its `usage`.
 *
 * @param usage the response's `usage` mapping, if any
 * @param prices configured prices, if any
 * @returns dollars, or undefined when neither a reported cost nor priced token counts are available
 */
export function callCost(
  usage: { [key: string]: Json } | undefined,
  prices: Prices | undefined,
): number | undefined {
  if (usage === undefined) return undefined;
  if (typeof usage.cost === "number" && Number.isFinite(usage.cost) && usage.cost >= 0) return usage.cost;
  if (prices === undefined) return undefined;
  const prompt = usage.prompt_tokens;
  const completion = usage.completion_tokens;
  if (typeof prompt !== "number" || typeof completion !== "number") return undefined;
  const details = usage.prompt_tokens_details;
  const cachedRaw = typeof details === "object" && details !== null && !Array.isArray(details)
    ? details.cached_tokens
    : undefined;
  const cached = typeof cachedRaw === "number" ? Math.min(cachedRaw, prompt) : 0;
  const cachedPrice = prices.cache_read_input_token_cost ?? prices.input_cost_per_token;
  return (prompt - cached) * prices.input_cost_per_token + cached * cachedPrice +
    completion * prices.output_cost_per_token;
}
