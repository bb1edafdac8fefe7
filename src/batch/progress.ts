/**
 * Batch progress: a live display on a terminal (an overall bar with done/total, elapsed time, ETA
 * and total cost; counts by exit status; one row per running instance with its step, cost and
 * time), redrawn with ANSI escapes at most 4 times a second; plain lines otherwise (one per
 * instance start and finish). Either way a final summary. Instance ids, statuses and error texts come
 * from instance files and providers: their control characters are shown escaped, never sent raw.
 *
 * @module
 */
import type { BatchSummary } from "./types.ts";
import { EXIT_CODES } from "../core/host.ts";
import { INFRASTRUCTURE_STATUSES } from "../core/endings.ts";
import { SIGNAL_STATUSES } from "../core/errors.ts";
import { escapeControls, escapeLine } from "../lib/safe_text.ts";

/** How the display writes and what it knows about the terminal. */
export interface ProgressDeps {
  /** Write text as is (the display adds its own newlines). */
  write: (text: string) => void;
  /** True for the live display, false for plain lines. */
  live: boolean;
  /** Terminal rows (limits the running rows shown). */
  rows?: () => number;
  /** Wall clock in milliseconds (default `Date.now`). */
  now?: () => number;
}

interface Running {
  started: number;
  steps: number;
  cost: number;
  where: string;
}

const REDRAW_MS = 250;

/** Duration as `H:MM:SS`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

/** Ids for a summary line: the first 20, then how many more. */
function idList(ids: string[]): string {
  return ids.slice(0, 20).map(escapeLine).join(", ") +
    (ids.length > 20 ? `, and ${ids.length - 20} more` : "");
}

/**
 * The one error every instance this invocation ran ended with, if they all ended with the same one: a
 * harness error (an exception's name: `ConfigError`, `AuthenticationError`, ...) or an infrastructure
 * ending ({@link INFRASTRUCTURE_STATUSES}: `EnvironmentLost`, `APIConnectionError`, ...), not an
 * agent's ending (`Submitted`, `LimitsExceeded`, ...), a signal (the batch was stopped) or a lost
 * claim. Such a batch failed, whatever its instances count as: it exits non-zero (`mini-extra` too,
 * where upstream's runners exit 0), so that a setup error repeated over every instance never reads as
 * a batch that is done. The one rule; `claudius batch` and the summary read it here.
 */
export function failedAlike(s: BatchSummary): string | undefined {
  const statuses = Object.keys(s.byStatus);
  const [only] = statuses;
  if (statuses.length !== 1 || only === undefined || only === "LeaseLost") return undefined;
  if (Object.values(SIGNAL_STATUSES).includes(only)) return undefined;
  return INFRASTRUCTURE_STATUSES.has(only) || !Object.hasOwn(EXIT_CODES, only) ? only : undefined;
}

/**
 * The summary printed when a batch ends: what ran (throughput), counts by exit status, what is left,
 * where the results are.
 */
export function summaryLines(s: BatchSummary): string[] {
  const ran = Object.values(s.byStatus).reduce((n, ids) => n + ids.length, 0);
  const perMin = s.elapsedMs > 0 ? (ran / (s.elapsedMs / 60000)).toFixed(1) : "-";
  const lines = [
    `claudius batch: ${ran} instance(s) run in ${formatDuration(s.elapsedMs)} (${perMin}/min), ` +
    `${s.skipped} skipped as finished, ${s.selected} selected`,
    ...Object.entries(s.byStatus).sort((a, b) => b[1].length - a[1].length)
      .map(([status, ids]) => `  ${escapeLine(status)}: ${ids.length}`),
  ];
  const alike = failedAlike(s);
  if (alike) {
    lines.push(
      `every instance run ended with ${escapeLine(alike)}: the batch failed (see the errors above; fix the ` +
        "cause and rerun)",
    );
  }
  if (s.unfinished.length) {
    lines.push(`unfinished (rerun to retry): ${s.unfinished.map(escapeLine).join(", ")}`);
  }
  for (const engine of s.enginesDown ?? []) {
    lines.push(`engine set aside (rerun once it works): ${escapeLine(engine)}`);
  }
  if (s.notStarted.length) {
    const why = s.globalLimitReached
      ? "the global cost/call limit was reached; rerun to continue"
      : s.interrupted
      ? "the batch was stopped; rerun to continue"
      : s.enginesDown?.length
      ? "no engine was left to run them; rerun once it works"
      : "see the errors above; rerun to retry";
    lines.push(`not started: ${s.notStarted.length} (${why}): ${idList(s.notStarted)}`);
  }
  if (s.elsewhere.length) {
    lines.push(`left to other processes running them: ${s.elsewhere.map(escapeLine).join(", ")}`);
  }
  if (s.predsPath) lines.push(`predictions: ${s.predsPath}`);
  if (s.statusesPath) lines.push(`exit statuses: ${s.statusesPath}`);
  if (s.notPassAt1) lines.push("best-of-k (mechanisms.reroll): these results are not pass@1");
  return lines;
}

