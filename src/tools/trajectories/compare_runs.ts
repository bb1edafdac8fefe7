/**
 * Two sets of runs side by side (e.g. two configs on the same instances): per instance and overall,
 * with the differences called out in words. Pure: works on `trajectoryStats` rows and evaluator
 * results already read.
 *
 * @module
 */
import { isSubmitted } from "./outcome.ts";
import { median } from "../../lib/median.ts";
import { ACTION_TYPES, type ActionType } from "./action_types.ts";
import { type EvalResults, resultOf } from "./eval_results.ts";
import {
  type ActionTypeCounts,
  actionTypeShares,
  totalStats,
  type TrajectoryStats,
} from "./trajectory_stats.ts";

/** One set of runs: a label, one stats row per trajectory, and the evaluator's results if any. */
export interface RunSet {
  label: string;
  rows: TrajectoryStats[];
  results?: EvalResults;
}

/** A set's figures. */
export interface SetSummary {
  label: string;
  instances: number;
  /** Runs that ended `Submitted`, and those of them with an empty submission. */
  submitted: number;
  emptySubmissions: number;
  /** With results: instances the results cover, and how many of them were resolved. */
  evaluated: number | undefined;
  resolved: number | undefined;
  exitStatuses: Record<string, number>;
  meanSteps: number;
  medianSteps: number;
  totalCost: number;
  meanCost: number;
  formatErrors: number;
  timeouts: number;
  actionTypes: ActionTypeCounts;
  /** Each action type's share of the tool calls (0..1). */
  actionTypeShares: Record<ActionType, number>;
}

/** One instance in one set. */
export interface InstanceSide {
  exitStatus: string;
  steps: number;
  cost: number;
  submitted: boolean;
  resolved: boolean | undefined;
  score: number | undefined;
  /** The most frequent primary action type of its tool calls. */
  mainActionType: ActionType | undefined;
  path: string;
}

/** One instance in both sets (a side is undefined when the set lacks it). */
export interface InstanceComparison {
  instanceId: string;
  a: InstanceSide | undefined;
  b: InstanceSide | undefined;
  /** What differs, in words ("resolved only in B", "exit LimitsExceeded -> Submitted", ...). */
  notes: string[];
}

/** The whole comparison. */
export interface Comparison {
  a: SetSummary;
  b: SetSummary;
  /** Instances in both sets, and those in one only. */
  common: number;
  onlyA: string[];
  onlyB: string[];
  /** Per instance, sorted by id. */
  instances: InstanceComparison[];
  /** The overall differences, in words. */
  differences: string[];
  /** Instance ids that appeared more than once in a set (the first trajectory was kept). */
  duplicates: string[];
}

function summarize(set: RunSet, rows: TrajectoryStats[]): SetSummary {
  const total = totalStats(rows);
  const submitted = rows.filter((r) => isSubmitted(r.exitStatus));
  const results = set.results;
  const evaluated = results ? rows.filter((r) => resultOf(results, r.instanceId)) : undefined;
  return {
    label: set.label,
    instances: rows.length,
    submitted: submitted.length,
    emptySubmissions: submitted.filter((r) => r.submissionBytes === 0).length,
    evaluated: evaluated?.length,
    resolved: results && evaluated?.filter((r) => resultOf(results, r.instanceId)?.resolved).length,
    exitStatuses: total.exitStatuses,
    meanSteps: rows.length ? total.steps / rows.length : 0,
    medianSteps: median(rows.map((r) => r.steps)),
    totalCost: total.cost,
    meanCost: rows.length ? total.cost / rows.length : 0,
    formatErrors: total.formatErrors,
    timeouts: total.timeouts,
    actionTypes: total.actionTypes,
    actionTypeShares: actionTypeShares(total.actionTypes),
  };
}

function side(r: TrajectoryStats, results: EvalResults | undefined): InstanceSide {
  const result = results && resultOf(results, r.instanceId);
  const main = ACTION_TYPES.reduce<ActionType | undefined>(
    (
      best,
      t,
    ) => (r.actionTypes[t] > 0 && (best === undefined || r.actionTypes[t] > r.actionTypes[best]) ? t : best),
    undefined,
  );
  return {
    exitStatus: r.exitStatus,
    steps: r.steps,
    cost: r.cost,
    submitted: isSubmitted(r.exitStatus),
    resolved: result?.resolved,
    score: result?.score,
    mainActionType: main,
    path: r.path,
  };
}

/** Index rows by instance id, keeping the first of duplicates. */
function byInstance(rows: TrajectoryStats[], duplicates: Set<string>): Map<string, TrajectoryStats> {
  const map = new Map<string, TrajectoryStats>();
  for (const r of rows) {
    if (map.has(r.instanceId)) duplicates.add(r.instanceId);
    else map.set(r.instanceId, r);
  }
  return map;
}

const pct = (x: number, of: number) => (of ? `${Math.round((100 * x) / of)}%` : "-");
const change = (a: number, b: number) => (a ? `${b >= a ? "+" : ""}${Math.round((100 * (b - a)) / a)}%` : "");

function instanceNotes(
  a: InstanceSide | undefined,
  b: InstanceSide | undefined,
  la: string,
  lb: string,
): string[] {
  if (!a) return [`only in ${lb}`];
  if (!b) return [`only in ${la}`];
  const notes: string[] = [];
  if (a.resolved !== undefined && b.resolved !== undefined && a.resolved !== b.resolved) {
    notes.push(`resolved only in ${a.resolved ? la : lb}`);
  }
  if (a.exitStatus !== b.exitStatus) notes.push(`exit ${a.exitStatus || "-"} -> ${b.exitStatus || "-"}`);
  if (a.steps && b.steps && (b.steps >= 2 * a.steps || a.steps >= 2 * b.steps)) {
    notes.push(`steps ${a.steps} -> ${b.steps}`);
  }
  if (a.cost && b.cost && (b.cost >= 2 * a.cost || a.cost >= 2 * b.cost)) {
    notes.push(`cost x${(b.cost / a.cost).toFixed(1)}`);
  }
  if (a.mainActionType !== b.mainActionType) {
    notes.push(`mostly ${a.mainActionType ?? "-"} -> ${b.mainActionType ?? "-"}`);
  }
  return notes;
}

