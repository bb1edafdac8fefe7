/**
 * Which engines a batch still gives work to. An engine that does not answer, cannot be reached, or
 * fails to start containers fails each instance in milliseconds, so its workers would drain the
 * queue into failures: such an engine is set aside (its workers stop; the other engines go on; what
 * it failed is left unfinished for a rerun), and the batch says so once. Start failures set aside
 * only an engine that is not the last one left (see {@link START_FAILURES_IN_A_ROW}).
 *
 * @module
 */
import type { EngineFault } from "../core/types.ts";

/**
 * Start failures in a row (no container started between) that set an engine aside while another
 * engine is left to take its work. One is not enough: a batch with an image per instance may miss
 * one image; two different instances in a row suggest the engine (its images, its registry) is the
 * problem. The last engine left is never set aside for start failures: they may be its instances'
 * own (two missing images in a row), and setting it aside would leave every instance after them
 * unstarted, on every rerun again; its instances fail one by one instead.
 */
export const START_FAILURES_IN_A_ROW = 2;

/** The engines set aside so far and why. */
export class EngineHealth {
  readonly #engines: Set<string>;
  readonly #down = new Map<string, string>();
  readonly #failures = new Map<string, number>();

  /** @param engines every engine the batch uses ("" for the default) */
  constructor(engines: Iterable<string>) {
    this.#engines = new Set(engines);
  }

  /** Whether engine `host` ("" for the default) gets no more work. */
  isDown(host: string): boolean {
    return this.#down.has(host);
  }

  /** The engines set aside, each as `<engine>: <why>`. */
  get down(): string[] {
    return [...this.#down].map(([host, why]) => `${host || "the default engine"}: ${why}`);
  }

  /**
   * Record how an instance on engine `host` ended: the engine's fault, or none (its container
   * started, or it never came to one).
   * @param started the instance's environment started (the engine worked)
   * @returns the one line announcing that the engine is set aside, when this did it
   */
  record(host: string, fault: EngineFault | undefined, started: boolean): string | undefined {
    if (this.#down.has(host)) return undefined;
    if (!fault) {
      if (started) this.#failures.delete(host);
      return undefined;
    }
    const failures = (this.#failures.get(host) ?? 0) + 1;
    this.#failures.set(host, failures);
    if (fault.kind === "start" && (failures < START_FAILURES_IN_A_ROW || this.#lastLeft(host))) {
      return undefined;
    }
    const why = fault.kind === "down"
      ? fault.message
      : `${failures} instances in a row could not start (last: ${fault.message})`;
    this.#down.set(host, why);
    return `claudius batch: engine ${host || "(default)"} set aside: ${why}; no more instances go there ` +
      "(the other engines go on; a rerun redoes what it left unfinished)";
  }

  /** Whether `host` is the only engine not set aside. */
  #lastLeft(host: string): boolean {
    return [...this.#engines].every((e) => e === host || this.#down.has(e));
  }
}
