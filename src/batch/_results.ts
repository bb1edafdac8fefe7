/**
 * The batch's shared output files, `preds.json` and `exit_statuses_<unix seconds>.yaml`, and the
 * rule that tells a finished instance from one to redo.
 *
 * Writes are atomic (a temporary file in the same directory, then a rename) and serialised (one
 * write at a time, coalesced: while a write runs, further updates make at most one more). Before
 * each write `preds.json` is read again and only this batch's entries are changed, so entries of
 * other processes (other shards sharing the directory) survive unless two writes interleave.
 *
 * @module
 */
import { dump } from "js-yaml";
import { SIGNAL_STATUSES } from "../errors.ts";
import { readTrajectory } from "../trajectory.ts";
import type { ExitExtra, Message } from "../types.ts";
import { GLOBAL_LIMIT_MESSAGE } from "../global_limits.ts";

/**
 * Exit statuses that do not finish an instance: the infrastructure failed under it or the batch
 * was stopped. A rerun redoes them. (An environment that never started is recognised by the
 * trajectory's shape instead, see {@link classifyTrajectory}.)
 */
export const UNFINISHED_STATUSES: ReadonlySet<string> = new Set([
  "EnvironmentLost",
  ...Object.values(SIGNAL_STATUSES),
]);

/** One SWE-bench prediction. */
export interface Prediction {
  model_name_or_path: string;
  instance_id: string;
  model_patch: string;
  /** Present (false) when the patch is the best of several attempts (`mechanisms.reroll`). */
  pass_at_1?: false;
}

/** What a trajectory on disk says about its instance. */
export interface TrajectoryState {
  /** True when a rerun skips the instance. */
  finished: boolean;
  /** The episode ended before it reached the model, for a reason other than a signal. */
  failedStart: boolean;
  /** The exit status ("" when the trajectory has no exit message). */
  status: string;
  /** The submission (model patch). */
  submission: string;
  /** `info.config.model.model_name`, or "". */
  modelName: string;
  /** The exit message's text (the error, for failures). */
  error: string;
  /** `info.best_of_k` of a run with rerolls (`mechanisms.reroll`): not pass@1. */
  bestOfK?: number;
}

/**
 * Classify a trajectory's messages. Finished means: the last message is an exit message, its status
 * is not in {@link UNFINISHED_STATUSES}, it is not the only message (runEpisode writes a lone exit
 * message when `env.start()` or `run.env_startup_command` failed, and the batch does when the
 * instance's setup failed: the episode never reached the model), and the run was not stopped by the
 * global cost/call limit (a rerun with a larger budget continues it).
 */
export function classifyTrajectory(messages: Message[], info: Record<string, unknown>): TrajectoryState {
  const last = messages.at(-1);
  // Read from disk: the shape is checked, not assumed.
  const extra: Partial<Record<keyof ExitExtra, unknown>> = (last?.role === "exit" ? last.extra : undefined) ??
    {};
  const status = typeof extra.exit_status === "string" ? extra.exit_status : "";
  const config = info.config as { model?: { model_name?: unknown } } | undefined;
  const modelName = config?.model?.model_name;
  const globalLimit = status === "RuntimeError" &&
    String(last?.content ?? "").startsWith(GLOBAL_LIMIT_MESSAGE);
  return {
    finished: last?.role === "exit" && messages.length > 1 && status !== "" &&
      !UNFINISHED_STATUSES.has(status) && !globalLimit,
    failedStart: last?.role === "exit" && messages.length === 1 && status !== "" &&
      !UNFINISHED_STATUSES.has(status),
    status,
    submission: typeof extra.submission === "string" ? extra.submission : "",
    modelName: typeof modelName === "string" ? modelName : "",
    error: last?.role === "exit" && status !== "Submitted" ? String(last.content ?? "") : "",
    ...(typeof info.best_of_k === "number" ? { bestOfK: info.best_of_k } : {}),
  };
}

/** Read and classify the trajectory at `path`; null when it is missing or unreadable. */
export async function trajectoryState(path: string): Promise<TrajectoryState | null> {
  try {
    const { data } = await readTrajectory(path);
    if (!Array.isArray(data.messages)) return null;
    return classifyTrajectory(data.messages, data.info ?? {});
  } catch {
    return null;
  }
}

