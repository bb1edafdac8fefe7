/**
 * What a call costs and what an unknown cost means: the provider's `usage.cost`; else, when the
 * response names another model than the one configured (a gateway's alias answered by a real model),
 * that model's price in the database; else configured per-token prices times the token counts in
 * `usage`, else the database's price of the configured name (`@pydantic/genai-prices`, pinned in
 * deno.json, read as `price_db.ts` says, only when a run needs a price), else nothing for a local
 * server (`hosted_vllm/`, `ollama/`, ...: free); and, with a cost limit set, a refusal before the first
 * call (or after the first call, for endpoints that might have reported cost) when no price can be known.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Json } from "../types.ts";
import type { Endpoint } from "./_presets.ts";
import { PROVIDERS } from "./providers.ts";
import { lookUp, type ModelPrice, type TokenCounts } from "./price_db.ts";

/** Per-token prices in dollars (litellm's model-registry key names). */
export interface Prices {
  input_cost_per_token: number;
  output_cost_per_token: number;
  /** Price of a prompt token read from the provider's cache; defaults to `input_cost_per_token`. */
  cache_read_input_token_cost?: number;
  /** Price of a prompt token written to the provider's cache; defaults to `input_cost_per_token`. */
  cache_creation_input_token_cost?: number;
}

/** A token count: a finite number >= 0, or a string of digits (some servers send `"12"`). */
const count = (v: Json | undefined): number | undefined => {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : undefined;
};
const sub = (o: Json | undefined, key: string) =>
  typeof o === "object" && o !== null && !Array.isArray(o) ? o[key] : undefined;

/**
 * Token counts from an OpenAI-style `usage` (chat completions or Responses API), with the cache
 * fields providers use: OpenAI and OpenRouter `prompt_tokens_details.cached_tokens` (Responses:
 * `input_tokens_details`) / `.cache_write_tokens`, DeepSeek
 * `prompt_cache_hit_tokens`, Moonshot `cached_tokens`, Anthropic-style (litellm)
 * `cache_read_input_tokens` / `cache_creation_input_tokens`.
 *
 * @param usage the response's `usage`
 * @returns the counts, or undefined without `prompt_tokens` and `completion_tokens`
 */
export function tokenCounts(usage: { [key: string]: Json }): TokenCounts | undefined {
  // Chat completions say prompt/completion tokens; the Responses API says input/output tokens.
  const input = count(usage.prompt_tokens) ?? count(usage.input_tokens);
  const output = count(usage.completion_tokens) ?? count(usage.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const details = usage.prompt_tokens_details ?? usage.input_tokens_details;
  const read = count(sub(details, "cached_tokens")) ?? count(usage.prompt_cache_hit_tokens) ??
    count(usage.cached_tokens) ?? count(usage.cache_read_input_tokens) ?? 0;
  const write = count(sub(details, "cache_write_tokens")) ?? count(usage.cache_creation_input_tokens) ?? 0;
  const cacheRead = Math.min(read, input);
  return { input, output, cacheRead, cacheWrite: Math.min(write, input - cacheRead) };
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
  const counts = tokenCounts(usage);
  if (counts === undefined) return undefined;
  const { input, output, cacheRead, cacheWrite } = counts;
  const inputPrice = prices.input_cost_per_token;
  return (input - cacheRead - cacheWrite) * inputPrice +
    cacheRead * (prices.cache_read_input_token_cost ?? inputPrice) +
    cacheWrite * (prices.cache_creation_input_token_cost ?? inputPrice) +
    output * prices.output_cost_per_token;
}

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
  const providerId = provider === undefined ? undefined : PROVIDER_IDS[provider];
  const key = `${providerId ?? ""}/${name}`;
  let found = LOOKUPS.get(key);
  if (!found) LOOKUPS.set(key, found = lookUp(name, providerId));
  const priced = await found;
  if (priced === undefined) return undefined;
  return {
    name: priced.name,
    cost(usage) {
      const counts = tokenCounts(usage);
      return counts && priced.price(counts, new Date());
    },
  };
}

/** The lookups of this process, by provider id and name: a batch's episodes look a model up once. */
const LOOKUPS = new Map<string, Promise<ModelPrice | undefined>>();

/** A model name without the provider prefixes that may lead it (`openrouter/anthropic/x` -> `x`). */
const bare = (name: string) => name.slice(name.lastIndexOf("/") + 1).toLowerCase();

/**
 * Whether a response's `model` is the configured one: the same name (provider prefixes aside), or a
 * dated snapshot of it (`gpt-5-mini` answered as `gpt-5-mini-2025-08-07`).
 */
export function sameModel(served: string, configured: string): boolean {
  const [a, b] = [bare(served), bare(configured)];
  return a === b || a.startsWith(`${b}-`) || b.startsWith(`${a}-`);
}

/** What the policy needs to know. */
export interface CostPolicyOptions {
  /** Configured prices, if any (they win over the database). */
  prices: Prices | undefined;
  endpoint: Endpoint;
  /** The agent's cost limit in dollars (0 = none). */
  costLimit: number;
  /** `cost_tracking: ignore_errors`: an unknown cost is 0, silently. */
  ignoreErrors: boolean;
  /** Warnings, one line each. */
  log: (line: string) => void;
}

