/**
 * The batch's shared output files, `preds.json` and `exit_statuses_<unix seconds>.yaml`, and the
 * rule that tells a finished instance from one to redo.
 *
 * Writes are atomic (a temporary file in the same directory, then a rename) and serialised (one
 * write at a time, coalesced: while a write runs, further updates make at most one more). Each
 * write holds the output directory's lock (see `_claims.ts`), reads `preds.json` again and applies
 * only this process's pending changes, so processes sharing the directory never lose each other's
 * entries. Each invocation's exit-status file gets a name no other one has.
 *
 * @module
 */
import { dump } from "js-yaml";
import { errorExitMessage } from "../core/errors.ts";
import { excludedEnding, INFRASTRUCTURE_STATUSES } from "../core/endings.ts";
import { readTrajectory, TrajectoryWriter } from "../core/trajectory.ts";
import type { ExitExtra, Message } from "../core/types.ts";
import type { DirLock } from "./_claims.ts";
import { writeFileAtomic } from "../lib/files.ts";
import { isPlainObject } from "../lib/json.ts";

/**
 * Exit statuses that do not finish an instance: the infrastructure failed under it (see
 * `INFRASTRUCTURE_STATUSES`: the environment was lost, a signal, the provider failed after the
 * retries or refused the key), or another process took its claim over (`LeaseLost`, see `_claims.ts`). A rerun redoes
 * them. (A run that never reached the model, or that the global limit stopped, is recognised by its
 * shape instead, see {@link classifyTrajectory}.)
 */
export const UNFINISHED_STATUSES: ReadonlySet<string> = new Set([...INFRASTRUCTURE_STATUSES, "LeaseLost"]);

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
 * Classify a trajectory's messages. Finished means: the last message is an exit message and its ending
 * is the agent's own (`excludedEnding` in `core/endings.ts`: not an infrastructure status, not the only
 * message, as when `env.start()`, `run.env_startup_command` or the instance's setup failed before the
 * model was reached, not stopped by the global cost/call limit, which a rerun with a larger budget
 * continues), and no other process took the instance over.
 */
