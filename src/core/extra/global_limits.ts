/**
 * Upstream's process-wide limits on model use: `MSWEA_GLOBAL_COST_LIMIT` (dollars) and
 * `MSWEA_GLOBAL_CALL_LIMIT` (calls), shared by every episode of a run or a batch; unset or 0 = none.
 *
 * Upstream counts each call after it returns and raises `RuntimeError("Global cost/call limit
 * exceeded: ...")` from the call that crosses a limit, discarding that (paid) response. claudius
 * counts the same calls but refuses the next call instead: the same calls are billed, none is thrown
 * away, and a batch starts no new instance once a limit is reached.
 *
 * @module
 */
import { decimalNumber } from "../../lib/flags.ts";
import { ConfigError, GLOBAL_LIMIT_MESSAGE, RuntimeError } from "../errors.ts";
import type { ChatClient, ChatRequest, Completion } from "../types.ts";

/** A global limit was reached: upstream's `RuntimeError` (its exit status). */
export class GlobalLimitExceeded extends RuntimeError {}

function limit(env: Readonly<Record<string, string | undefined>>, name: string, integer: boolean): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return 0;
  const n = decimalNumber(raw);
  if (n === undefined || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new ConfigError(`${name} must be a ${integer ? "whole " : ""}number >= 0, got '${raw}'`);
  }
  return n;
}

/** The cost and calls of every model call in this process, and the limits on them. */
export class GlobalLimits {
  /** Dollars spent so far. */
  cost = 0;
  /** Model calls made so far (format errors included: they were billed). */
  calls = 0;

  /**
   * Limits shared by every run of the process; each 0 means none.
   * @param costLimit dollars; 0 = none
   * @param callLimit calls; 0 = none
   * @param silent `MSWEA_SILENT_STARTUP` is set: the limits are not announced
   */
  constructor(readonly costLimit = 0, readonly callLimit = 0, readonly silent = false) {}

  /**
   * The limits upstream reads from the environment.
   * @example
   * ```ts
   * import { GlobalLimits } from "./global_limits.ts";
   * const limits = GlobalLimits.fromEnv({ MSWEA_GLOBAL_CALL_LIMIT: "2" });
   * limits.add(0.5);
   * limits.add(0.5);
   * limits.exceeded; // true: a third call would be refused
   * ```
   * @throws {ConfigError} naming the variable when its value is not a number >= 0
   */
  static fromEnv(env: Readonly<Record<string, string | undefined>>): GlobalLimits {
    return new GlobalLimits(
      limit(env, "MSWEA_GLOBAL_COST_LIMIT", false),
      limit(env, "MSWEA_GLOBAL_CALL_LIMIT", true),
      Boolean(env.MSWEA_SILENT_STARTUP),
    );
  }

  /** True when some limit is set. */
  get active(): boolean {
    return this.costLimit > 0 || this.callLimit > 0;
  }

  /** Upstream's start-up line, `Global cost/call limit: $<cost> / <calls>`. */
  describe(): string {
    return `Global cost/call limit: $${this.costLimit.toFixed(4)} / ${this.callLimit}`;
  }

  /** {@link describe}'s line when some limit is set, unless `MSWEA_SILENT_STARTUP` (as upstream prints it). */
  announcement(): string | undefined {
    return this.active && !this.silent ? this.describe() : undefined;
  }

  /** True once no further call may be made (upstream's conditions: cost above, calls at the limit). */
  get exceeded(): boolean {
    return (0 < this.costLimit && this.costLimit < this.cost) ||
      (0 < this.callLimit && this.callLimit <= this.calls);
  }

  /**
   * Refuse a call once a limit is reached.
   * @throws {GlobalLimitExceeded} with upstream's message
   */
  check(): void {
    if (this.exceeded) {
      throw new GlobalLimitExceeded(`${GLOBAL_LIMIT_MESSAGE}: $${this.cost.toFixed(4)} / ${this.calls}`);
    }
  }

  /** Count one call and its cost. */
  add(cost: number): void {
    this.cost += cost;
    this.calls++;
  }

  /** `client` with every completed call counted here. */
  count(client: ChatClient): ChatClient {
    return {
      complete: async (request: ChatRequest, signal?: AbortSignal): Promise<Completion> => {
        const completion = await client.complete(request, signal);
        this.add(completion.cost);
        return completion;
      },
    };
  }
}
