/**
 * The figures of one trajectory and of a set of them: what `claudius stats` prints and `compare`
 * and `report` build on.
 *
 * @module
 */
import { promptsKey, promptsLabel } from "./prompts_source.ts";
import { keyed } from "../../lib/keyed.ts";
import { ACTION_TYPES, type ActionType, type ClassifyOptions, sharedStepClassifier } from "./action_types.ts";
import type { Trajectory } from "./types.ts";
import { resumedFromOf, superseded } from "./superseded.ts";
import { excludedRun } from "./outcome.ts";

/** Counts per action type (primary label of each tool call). */
export type ActionTypeCounts = Record<ActionType, number>;

/** The figures of one trajectory. */
export interface TrajectoryStats {
  path: string;
  instanceId: string;
  /** "" while running, or for a torn file whose exit was lost. */
  exitStatus: string;
  /** Model turns, format-error turns included. */
  steps: number;
  /** Model calls the harness counted (`info.model_stats.api_calls`), else the steps. */
  modelCalls: number;
  formatErrors: number;
  /** Commands run (tool calls with an executed observation). */
  commands: number;
  timeouts: number;
  /** Dollars: `info.model_stats.instance_cost`, else the sum of the per-call costs. */
  cost: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** First to last recorded timestamp, and its split into model and command time (seconds). */
  wallSeconds: number;
  modelSeconds: number;
  commandSeconds: number;
  /** UTF-8 bytes of the submission. */
  submissionBytes: number;
  /** Primary action type of every tool call. */
  actionTypes: ActionTypeCounts;
  /** The file was torn and repaired. */
  repaired: boolean;
  /** A resumed trajectory: the one it went on from (its figures are included in this one's). */
  resumedFrom?: string;
  /** Why the run counts in no rate (an infrastructure ending, see `excludedRun`); absent when it counts. */
  excluded?: string;
  /** Where its prompts came from, in a few words (`upstream 2.4.6`, `claudius 0.1.0`, `unrecorded`). */
  prompts: string;
  /** Equal for two runs exactly when their prompts were the same files (see `prompts_source.ts`). */
  promptsKey: string;
}

/** The figures of a set of trajectories. */
export interface StatsTotal {
  /** The trajectories counted: those no other trajectory of the set resumed. */
  trajectories: number;
  /** Trajectories another one of the set resumed, left out (their resume's figures include theirs). */
  superseded: number;
  /** How many ended with each exit status ("" = not ended). */
  exitStatuses: Record<string, number>;
  steps: number;
  modelCalls: number;
  formatErrors: number;
  commands: number;
  timeouts: number;
  cost: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  wallSeconds: number;
  modelSeconds: number;
  commandSeconds: number;
  submissionBytes: number;
  actionTypes: ActionTypeCounts;
  repaired: number;
  /** How many counted runs each prompts' source ran (by {@link TrajectoryStats.prompts}). */
  prompts: Record<string, number>;
}

/** Zero counts for every action type. */
export function emptyActionTypeCounts(): ActionTypeCounts {
  return keyed(ACTION_TYPES, () => 0);
}

/**
 * The figures of one trajectory.
 *
 * @example
 * ```ts ignore
 * import { loadTrajectory } from "./load_trajectory.ts";
 * import { trajectoryStats } from "./trajectory_stats.ts";
 * const s = trajectoryStats(await loadTrajectory("runs/x.traj.json"));
 * console.log(s.exitStatus, s.steps, s.cost, s.actionTypes.probe);
 * ```
 * @param t the trajectory
 * @param options reference program names for the action types
 */
export function trajectoryStats(t: Trajectory, options: ClassifyOptions = {}): TrajectoryStats {
  const actionTypes = emptyActionTypeCounts();
  for (const step of sharedStepClassifier(options)(t)) {
    for (const a of step.actions) if (a.primary) actionTypes[a.primary]++;
  }
  const { totals } = t;
  const resumed = resumedFromOf(t.info);
  const excluded = excludedRun(t);
  return {
    path: t.path,
    instanceId: t.instanceId,
    exitStatus: t.exit.status,
    steps: t.steps.length,
    modelCalls: t.reportedApiCalls ?? t.steps.length,
    formatErrors: totals.formatErrors,
    commands: totals.commands,
    timeouts: totals.timeouts,
    cost: t.reportedCost ?? totals.cost,
    promptTokens: totals.tokens.prompt,
    completionTokens: totals.tokens.completion,
    cachedTokens: totals.tokens.cached,
    wallSeconds: totals.wallSeconds,
    modelSeconds: totals.modelSeconds,
    commandSeconds: totals.commandSeconds,
    submissionBytes: new TextEncoder().encode(t.exit.submission).length,
    actionTypes,
    repaired: t.repaired,
    ...(resumed ? { resumedFrom: resumed } : {}),
    ...(excluded ? { excluded } : {}),
    prompts: promptsLabel(t.info),
    promptsKey: promptsKey(t.info),
  };
}

const SUMMED = [
  "steps",
  "modelCalls",
  "formatErrors",
  "commands",
  "timeouts",
  "cost",
  "promptTokens",
  "completionTokens",
  "cachedTokens",
  "wallSeconds",
  "modelSeconds",
  "commandSeconds",
  "submissionBytes",
] as const;

/**
 * Sum a set of trajectories' figures, each resumed chain once: a trajectory another row resumed is
 * left out (counted in `superseded`), its resume's figures including its own.
 *
 * @param rows one entry per trajectory
 */
export function totalStats(rows: readonly TrajectoryStats[]): StatsTotal {
  const gone = superseded(rows);
  const counted = rows.filter((r) => !gone.has(r));
  const total: StatsTotal = {
    trajectories: counted.length,
    superseded: gone.size,
    exitStatuses: {},
    ...keyed(SUMMED, () => 0),
    actionTypes: emptyActionTypeCounts(),
    repaired: 0,
    prompts: {},
  };
  for (const r of counted) {
    total.prompts[r.prompts] = (total.prompts[r.prompts] ?? 0) + 1;
    total.exitStatuses[r.exitStatus] = (total.exitStatuses[r.exitStatus] ?? 0) + 1;
    for (const k of SUMMED) total[k] += r[k];
    for (const t of ACTION_TYPES) total.actionTypes[t] += r.actionTypes[t];
    if (r.repaired) total.repaired++;
  }
  return total;
}

/** Each action type's share of the counted tool calls (0 when there are none). */
export function actionTypeShares(counts: ActionTypeCounts): Record<ActionType, number> {
  const n = ACTION_TYPES.reduce((sum, t) => sum + counts[t], 0);
  return keyed(ACTION_TYPES, (t) => n ? counts[t] / n : 0);
}