export function classifyTrajectory(
  messages: readonly Message[],
  info: Record<string, unknown>,
): TrajectoryState {
  const last = messages.at(-1);
  // Read from disk: the shape is checked, not assumed.
  const extra: Partial<Record<keyof ExitExtra, unknown>> = (last?.role === "exit" ? last.extra : undefined) ??
    {};
  const exited = last?.role === "exit";
  const status = exited && typeof extra.exit_status === "string" ? extra.exit_status : "";
  const model = isPlainObject(info.config) && isPlainObject(info.config.model)
    ? info.config.model
    : undefined;
  const modelName = model?.model_name;
  const content = String(last?.content ?? "");
  const excluded = excludedEnding({ status, messages: messages.length, content });
  return {
    finished: exited && excluded === undefined && !UNFINISHED_STATUSES.has(status),
    failedStart: exited && messages.length === 1 && status !== "" && !UNFINISHED_STATUSES.has(status),
    status,
    submission: typeof extra.submission === "string" ? extra.submission : "",
    modelName: typeof modelName === "string" ? modelName : "",
    error: exited && status !== "Submitted" ? content : "",
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

/** `preds.json` and the exit-status summary of one batch invocation. */
export class ResultFiles {
  /** Path of `preds.json` ("" when the layout has none). */
  readonly predsPath: string;
  /** Instance ids of this invocation by exit status, in finishing order. */
  readonly byStatus: Record<string, string[]> = {};
  /** Some instance ran best-of-k (`mechanisms.reroll`): the summary says `pass_at_1: false`. */
  notPassAt1 = false;
  readonly #outDir: string;
  readonly #startedAt: number;
  readonly #lock: DirLock;
  #statusesPath: string | undefined;
  /** Changes to `preds.json` not written yet. */
  #set = new Map<string, Prediction>();
  #drop = new Set<string>();
  /** Instances whose pending change this process made as their claim's holder. */
  #asHolder = new Set<string>();
  readonly #holds: ((id: string) => Promise<boolean>) | undefined;
  #queue: Promise<void> = Promise.resolve();
  #pending = false;
  #error: unknown = null;

  /**
   * @param outDir the batch output directory (exists)
   * @param startedAt the batch start, epoch milliseconds (names the summary file)
   * @param lock the output directory's lock
   * @param options `preds: false` writes no `preds.json` (ProgramBench's layout has none); `holds`,
   *   asked under the lock, whether this process still holds an instance's claim: a change made as its
   *   holder ({@link dropPrediction}, {@link record}) is not written once it does not
   */
  constructor(
    outDir: string,
    startedAt: number,
    lock: DirLock,
    options: { preds?: boolean; holds?: (id: string) => Promise<boolean> } = {},
  ) {
    this.#outDir = outDir;
    this.#holds = options.holds;
    this.predsPath = options.preds === false ? "" : `${outDir}/preds.json`;
    this.#startedAt = startedAt;
    this.#lock = lock;
  }

  /**
   * Path of this invocation's `exit_statuses_<unix seconds>.yaml` (`..._<seconds>-2.yaml` and so on
   * when another invocation took the name); undefined until the first instance ended.
   */
  get statusesPath(): string | undefined {
    return this.#statusesPath;
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

  /** Remove an instance's prediction (it is about to be redone by this process, its claim's holder). */
  dropPrediction(id: string): void {
    this.#set.delete(id);
    this.#drop.add(id);
    this.#asHolder.add(id);
  }

  /** Record an instance's ending in the summary (and its prediction, when finished), as its claim's holder. */
  record(id: string, status: string, pred: Prediction | null): void {
    (this.byStatus[status] ??= []).push(id);
    if (pred?.pass_at_1 === false) this.notPassAt1 = true;
    if (pred) this.setPrediction(pred);
    this.#asHolder.add(id);
  }

  /** Schedule a write of both files; resolves when the files reflect every change made so far. */
  flush(): Promise<void> {
    if (!this.#pending) {
      this.#pending = true;
      this.#queue = this.#queue.then(async () => {
        this.#pending = false;
        try {
          await this.#lock.with(() => this.#writeAll());
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
    this.#statusesPath ??= await this.#claimStatusesName();
    const sorted = Object.fromEntries(Object.keys(this.byStatus).sort().map((k) => [k, this.byStatus[k]]));
    await writeFileAtomic(
      this.#statusesPath,
      dump(
        { ...(this.notPassAt1 ? { pass_at_1: false } : {}), instances_by_exit_status: sorted },
        { indent: 4, seqNoIndent: true, lineWidth: -1 },
      ),
    );
  }

  async #writePreds(): Promise<void> {
    const [set, drop, asHolder] = [this.#set, this.#drop, this.#asHolder];
    [this.#set, this.#drop, this.#asHolder] = [new Map(), new Set(), new Set()];
    for (const id of asHolder) {
      // Its claim was lost (another process runs it now): what this one had to say of it is not written.
      if (this.#holds && !(await this.#holds(id))) [set.delete(id), drop.delete(id)];
    }
    try {
      let preds: Record<string, unknown> = {};
      let missing = false;
      try {
        const parsed = JSON.parse(await Deno.readTextFile(this.predsPath));
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) preds = parsed;
      } catch (e) {
        // Missing or torn: rebuilt from this batch's entries.
        missing = e instanceof Deno.errors.NotFound;
      }
      for (const id of drop) delete preds[id];
      for (const [id, pred] of set) preds[id] = pred;
      // Made on the first write ({} before any instance ends): a `claudius resume` of an instance
      // killed before then finds it, so the batch keeps one, and records its prediction there.
      if (set.size || drop.size || missing) {
        await writeFileAtomic(this.predsPath, JSON.stringify(preds, null, 2));
      }
    } catch (e) {
      // Not written: keep the changes for the next write, under any made meanwhile.
      for (const id of drop) if (!this.#set.has(id)) this.#drop.add(id);
      for (const [id, pred] of set) if (!this.#set.has(id) && !this.#drop.has(id)) this.#set.set(id, pred);
      for (const id of asHolder) this.#asHolder.add(id);
      throw e;
    }
  }

  /** A summary file name no other invocation has, taken by creating the file (under the lock). */
  async #claimStatusesName(): Promise<string> {
    const base = `${this.#outDir}/exit_statuses_${Math.floor(this.#startedAt / 1000)}`;
    for (let n = 1;; n++) {
      const path = n === 1 ? `${base}.yaml` : `${base}-${n}.yaml`;
      try {
        await Deno.writeTextFile(path, "", { createNew: true });
        return path;
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      }
    }
  }
}

/** The `preds.json` entry of an instance (`pass_at_1: false` for a best-of-k run). */
export function prediction(id: string, model: string, patch: string, bestOfK?: number): Prediction {
  const pred: Prediction = { model_name_or_path: model, instance_id: id, model_patch: patch };
  if (bestOfK) pred.pass_at_1 = false;
  return pred;
}

/** A trajectory holding only the exit message of an instance whose setup failed before runEpisode. */
export async function writeSetupFailure(path: string, id: string, err: Error): Promise<void> {
  const writer = new TrajectoryWriter(path, { top: { instance_id: id } });
  const exit = errorExitMessage(err);
  try {
    await writer.save([exit], { exit_status: err.name, submission: "" });
  } finally {
    writer.close();
  }
}
