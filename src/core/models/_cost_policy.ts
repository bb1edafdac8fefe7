/**
 * What a call costs and what an unknown cost means: the provider's `usage.cost`; else, when the
 * response names another model than the one configured (a gateway's alias answered by a real
 * model), that model's price in the database; else configured prices, else the database's price of
 * the configured name, else nothing for a local server (`hosted_vllm/`, `ollama/`, ...: free); and,
 * with a cost limit set, a refusal before the first call (or after the first call, for endpoints that
 * might have reported cost) when no price can be known.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Json } from "../types.ts";
import { callCost, type Prices } from "./_cost.ts";
import type { Endpoint } from "./_presets.ts";
import { findPrice, findServedPrice, pricedProvider, type PriceEntry } from "./_prices.ts";
import { PROVIDERS } from "./providers.ts";

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
    if ((await this.#lookup()) === undefined) this.#cannotEnforce();
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
