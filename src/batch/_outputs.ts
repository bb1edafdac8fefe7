/**
 * The output directories of one batch invocation (the batch's own, or one per arm): each opened
 * under its lock with its claims and result files, the selected instances sorted into finished
 * (skipped) and to run, and summarised at the end.
 *
 * @module
 */
import type { ResolvedConfig } from "../core/config/load.ts";
import { Claims, DirLock, type Sighting } from "./_claims.ts";
import { prediction, ResultFiles, type TrajectoryState, trajectoryState } from "./_results.ts";
import type { ModeRules } from "./modes.ts";
import { newestTrajectory } from "./resumed.ts";
import type { Instance } from "./select.ts";
import type { Prompts } from "../core/config/provenance.ts";
import { RunRecord } from "./run_record.ts";
import type { Arm, BatchSummary } from "./types.ts";
import { trialDir } from "./_trials.ts";

/** One output directory of this invocation (the batch's, or one arm's) and what happened in it. */
export interface Output {
  /** The arm's name; "" for a plain batch. */
  name: string;
  /** The trial (1-based) of a batch of several; undefined for a batch of one trial. */
  trial: number | undefined;
  /** The instances this output runs (its trial's share of the selection). */
  selected: Instance[];
  config: ResolvedConfig;
  /** Where its prompts came from (`info.prompts`). */
  prompts?: Prompts;
  /** This invocation's entry in `<dir>/run.json`. */
  record?: RunRecord;
  dir: string;
  lock: DirLock;
  claims: Claims;
  files: ResultFiles;
  /** Selected instances to run here (not finished). */
  todo: Set<string>;
  skipped: number;
  unfinished: string[];
  elsewhere: string[];
  /** Instances left to another process or found finished by one. */
  passed: Set<string>;
  /** `model.model_name` for predictions whose trajectory does not name it. */
  fallbackModel: string;
}

/** An instance to run in one output directory, and what was seen of another process's claim on it. */
export interface Work {
  inst: Instance;
  output: Output;
  /** Times a claim of another process was found on it. */
  looks: number;
  /** That claim, when first seen unchanged (a renewal since shows its holder alive). */
  seen?: Sighting;
}

/** What opening an output directory needs from the batch. */
export interface OutputContext {
  startedAt: number;
  now: () => number;
  log: (line: string) => void;
  /** Claim lease in milliseconds. */
  leaseMs: number;
  rules: ModeRules;
  /** The environment engines are asked in (image digests for `run.json`). */
  env: Record<string, string>;
}

/** Where an instance's trajectory is saved in an output directory. */
export function trajPath(o: Output, id: string): string {
  return `${o.dir}/${id}/${id}.traj.json`;
}

/** An output's name in keys and messages: `arm`, `trial-k`, `arm/trial-k`, or "" for a plain batch. */
export function outputLabel(arm: string, trial: number | undefined): string {
  return [arm, trial === undefined ? "" : trialDir(trial)].filter(Boolean).join("/");
}

/** An instance's key in keys and messages: `id` behind the output's label (`control/trial-2/id`). */
export function outputKey(o: Pick<Output, "name" | "trial">, id: string): string {
  const label = outputLabel(o.name, o.trial);
  return label ? `${label}/${id}` : id;
}

/**
 * Make the directory and take its lock: an output with nothing sorted yet.
 * @param trial its trial in a batch of several (undefined: one trial)
 * @param selected the instances it runs
 */
export async function openOutput(
  arm: Arm,
  dir: string,
  ctx: OutputContext,
  trial?: number,
  selected: Instance[] = [],
): Promise<Output> {
  await Deno.mkdir(dir, { recursive: true });
  const lock = await DirLock.open(dir);
  const model = arm.config.model.model_name;
  const claims = new Claims(dir, lock, { leaseMs: ctx.leaseMs, now: ctx.now, log: ctx.log });
  const holds = (id: string) => claims.heldLocked(id);
  const facts = arm.run &&
    { ...arm.run, ...(arm.name ? { arm: arm.name } : {}), ...(trial ? { trial } : {}) };
  const record = facts ? await RunRecord.open(dir, lock, facts, ctx.startedAt, ctx.env) : undefined;
  return {
    name: arm.name,
    trial,
    selected,
    config: arm.config,
    ...(arm.prompts ? { prompts: arm.prompts } : {}),
    ...(record ? { record } : {}),
    dir,
    lock,
    claims,
    files: new ResultFiles(dir, ctx.startedAt, lock, { preds: ctx.rules.writesPreds, holds }),
    todo: new Set(),
    skipped: 0,
    unfinished: [],
    elsewhere: [],
    passed: new Set(),
    fallbackModel: typeof model === "string" ? model : "",
  };
}

/**
 * Sort the selected instances into finished (skipped, their predictions kept) and to run; with
 * `redo` every one runs. Writes the result files once.
 */
export async function sortInstances(
  o: Output,
  selected: readonly Instance[],
  rules: ModeRules,
  redo: boolean,
): Promise<void> {
  const inPreds = redo || !rules.writesPreds ? new Set<string>() : await o.files.predictionIds();
  for (const inst of selected) {
    const id = inst.instance_id;
    const state = redo ? null : await trajectoryState(await newestTrajectory(trajPath(o, id)));
    if (!redo && await rules.done(`${o.dir}/${id}`, state, inPreds.has(id))) skipFinished(o, id, state);
    else o.todo.add(id); // its prediction is dropped once this process claims it
  }
  await o.files.flush();
}

/** Count an instance as finished before this run (its prediction kept when its trajectory has one). */
export function skipFinished(o: Output, id: string, state: TrajectoryState | null): void {
  if (state?.finished) {
    o.files.setPrediction(prediction(id, state.modelName, state.submission, state.bestOfK));
  }
  o.skipped++;
}

/** What each output's summary takes from the batch as a whole. */
export interface Ending {
  interrupted: boolean;
  globalLimitReached: boolean;
  enginesDown: string[];
  elapsedMs: number;
}

/** An output directory's summary (after its result files are closed). */
export function summaryOf(o: Output, end: Ending): BatchSummary {
  const started = new Set(Object.values(o.files.byStatus).flat());
  return {
    selected: o.selected.length,
    skipped: o.skipped,
    byStatus: o.files.byStatus,
    unfinished: o.unfinished,
    elsewhere: o.elsewhere,
    notStarted: [...o.todo].filter((id) => !started.has(id) && !o.passed.has(id)),
    interrupted: end.interrupted,
    globalLimitReached: end.globalLimitReached,
    predsPath: o.files.predsPath,
    notPassAt1: o.files.notPassAt1,
    ...(end.enginesDown.length ? { enginesDown: end.enginesDown } : {}),
    statusesPath: o.files.statusesPath,
    elapsedMs: end.elapsedMs,
  };
}