/** Progress of one batch invocation. */
export class BatchProgress {
  readonly #deps: ProgressDeps;
  readonly #now: () => number;
  readonly #start: number;
  #total: number;
  readonly #running = new Map<string, Running>();
  readonly #byStatus = new Map<string, number>();
  #done = 0;
  #cost = 0;
  #drawn = 0;
  #dirty = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  /**
   * @param total instances this invocation runs
   * @param deps output, live or plain, terminal size, clock
   */
  constructor(total: number, deps: ProgressDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#start = this.#now();
    this.#total = total;
    if (deps.live) {
      this.#timer = setInterval(() => this.#dirty && this.#redraw(), REDRAW_MS);
      this.#redraw();
    }
  }

  /** Number of instances finished so far. */
  get done(): number {
    return this.#done;
  }

  /** Total cost so far (finished and running instances). */
  get cost(): number {
    let running = 0;
    for (const r of this.#running.values()) running += r.cost;
    return this.#cost + running;
  }

  /** An instance started (`where`: its docker host, or ""). */
  start(id: string, where = ""): void {
    this.#running.set(id, { started: this.#now(), steps: 0, cost: 0, where });
    if (this.#deps.live) this.#dirty = true;
    else {
      const on = where ? ` on ${escapeLine(where)}` : "";
      this.#deps.write(`[${this.#done}/${this.#total}] start ${escapeLine(id)}${on}\n`);
    }
  }

  /** An instance made progress. */
  update(id: string, steps: number, cost: number): void {
    const r = this.#running.get(id);
    if (!r) return;
    r.steps = steps;
    r.cost = cost;
    this.#dirty = true;
  }

  /** An instance ended with `status`. */
  finish(id: string, status: string, detail = ""): void {
    const r = this.#running.get(id);
    this.#running.delete(id);
    this.#done++;
    this.#cost += r?.cost ?? 0;
    this.#byStatus.set(status, (this.#byStatus.get(status) ?? 0) + 1);
    if (this.#deps.live) {
      this.#dirty = true;
      return;
    }
    const took = r ? formatDuration(this.#now() - r.started) : "";
    const cost = (r?.cost ?? 0).toFixed(2);
    this.#deps.write(
      `[${this.#done}/${this.#total}] ${escapeLine(id)}: ${escapeLine(status)} (${r?.steps ?? 0} steps, ` +
        `$${cost}, ${took})${detail ? `: ${escapeLine(detail)}` : ""}\n`,
    );
  }

  /** A running instance left to another process after all (its row goes; it may come back). */
  abandon(id: string, why: string): void {
    this.#running.delete(id);
    this.log(`${id}: ${why}`);
  }

  /** An instance this invocation will not run after all (one line, and one fewer to do). */
  skip(id: string, why: string): void {
    this.#total--;
    this.log(`${escapeLine(id)}: ${escapeLine(why)}`);
  }

  /** Print a line above the live display (or as is), its control characters escaped. */
  log(line: string): void {
    line = escapeControls(line);
    if (!this.#deps.live) return this.#deps.write(line + "\n");
    this.#deps.write(this.#clear() + line + "\n");
    this.#drawn = 0;
    this.#dirty = true;
  }

  /** Stop redrawing; leave the last frame on screen. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#deps.live) this.#redraw();
  }

  /** The lines of the current frame (plain text). */
  frame(): string[] {
    const elapsed = this.#now() - this.#start;
    const width = 30;
    const filled = this.#total ? Math.round((this.#done / this.#total) * width) : width;
    const eta = this.#done ? formatDuration((elapsed / this.#done) * (this.#total - this.#done)) : "-";
    const lines = [
      `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${this.#done}/${this.#total}  ` +
      `elapsed ${formatDuration(elapsed)}  eta ${eta}  $${this.cost.toFixed(2)}`,
    ];
    const counts = [...this.#byStatus].sort((a, b) => b[1] - a[1]).map(([s, n]) => `${escapeLine(s)} ${n}`);
    lines.push(counts.length ? counts.join("  ") : "no instance finished yet");
    const room = Math.max(1, (this.#deps.rows?.() ?? 24) - 4);
    const rows = [...this.#running].sort((a, b) => a[1].started - b[1].started);
    for (const [raw, r] of rows.slice(0, room)) {
      const id = escapeLine(raw);
      lines.push(
        `  ${id.length > 40 ? "..." + id.slice(-37) : id.padEnd(40)} step ${String(r.steps).padStart(4)}  ` +
          `$${r.cost.toFixed(2)}  ${formatDuration(this.#now() - r.started)}${
            r.where ? `  ${escapeLine(r.where)}` : ""
          }`,
      );
    }
    if (rows.length > room) lines.push(`  ... and ${rows.length - room} more running`);
    return lines;
  }

  #clear(): string {
    return this.#drawn ? `\x1b[${this.#drawn}F\x1b[J` : "";
  }

  #redraw(): void {
    this.#dirty = false;
    const lines = this.frame();
    this.#deps.write(this.#clear() + lines.map((l) => l + "\x1b[K").join("\n") + "\n");
    this.#drawn = lines.length;
  }
}
