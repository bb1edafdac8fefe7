/**
 * What `claudius report` draws, reduced from the trajectory files: one small record per trajectory
 * (its figures and its *shape*, the action type of every step), grouped in one set per path the
 * user gave. Each trajectory is dropped as soon as it is reduced, so a thousand files never sit in
 * memory together.
 *
 * @module
 */
import {
  ACTION_TYPES,
  type ActionType,
  cachedStepClassifier,
  type ClassifyOptions,
  classifySteps,
  type StepLabels,
} from "../trajectories/action_types.ts";
import { findTrajectories } from "../trajectories/find_trajectories.ts";
import { loadTrajectory } from "../trajectories/load_trajectory.ts";
import type { Trajectory } from "../trajectories/types.ts";

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
  /** The run ended with a non-empty submission. */
  submitted: boolean;
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
}

/** A file that could not be read as a trajectory. */
export interface ReportFailure {
  path: string;
  /** One line: what was wrong. */
  message: string;
}

/** One set of runs: the trajectories found under one path. */
export interface ReportSet {
  /** The path as the user gave it. */
  name: string;
  trajectories: ReportTrajectory[];
  failures: ReportFailure[];
}

/** Everything the report shows. */
export interface ReportData {
  sets: ReportSet[];
}

/**
 * Reduce one trajectory to its report record.
 *
 * @example
 * ```ts ignore
 * import { loadTrajectory } from "../trajectories/load_trajectory.ts";
 * import { reportTrajectory } from "./collect_report.ts";
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
  const actionTypes = Object.fromEntries(ACTION_TYPES.map((a) => [a, 0])) as Record<ActionType, number>;
  const labels = classify(t);
  let shape = "";
  t.steps.forEach((step, i) => {
    const l = labels[i]!;
    for (const a of l.actions) if (a.primary) actionTypes[a.primary]++;
    const code = step.kind === "format_error" ? SHAPE_CODES.format_error : SHAPE_CODES[l.primary ?? "none"];
    shape += step.actions.some((a) => a.observation?.timedOut) ? code.toUpperCase() : code;
  });
  const { totals } = t;
  return {
    set,
    path: t.path,
    instanceId: t.instanceId,
    exitStatus: t.exit.status,
    submitted: t.exit.submission !== "",
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
  };
}

/** Options of {@link collectReport}. */
export interface CollectOptions extends ClassifyOptions {
  /** Files read at once (default 4). */
  concurrency?: number;
}

/**
 * Find and reduce the trajectories under each path: one set per path. Files that cannot be read
 * are kept as failures of their set, not thrown.
 *
 * @example
 * ```ts ignore
 * import { collectReport } from "./collect_report.ts";
 * const data = await collectReport(["runs_a/", "runs_b/"]);
 * data.sets[1]!.trajectories.length;
 * ```
 * @param paths files and directories, one set each
 * @param options reference names and concurrency
 * @throws {Deno.errors.NotFound} naming a path that does not exist
 */
export async function collectReport(
  paths: readonly string[],
  options: CollectOptions = {},
): Promise<ReportData> {
  const sets: ReportSet[] = [];
  const classify = cachedStepClassifier(options);
  for (const [index, name] of paths.entries()) {
    const files = await findTrajectories([name]);
    const slots: (ReportTrajectory | ReportFailure)[] = new Array(files.length);
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const i = next++;
        const path = files[i]!;
        try {
          slots[i] = reportTrajectory(await loadTrajectory(path), index, classify);
        } catch (e) {
          const message = e instanceof Error ? e.message : String(e);
          slots[i] = { path, message: message.includes(path) ? message : `${path}: ${message}` };
        }
      }
    };
    const n = Math.max(1, Math.min(options.concurrency ?? 4, files.length));
    await Promise.all(Array.from({ length: n }, worker));
    const set: ReportSet = { name, trajectories: [], failures: [] };
    for (const slot of slots) {
      if ("shape" in slot) set.trajectories.push(slot);
      else set.failures.push(slot);
    }
    sets.push(set);
  }
  return { sets };
}
