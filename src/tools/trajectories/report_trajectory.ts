/**
 * What `claudius report` keeps of one trajectory: a small record of its figures and its *shape*
 * (the action type of every step). The reduction runs in `mapTrajectoriesParallel()`'s workers
 * (mapper `report` in `trajectory_mappers.ts`), so the trajectory itself never leaves the worker.
 *
 * @module
 */
import { keyed } from "../../lib/keyed.ts";
import {
  ACTION_TYPES,
  type ActionType,
  type ClassifyOptions,
  classifySteps,
  sharedStepClassifier,
  type StepLabels,
} from "./action_types.ts";
import type { Trajectory } from "./types.ts";
import { excludedRun, isSubmitted } from "./outcome.ts";
import { configLabel } from "./config_label.ts";
import { resumedFromOf } from "./superseded.ts";

/**
 * One character per step of a shape: the first letter of the step's primary action type
 * (`w`rite, `e`xecute, `p`robe, `r`ead, `o`ther), `f` for a format-error turn, `-` for a step
 * with no command; upper case when a command of the step timed out.
 */
export const SHAPE_CODES: Record<ActionType | "format_error" | "none", string> = {
  write: "w",
  execute: "e",
  probe: "p",
  read: "r",
  other: "o",
  format_error: "f",
  none: "-",
};

/** The figures of one trajectory in the report. */
export interface ReportTrajectory {
  /** Index of its set in {@link ReportData.sets}. */
  set: number;
  path: string;
  instanceId: string;
  /** "" when the run has not ended (or its end was torn off). */
  exitStatus: string;
  /** The run ended `Submitted` (see `outcome.ts`: an empty submission counts). */
  submitted: boolean;
  /** UTF-8 bytes of the submission. */
  submissionBytes: number;
  /** The config it ran with, in a few words (see `configLabel`). */
  config: string;
  /** Model turns, format errors included. */
  steps: number;
  formatErrors: number;
  timeouts: number;
  /** Dollars: `info.model_stats.instance_cost`, else the sum of the per-call costs. */
  cost: number;
  promptTokens: number;
  completionTokens: number;
  /** First to last recorded timestamp, in seconds. */
  wallSeconds: number;
  modelName: string;
  /** The file was torn and repaired. */
  repaired: boolean;
  /** One {@link SHAPE_CODES} character per step. */
  shape: string;
  /** Primary action type of every tool call, counted. */
  actionTypes: Record<ActionType, number>;
  /** A resumed trajectory: the one it went on from (`info.resumed_from`). */
  resumedFrom?: string;
  /** Why the run counts in no rate (an infrastructure ending, see `excludedRun`); absent when it counts. */
  excluded?: string;
  /** Its trial in a set of several (`trial-2`), set when the set is collected. */
  trial?: string;
}

/**
 * Reduce one trajectory to its report record.
 *
 * @example
 * ```ts ignore
 * import { loadTrajectory } from "./load_trajectory.ts";
 * import { reportTrajectory } from "./report_trajectory.ts";
 * reportTrajectory(await loadTrajectory("runs/x.traj.json"), 0).shape; // "rrwepF..."
 * ```
 * @param t the trajectory
 * @param set index of its set
 * @param classify the step classifier (default `classifySteps`)
 */
export function reportTrajectory(
  t: Trajectory,
  set: number,
  classify: (t: Trajectory) => StepLabels[] = classifySteps,
): ReportTrajectory {
  const actionTypes = keyed(ACTION_TYPES, () => 0);
  const labels = classify(t);
  let shape = "";
  t.steps.forEach((step, i) => {
    const l = labels[i]!;
    for (const a of l.actions) if (a.primary) actionTypes[a.primary]++;
    const code = step.kind === "format_error" ? SHAPE_CODES.format_error : SHAPE_CODES[l.primary ?? "none"];
    shape += step.actions.some((a) => a.observation?.timedOut) ? code.toUpperCase() : code;
  });
  const { totals } = t;
  const resumed = resumedFromOf(t.info);
  const excluded = excludedRun(t);
  return {
    set,
    path: t.path,
    instanceId: t.instanceId,
    exitStatus: t.exit.status,
    submitted: isSubmitted(t.exit.status),
    submissionBytes: new TextEncoder().encode(t.exit.submission).length,
    config: configLabel(t),
    steps: t.steps.length,
    formatErrors: totals.formatErrors,
    timeouts: totals.timeouts,
    cost: t.reportedCost ?? totals.cost,
    promptTokens: totals.tokens.prompt,
    completionTokens: totals.tokens.completion,
    wallSeconds: totals.wallSeconds,
    modelName: t.modelName,
    repaired: t.repaired,
    shape,
    actionTypes,
    ...(resumed ? { resumedFrom: resumed } : {}),
    ...(excluded ? { excluded } : {}),
  };
}

/**
 * The `report` mapper: {@link reportTrajectory} with a remembering classifier (set index 0; the
 * caller sets it).
 *
 * @param t the trajectory
 * @param options reference program names
 */
export function reportMapper(t: Trajectory, options: ClassifyOptions): ReportTrajectory {
  return reportTrajectory(t, 0, sharedStepClassifier(options));
}