/** Write `text` to `path` atomically (temporary file + rename in the same directory). */
export async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${Deno.pid}`;
  await Deno.writeTextFile(tmp, text);
  await Deno.rename(tmp, path);
}

/** `preds.json` and the exit-status summary of one batch invocation. */
export class ResultFiles {
  /** Path of `preds.json`. */
  readonly predsPath: string;
  /** Path of this invocation's `exit_statuses_<unix seconds>.yaml`. */
  readonly statusesPath: string;
  /** Instance ids of this invocation by exit status, in finishing order. */
  readonly byStatus: Record<string, string[]> = {};
  /** Some instance ran best-of-k (`mechanisms.reroll`): the summary says `pass_at_1: false`. */
  notPassAt1 = false;
  readonly #set = new Map<string, Prediction>();
  readonly #drop = new Set<string>();
  #queue: Promise<void> = Promise.resolve();
  #pending = false;
  #error: unknown = null;

  /**
   * @param outDir the batch output directory (exists)
   * @param startedAt the batch start, epoch milliseconds (names the summary file)
   * @param options `preds: false` writes no `preds.json` (ProgramBench's layout has none)
   */
  constructor(outDir: string, startedAt: number, options: { preds?: boolean } = {}) {
    this.predsPath = options.preds === false ? "" : `${outDir}/preds.json`;
    this.statusesPath = `${outDir}/exit_statuses_${Math.floor(startedAt / 1000)}.yaml`;
  }

  /** The ids `preds.json` holds now (none when it is missing or unreadable). */
  async predictionIds(): Promise<Set<string>> {
    if (!this.predsPath) return new Set();
    try {
      const parsed = JSON.parse(await Deno.readTextFile(this.predsPath));
      return new Set(
        parsed && typeof parsed === "object" && !Array.isArray(parsed) ? Object.keys(parsed) : [],
      );
    } catch {
      return new Set();
    }
  }

  /** Set (or refresh) the prediction of an instance. */
  setPrediction(pred: Prediction): void {
    this.#drop.delete(pred.instance_id);
    this.#set.set(pred.instance_id, pred);
  }

  /** Remove an instance's prediction (it is about to be redone). */
  dropPrediction(id: string): void {
    this.#set.delete(id);
    this.#drop.add(id);
  }

  /** Record an instance's ending in the summary (and its prediction, when finished). */
  record(id: string, status: string, pred: Prediction | null): void {
    (this.byStatus[status] ??= []).push(id);
    if (pred?.pass_at_1 === false) this.notPassAt1 = true;
    if (pred) this.setPrediction(pred);
  }

  /** Schedule a write of both files; resolves when the files reflect every change made so far. */
  flush(): Promise<void> {
    if (!this.#pending) {
      this.#pending = true;
      this.#queue = this.#queue.then(async () => {
        this.#pending = false;
        try {
          await this.#writeAll();
        } catch (e) {
          this.#error ??= e;
        }
      });
    }
    return this.#queue;
  }

  /**
   * Wait for every write; rethrow the first write error.
   * @throws {Error} when a file could not be written
   */
  async close(): Promise<void> {
    await this.flush();
    if (this.#error) throw this.#error;
  }

  async #writeAll(): Promise<void> {
    if (this.predsPath) await this.#writePreds();
    if (Object.keys(this.byStatus).length === 0) return;
    const sorted = Object.fromEntries(Object.keys(this.byStatus).sort().map((k) => [k, this.byStatus[k]]));
    await writeAtomic(
      this.statusesPath,
      dump(
        { ...(this.notPassAt1 ? { pass_at_1: false } : {}), instances_by_exit_status: sorted },
        { indent: 4, seqNoIndent: true, lineWidth: -1 },
      ),
    );
  }

  async #writePreds(): Promise<void> {
    let preds: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(await Deno.readTextFile(this.predsPath));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) preds = parsed;
    } catch { /* missing or torn: rebuilt from this batch's entries */ }
    for (const id of this.#drop) delete preds[id];
    for (const [id, pred] of this.#set) preds[id] = pred;
    await writeAtomic(this.predsPath, JSON.stringify(preds, null, 2));
  }
}
