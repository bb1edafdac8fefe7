/**
 * Per-token prices from a maintained database (`@pydantic/genai-prices`, pinned in deno.json), for
 * providers that put no cost in their responses. The database (~0.8 MB of JavaScript) is imported
 * only when a run needs a price, never on the start-up path of a run that does not.
 *
 * @module
 */
import type { Json } from "../types.ts";
import { tokenCounts } from "./_cost.ts";

/** A model's price, found in the database. */
export interface PriceEntry {
  /** What was matched, for messages: `anthropic/claude-sonnet-4-5`. */
  name: string;
  /** Dollars for one call's `usage` (cached and cache-write tokens at their own rates, tiers applied). */
  cost(usage: { [key: string]: Json }): number | undefined;
}

/** claudius's provider prefixes -> the database's provider ids. */
const PROVIDER_IDS: Readonly<Record<string, string>> = {
  openai: "openai",
  anthropic: "anthropic",
  gemini: "google",
  deepseek: "deepseek",
  moonshot: "moonshotai",
  openrouter: "openrouter",
  groq: "groq",
  xai: "x-ai",
  azure: "azure",
  bedrock: "aws",
  vertex_ai: "google",
  together_ai: "together",
  mistral: "mistral",
  fireworks_ai: "fireworks",
};

/**
 * The price of a model named as a response names it (`claude-sonnet-4-5-20250929`,
 * `anthropic/claude-sonnet-4-5`): a known provider prefix narrows the search, else the name alone.
 *
 * @param served the response's `model`
 * @returns the entry, or undefined when the database has none
 */
export async function findServedPrice(served: string): Promise<PriceEntry | undefined> {
  const slash = served.indexOf("/");
  const prefix = slash > 0 ? served.slice(0, slash) : undefined;
  if (prefix !== undefined && Object.hasOwn(PROVIDER_IDS, prefix)) {
    return await findPrice(served.slice(slash + 1), prefix) ??
      await findPrice(served.slice(slash + 1), undefined);
  }
  return await findPrice(served, undefined);
}

/**
 * Whether the database may know prices for this provider prefix (local servers never cost money).
 *
 * @param provider the model name's provider prefix (`openai`, ...), or undefined when it had none
 */
export function pricedProvider(provider: string | undefined): boolean {
  return provider === undefined || Object.hasOwn(PROVIDER_IDS, provider);
}

/**
 * Find a model's price.
 *
 * @param model the model name as sent (provider prefix removed), e.g. `claude-sonnet-4-5`
 * @param provider the provider prefix it had (`anthropic`), or undefined to match on the name alone
 * @returns the entry, or undefined when the database has none
 *
 * @example
 * ```ts ignore
 * const entry = await findPrice("gpt-5-mini", "openai");
 * entry?.cost({ prompt_tokens: 1000, completion_tokens: 100 }); // 0.00045
 * ```
 */
export async function findPrice(
  name: string,
  provider: string | undefined,
): Promise<PriceEntry | undefined> {
  const { calcPrice } = await import("@pydantic/genai-prices");
  const providerId = provider === undefined ? undefined : PROVIDER_IDS[provider];
  const options = providerId ? { providerId } : {};
  // Vertex's OpenAI-compatible endpoint names Gemini `google/gemini-...`; the database names it without.
  const model =
    calcPrice({ input_tokens: 1, output_tokens: 1 }, name, options) === null && name.startsWith("google/")
      ? name.slice("google/".length)
      : name;
  const probe = calcPrice({ input_tokens: 1, output_tokens: 1 }, model, options);
  if (probe === null) return undefined;
  // Later calls skip the search: the provider narrowed to the one matched model.
  const only = { ...probe.provider, models: [probe.model] };
  return {
    name: `${probe.provider.id}/${probe.model.id}`,
    cost(usage) {
      const counts = tokenCounts(usage);
      if (counts === undefined) return undefined;
      const price = calcPrice(
        {
          input_tokens: counts.input,
          output_tokens: counts.output,
          cache_read_tokens: counts.cacheRead,
          cache_write_tokens: counts.cacheWrite,
        },
        model,
        { provider: only },
      );
      return price?.total_price;
    },
  };
}
