/**
 * `claudius batch`: many episodes in one process. A pool of async workers (each bound to a docker
 * host when several are given) takes instances from one queue; every instance is one
 * {@link runEpisode} with its own abort controller and its trajectory in `<out>/<id>/<id>.traj.json`.
 * `preds.json` and the exit-status summary are rewritten atomically as instances finish. A rerun
 * skips finished instances (see `classifyTrajectory`) and redoes the rest. Each instance runs under
 * a claim (`_claims.ts`); one held elsewhere is left only to a holder seen alive at the end.
 *
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { resolvePath } from "../lib/paths.ts";
import { type DockerHostSpec, workerSlots } from "./_workers.ts";
import { loadInstances } from "./instances.ts";
import { checkAtifPaths, checkWorkspaces } from "./instance_config.ts";
import { selectInstancesGuarded, type Selection } from "./select.ts";
import { resolveShard } from "./shard.ts";
import type { ArmsOptions, ArmsSummary, BatchDeps, BatchOptions, BatchSummary } from "./types.ts";
import { leaseMs } from "./_claims.ts";
import { MODES } from "./modes.ts";
import { openOutput, type Output, outputLabel, sortInstances } from "./_outputs.ts";
import { checkLayout, places, trialInstances } from "./_trials.ts";
import { BatchRun } from "./_batch_run.ts";

export { type DockerHostSpec, workerSlots };
export { MAX_TRIALS } from "./_trials.ts";
export type { Arm, ArmsOptions, ArmsSummary, BatchDeps, BatchOptions, BatchSummary } from "./types.ts";

/**
 * Run a batch of one trial: every selected instance not finished yet, into `outDir` (`trials` is
 * ignored: {@link runArms} with one arm named "" runs trials).
 * @throws {ConfigError} bad instances file; {@link UsageError} bad selection
 */
export async function runBatch(options: BatchOptions, deps: BatchDeps): Promise<BatchSummary> {
  const { config, prompts, run, ...rest } = options;
  const arm = { name: "", config, ...(prompts ? { prompts } : {}), ...(run ? { run } : {}) };
  const [only] = (await runOutputs({ ...rest, trials: 1, arms: [arm] }, deps, false)).arms;
  if (!only) throw new Error("Cannot summarise the batch: its output directory is missing");
  return only.summary;
}

/**
 * Run an ablation: every selected instance under every arm, each arm into `<outDir>/<name>` (a
 * batch output directory of its own: finished instances skipped, claims and results per arm), from
 * one queue ordered instance by instance (i1 under each arm, then i2 under each arm, ...) so that
 * whatever drifts over time (the provider, the machine's load) falls on every arm alike. With
 * `trials` K > 1 each arm runs every instance K times, trial k into `<outDir>/<name>/trial-<k>` (an
 * arm named "" into `<outDir>/trial-<k>`), trial by trial.
 * @throws {ConfigError} bad instances file, arms sharing a local working directory, or trials where a
 *   batch of one trial lives (and the reverse); {@link UsageError} bad selection
 */
export function runArms(options: ArmsOptions, deps: BatchDeps): Promise<ArmsSummary> {
  return runOutputs(options, deps, options.arms.some((a) => a.name !== ""));
}

async function runOutputs(options: ArmsOptions, deps: BatchDeps, nested: boolean): Promise<ArmsSummary> {
  const now = deps.now ?? Date.now;
  const startedAt = now();
  const root = resolvePath(options.outDir, deps.cwd);
  const trials = options.trials ?? 1;
  checkAtifPaths(options.arms);
  const lease = leaseMs(deps.hostEnv);
  const { shard: spec, ...chosen } = options.selection;
  const { shard, note: shardNote } = resolveShard(spec, deps.hostEnv);
  // With trials, a shard takes its share of the (trial, instance) units instead of the instances.
  const selection: Selection = { ...chosen, ...(shard && trials === 1 ? { shard } : {}) };
  const rules = MODES[options.mode ?? "plain"];
  const all =
    (await loadInstances(resolvePath(options.instancesPath, deps.cwd), { taskRequired: rules.taskRequired }))
      .map((inst) => rules.prepare(inst, deps.hostEnv));
  const selected = await selectInstancesGuarded(all, selection, {
    ...(deps.filterWorker ? { worker: deps.filterWorker } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const perTrial = trialInstances(selected, trials, trials > 1 ? shard : undefined);
  const rootStat = await Deno.stat(root).catch(() => undefined);
  if (rootStat && !rootStat.isDirectory) {
    throw new ConfigError(`Cannot use -o '${options.outDir}' as the output directory: it is a file`);
  }
  await checkLayout(options.arms, root, trials, options.outDir);
  // `--instance` runs its instance whatever it left before, as upstream's swebench-single does.
  const redo = options.redoExisting || selection.instance !== undefined;
  const where = places(options.arms, root, trials);
  const shared = checkWorkspaces(
    where.map((p) => ({ ...p.arm, name: outputLabel(p.arm.name, p.trial), dir: p.dir, trial: p.trial })),
    selected,
    options.workers,
  );
  const context = { startedAt, now, log: deps.log, leaseMs: lease, rules, env: deps.hostEnv };
  const outputs: Output[] = [];
  try {
    for (const p of where) {
      const o = await openOutput(p.arm, p.dir, context, p.trial, perTrial[(p.trial ?? 1) - 1] ?? []);
      outputs.push(o);
      await sortInstances(o, o.selected, rules, redo);
    }
    const plan = {
      options,
      deps,
      nested,
      rules,
      redo,
      selected,
      trials,
      total: all.length,
      shardNote,
      shared,
      startedAt,
      now,
    };
    return await new BatchRun(plan, outputs).run();
  } finally {
    for (const o of outputs) {
      o.claims.close();
      o.lock.close();
    }
  }
}