/** The cost policy of one model client. */
export class CostPolicy {
  readonly #o: CostPolicyOptions;
  /** Whether the price database is consulted when a response carries no cost. */
  readonly #useDatabase: boolean;
  /** A local server's call without a reported cost or a configured price costs nothing. */
  readonly #free: boolean;
  /** Whether the database may price the model a response names (a paid provider, or a limit to keep). */
  readonly #priceServed: boolean;
  #database: Promise<PriceEntry | undefined> | undefined;
  readonly #served = new Map<string, Promise<PriceEntry | undefined>>();
  #warned = false;

  /**
   * @param options prices, endpoint, limit and logging
   * @throws {ConfigError} when a limit is set for a provider that reports no cost and that neither
   *   configured prices nor the database can price (local servers)
   */
  constructor(options: CostPolicyOptions) {
    this.#o = options;
    const { prices, endpoint, costLimit } = options;
    const provider = endpoint.provider;
    this.#free = prices === undefined && provider !== undefined && PROVIDERS[provider]?.local === true;
    // The database prices the paid providers' models (also OpenRouter's, should a response lack its
    // cost), and any model when a limit must be enforced.
    const local = provider !== undefined && PROVIDERS[provider]?.local === true;
    this.#priceServed = !local && (provider !== undefined ? pricedProvider(provider) : costLimit > 0);
    this.#useDatabase = prices === undefined && !this.#free && this.#priceServed;
    if (costLimit > 0 && prices === undefined && !this.#useDatabase && !this.#free) this.#cannotEnforce();
  }

  /**
   * Decide, before the first call, whether the cost limit can be enforced: look the model up in the
   * price database when a limit is set and the provider puts no cost in its responses. Without a
   * limit the lookup waits for the first response, off the start-up path.
   *
   * @throws {ConfigError} when a limit is set, the provider reports no cost and no price is known
   */
  async ready(): Promise<void> {
    if (this.#o.costLimit === 0 || !this.#useDatabase || this.#o.endpoint.reportsCost !== "no") return;
    if ((await this.#lookup()) !== undefined) return;
    // An Azure deployment's name is often no model's: litellm prices the call by the model the answer names.
    if (PROVIDERS[this.#o.endpoint.provider ?? ""]?.azure) return;
    this.#cannotEnforce();
  }

  /**
   * The cost of one call.
   *
   * @param usage the response's `usage`, if any
   * @param served the response's `model`, if it names one
   * @returns dollars (0 when unknown and no limit is set, with one warning)
   * @throws {ConfigError} when the cost is unknown and a limit is set
   */
  async cost(usage: { [key: string]: Json } | undefined, served?: string): Promise<number> {
    const reported = callCost(usage, undefined);
    if (reported !== undefined) return reported;
    if (usage !== undefined && served && this.#priceServed && !sameModel(served, this.#o.endpoint.model)) {
      let entry = this.#served.get(served);
      if (!entry) this.#served.set(served, entry = findServedPrice(served));
      const priced = (await entry)?.cost(usage);
      if (priced !== undefined) return priced;
    }
    let cost = callCost(usage, this.#o.prices);
    if (cost === undefined && this.#useDatabase && usage !== undefined) {
      cost = (await this.#lookup())?.cost(usage);
    }
    return cost ?? (this.#free ? 0 : this.#unknown());
  }

  #lookup(): Promise<PriceEntry | undefined> {
    return this.#database ??= findPrice(this.#o.endpoint.model, this.#o.endpoint.provider);
  }

  #cannotEnforce(): void {
    const { costLimit, endpoint, ignoreErrors, log } = this.#o;
    if (ignoreErrors) {
      log(`warning: the cost limit ($${costLimit}) cannot be enforced: model cost is untracked`);
    } else if (endpoint.reportsCost === "no") {
      throw new ConfigError(this.#noPrice(`${endpoint.baseUrl} puts no cost in its responses`));
    }
  }

  /** The message for a cost limit that cannot be enforced: what is missing and how to set it. */
  #noPrice(why: string): string {
    return `Cannot enforce the cost limit ($${this.#o.costLimit}): ${why}, and no price is known for model ` +
      `"${this.#o.endpoint.model}" (model.input_cost_per_token and model.output_cost_per_token are unset` +
      `${this.#useDatabase ? " and the price database @pydantic/genai-prices has no entry for it" : ""}); ` +
      `set both (dollars per token, e.g. input_cost_per_token: 3.0e-06), or agent.cost_limit: 0, or ` +
      `model.cost_tracking: ignore_errors`;
  }

  #unknown(): number {
    if (this.#o.ignoreErrors) return 0;
    const why = `the response from ${this.#o.endpoint.baseUrl} has no usage.cost`;
    if (this.#o.costLimit > 0) {
      throw new ConfigError(this.#noPrice(`${why}, so the cost of the call just made is unknown`));
    }
    if (!this.#warned) {
      this.#warned = true;
      this.#o.log(
        `warning: counting model calls as $0: ${why} and no price is known for model ` +
          `"${this.#o.endpoint.model}"; set model.input_cost_per_token and model.output_cost_per_token ` +
          "(dollars per token), or model.cost_tracking: ignore_errors",
      );
    }
    return 0;
  }
}
