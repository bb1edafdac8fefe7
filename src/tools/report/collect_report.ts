/**
 * What `claudius report` draws, collected from the files: the trajectories found under each path
 * the user gave (one set per path, its trials its `trial-<k>` directories), each reduced to its report
 * record in worker threads, and each set's success rate over its trials (verdicts from each trial's
 * `results.json`, else submitted).
 *
 * @module
 */
import type { ClassifyOptions } from "../trajectories/action_types.ts";
import { countSet, findTrials, trialVerdicts } from "../trajectories/trial_sets.ts";
import { type SetStats, setStats, type TrialOutcome } from "../trajectories/set_stats.ts";
import {
  mapTrajectoriesParallel,
  type ParallelOptions,
  type ReadFailure,
} from "../trajectories/map_trajectories.ts";
import type { ReportTrajectory } from "../trajectories/report_trajectory.ts";
import { superseded } from "../trajectories/superseded.ts";

/** One set of runs: the trajectories found under one path. */
export interface ReportSet {
  /** The path as the user gave it. */
  name: string;
  /** The model its runs used (the most common one, `+N more` when they differ); "" when none. */
  model: string;
  /** Its runs' config in a few words (`configLabel`), as {@link model}. */
  config: string;
  /** What the charts call it: its model, else model and config, else its path, whichever tells it apart. */
  label: string;
  /** Its trajectories, each resumed chain by its newest link. */
  trajectories: ReportTrajectory[];
  /** Trajectories another one of the set resumed, left out (their resume's figures include theirs). */
  superseded?: number;
  failures: ReadFailure[];
  /** Its success rate and pass@k / pass^k over its trials (see `set_stats.ts`); absent with no trajectory. */
  stats?: SetStats;
  /** Its trials' outcomes, for the differences between sets. */
  outcomes?: TrialOutcome[];
  /** (trial, instance) pairs found more than once (the rate counts the first): a PATH holding several sets. */
  duplicates?: number;
}

/** Everything the report shows. */
export interface ReportData {
  sets: ReportSet[];
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
 * @param options reference program names for the action types
 * @param parallel the worker module (none: every file read in this thread)
 * @throws {Deno.errors.NotFound} naming a path that does not exist
 */
export async function collectReport(
  paths: readonly string[],
  options: ClassifyOptions = {},
  parallel: ParallelOptions = {},
): Promise<ReportData> {
  const trials = await Promise.all(paths.map(findTrials));
  const files = trials.map((list) => list.flatMap((t) => t.files));
  const { results, failures } = await mapTrajectoriesParallel(files.flat(), "report", options, parallel);
  const setOf = new Map(files.flatMap((list, set) => list.map((path) => [path, set] as const)));
  const sets: ReportSet[] = paths.map((name) => ({
    name,
    model: "",
    config: "",
    label: name,
    trajectories: [],
    superseded: 0,
    failures: [],
  }));
  for (const r of results) {
    r.set = setOf.get(r.path) ?? 0;
    sets[r.set]!.trajectories.push(r);
  }
  for (const set of sets) {
    const later = superseded(set.trajectories);
    set.trajectories = set.trajectories.filter((t) => !later.has(t));
    set.superseded = later.size;
  }
  for (const f of failures) sets[setOf.get(f.path) ?? 0]!.failures.push(f);
  for (const [k, set] of sets.entries()) {
    if (!set.trajectories.length) continue;
    const mine = trials[k] ?? [];
    const counted = countSet(mine, set.trajectories, await Promise.all(mine.map((t) => trialVerdicts(t))));
    set.stats = setStats(counted.outcomes, counted.metric, counted.trials);
    set.outcomes = counted.outcomes;
    for (const p of counted.placed) if (p.trial) p.row.trial = p.trial;
    if (counted.duplicates.length) set.duplicates = counted.duplicates.length;
  }
  labelSets(sets);
  return { sets };
}

/** The most common value, with `+N more` when there are others; "" for none. */
function mostCommon(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  const [top] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (!top) return "";
  return counts.size > 1 ? `${top[0]} +${counts.size - 1} more` : top[0];
}

/**
 * Each set's model, config and label: sets are told apart by model when their models differ, by model
 * and config when those do, else by path (several sets of one model and config).
 */
export function labelSets(sets: ReportSet[]): void {
  for (const s of sets) {
    s.model = mostCommon(s.trajectories.map((t) => t.modelName));
    s.config = mostCommon(s.trajectories.map((t) => t.config));
  }
  const unique = (label: (s: ReportSet) => string) => new Set(sets.map(label)).size === sets.length;
  const byModel = (s: ReportSet) => s.model;
  const byBoth = (s: ReportSet) => `${s.model} · ${s.config}`;
  const pick = sets.length > 1 && sets.every((s) => s.model) && unique(byModel)
    ? byModel
    : sets.length > 1 && sets.every((s) => s.model) && unique(byBoth)
    ? byBoth
    : (s: ReportSet) => s.name;
  for (const s of sets) s.label = pick(s);
}