/**
 * Compare two sets of runs (`unit` names what their rows are in the differences: `instances`, or
 * `(trial, instance) runs` for sets of trials).
 *
 * @example
 * ```ts ignore
 * import { compareRuns } from "./compare_runs.ts";
 * const c = compareRuns({ label: "baseline", rows: rowsA }, { label: "verify-gate", rows: rowsB });
 * console.log(c.differences.join("\n"));
 * ```
 */
export function compareRuns(setA: RunSet, setB: RunSet, unit = "instances"): Comparison {
  const duplicates = new Set<string>();
  const mapA = byInstance(setA.rows, duplicates);
  const mapB = byInstance(setB.rows, duplicates);
  const a = summarize(setA, [...mapA.values()]);
  const b = summarize(setB, [...mapB.values()]);
  const la = setA.label, lb = setB.label;
  const ids = [...new Set([...mapA.keys(), ...mapB.keys()])].sort((x, y) =>
    x.localeCompare(y, "en", { numeric: true })
  );
  const instances = ids.map((instanceId): InstanceComparison => {
    const ra = mapA.get(instanceId), rb = mapB.get(instanceId);
    const sa = ra && side(ra, setA.results), sb = rb && side(rb, setB.results);
    return { instanceId, a: sa, b: sb, notes: instanceNotes(sa, sb, la, lb) };
  });
  const onlyA = ids.filter((id) => !mapB.has(id)), onlyB = ids.filter((id) => !mapA.has(id));
  const common = ids.length - onlyA.length - onlyB.length;

  const differences = [
    ...(onlyA.length || onlyB.length
      ? [`${common} ${unit} in both; ${onlyA.length} only in ${la}, ${onlyB.length} only in ${lb}`]
      : []),
    ...resolvedDifferences(a, b, instances),
    ...figureDifferences(a, b, instances, `${common} common ${unit}`),
  ];
  if (!differences.length) {
    differences.push("no difference past the thresholds (steps and cost 10%, shares 5 points)");
  }
  return { a, b, common, onlyA, onlyB, instances, differences, duplicates: [...duplicates] };
}

/** The resolved counts of two evaluated sets, and the instances resolved in one only. */
function resolvedDifferences(a: SetSummary, b: SetSummary, instances: InstanceComparison[]): string[] {
  if (a.resolved === undefined || b.resolved === undefined) return [];
  const la = a.label, lb = b.label;
  const d = b.resolved - a.resolved;
  const out = [
    `resolved: ${a.resolved}/${a.evaluated} (${pct(a.resolved, a.evaluated ?? 0)}) in ${la}, ` +
    `${b.resolved}/${b.evaluated} (${pct(b.resolved, b.evaluated ?? 0)}) in ${lb}` +
    (d ? `: ${lb} resolves ${Math.abs(d)} ${d > 0 ? "more" : "fewer"}` : ": the same count"),
  ];
  const onlyResolved = (x: "a" | "b") =>
    instances.filter((i) => {
      const [mine, theirs] = x === "a" ? [i.a, i.b] : [i.b, i.a];
      return mine?.resolved === true && theirs?.resolved === false;
    }).map((i) => i.instanceId);
  const ra = onlyResolved("a"), rb = onlyResolved("b");
  if (ra.length) out.push(`resolved only in ${la} (${ra.length}): ${ra.join(", ")}`);
  if (rb.length) out.push(`resolved only in ${lb} (${rb.length}): ${rb.join(", ")}`);
  return out;
}

/** Submissions, exit statuses, steps, cost and action-type shares, where they differ past the thresholds. */
function figureDifferences(
  a: SetSummary,
  b: SetSummary,
  instances: InstanceComparison[],
  common: string,
): string[] {
  const la = a.label, lb = b.label;
  const out: string[] = [];
  if (a.submitted !== b.submitted) {
    out.push(
      `submitted: ${a.submitted} of ${a.instances} in ${la}, ${b.submitted} of ${b.instances} in ${lb}`,
    );
  }
  const changed = instances.filter((i) => i.a && i.b && i.a.exitStatus !== i.b.exitStatus).length;
  if (changed) out.push(`exit status differs for ${changed} of ${common}`);
  if (a.meanSteps && b.meanSteps && Math.abs(b.meanSteps - a.meanSteps) / a.meanSteps >= 0.1) {
    out.push(
      `mean steps ${a.meanSteps.toFixed(1)} -> ${b.meanSteps.toFixed(1)} (${
        change(a.meanSteps, b.meanSteps)
      })`,
    );
  }
  if (a.meanCost && b.meanCost && Math.abs(b.meanCost - a.meanCost) / a.meanCost >= 0.1) {
    out.push(
      `mean cost $${a.meanCost.toFixed(4)} -> $${b.meanCost.toFixed(4)} (${change(a.meanCost, b.meanCost)})`,
    );
  }
  for (const t of ACTION_TYPES) {
    const d = 100 * (b.actionTypeShares[t] - a.actionTypeShares[t]);
    if (Math.abs(d) >= 5) {
      const [from, to] = [a, b].map((s) => Math.round(100 * s.actionTypeShares[t]));
      out.push(`${t} share ${from}% -> ${to}% (${d > 0 ? "+" : ""}${Math.round(d)} points)`);
    }
  }
  return out;
}
