/**
 * A set of runs as the counting tools read it: its trials (the `trial-<k>` directories `claudius batch
 * --trials K` writes, else the set as one trial), each trial's verdicts (an evaluator's results) and
 * the outcome of every (trial, instance) that {@link setStats} counts.
 *
 * Verdicts of a trial come from `--results FILE` (a set of one trial), else from `results.json` in the
 * trial's directory (any format `loadEvalResults` reads), else from ProgramBench `*.eval.json` files
 * under it. A set with verdicts counts `resolved`; one with none counts `submitted` (the run ended
 * Submitted).
 *
 * @module
 */
import { findFiles } from "../../lib/files.ts";
import { type EvalResult, type EvalResults, loadEvalResults, resultOf } from "./eval_results.ts";
import { comparePaths, findTrajectories } from "./find_trajectories.ts";
import { isSubmitted } from "./outcome.ts";
import type { Metric, TrialOutcome } from "./set_stats.ts";
import { superseded } from "./superseded.ts";

/** The name of a trial's directory: `trial-<k>`, k >= 1. */
export const TRIAL_DIR = /^trial-([1-9]\d*)$/;

/** The file in a trial's directory that holds its verdicts. */
export const RESULTS_FILE = "results.json";

/** One trial of a set: its name (`trial-3`, "" when the set is one trial), its directory and trajectories. */
export interface Trial {
  name: string;
  /** Its directory; undefined for a set given as a trajectory file. */
  dir: string | undefined;
  files: string[];
}

/** The name of trial k. */
export function trialName(k: number): string {
  return `trial-${k}`;
}

/**
 * The trials of a set: the `trial-<k>` directories of `path` in order of k, else `path` as one trial.
 * @throws {Deno.errors.NotFound} when `path` does not exist
 */
export async function findTrials(path: string): Promise<Trial[]> {
  const info = await Deno.stat(path).catch((e) => {
    if (e instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(`Cannot read ${path}: no such file`);
    }
    throw e;
  });
  if (!info.isDirectory) return [{ name: "", dir: undefined, files: await findTrajectories([path]) }];
  const dirs: string[] = [];
  for await (const e of Deno.readDir(path)) if (e.isDirectory && TRIAL_DIR.test(e.name)) dirs.push(e.name);
  if (!dirs.length) return [{ name: "", dir: path, files: await findTrajectories([path]) }];
  const base = path.replace(/\/+$/, "");
  return await Promise.all(
    dirs.sort(comparePaths).map(async (name) => ({
      name,
      dir: `${base}/${name}`,
      files: await findTrajectories([`${base}/${name}`]),
    })),
  );
}

/** A trial's verdicts and the file or directory they were read from. */
export interface Verdicts {
  results: EvalResults;
  source: string;
}

/**
 * A trial's verdicts: `explicit` (a results file, or "-" for none), else its `results.json`, else its
 * ProgramBench `*.eval.json` files; undefined when it has none.
 * @throws {SyntaxError} naming the file when it is not a results format
 */
export async function trialVerdicts(trial: Trial, explicit?: string): Promise<Verdicts | undefined> {
  if (explicit === "-") return undefined;
  if (explicit !== undefined) return { results: await loadEvalResults(explicit), source: explicit };
  if (!trial.dir) return undefined;
  const file = `${trial.dir}/${RESULTS_FILE}`;
  if (await Deno.stat(file).then((s) => s.isFile, () => false)) {
    return { results: await loadEvalResults(file), source: file };
  }
  const evals = await findFiles(trial.dir, (p) => p.endsWith(".eval.json"));
  return evals.length ? { results: await loadEvalResults(trial.dir), source: trial.dir } : undefined;
}

/** What the counting needs of one trajectory (a `stats` or `report` row). */
export interface CountedRow {
  path: string;
  instanceId: string;
  exitStatus: string;
  /** Why it counts in no rate (see `excludedRun`). */
  excluded?: string;
  resumedFrom?: string;
}

/** One trajectory of a set, placed: its trial, its key (`trial-k/id`, or the id) and its verdict. */
export interface PlacedRow<R extends CountedRow> {
  row: R;
  trial: string;
  key: string;
  verdict: EvalResult | undefined;
}

/** A set read for counting: its rows placed in their trials, and the outcomes {@link setStats} takes. */
export interface CountedSet<R extends CountedRow> {
  metric: Metric;
  /** Trials in the set. */
  trials: number;
  /** Every trajectory counted, each resumed chain by its newest link, duplicates left out. */
  placed: PlacedRow<R>[];
  outcomes: TrialOutcome[];
  /** `trial-k/id` (or `id`) keys that appeared more than once in one trial: the first was kept. */
  duplicates: string[];
  /** Verdicts that name none of their trial's instances (ids must match): their source, the count, one id. */
  unmatched: { source: string; instances: number; example: string }[];
}

/**
 * Place a set's rows in their trials and score them.
 * @param trials the set's trials (see {@link findTrials})
 * @param rows the rows read from the trials' files (any order; rows of other files are ignored)
 * @param verdicts each trial's verdicts, in the order of `trials`
 */
export function countSet<R extends CountedRow>(
  trials: readonly Trial[],
  rows: readonly R[],
  verdicts: readonly (Verdicts | undefined)[],
): CountedSet<R> {
  const trialOf = new Map(trials.flatMap((t, k) => t.files.map((f) => [f, k] as const)));
  const gone = superseded(rows);
  const metric: Metric = verdicts.some((v) => v !== undefined) ? "resolved" : "submitted";
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  const placed: PlacedRow<R>[] = [];
  const outcomes: TrialOutcome[] = [];
  for (const row of rows) {
    const k = trialOf.get(row.path);
    if (k === undefined || gone.has(row)) continue;
    const trial = trials[k]!.name;
    const key = trial ? `${trial}/${row.instanceId}` : row.instanceId;
    if (seen.has(key)) {
      duplicates.add(key);
      continue;
    }
    seen.add(key);
    const results = verdicts[k]?.results;
    const verdict = results ? resultOf(results, row.instanceId) : undefined;
    placed.push({ row, trial, key, verdict });
    const base = { instanceId: row.instanceId, trial };
    if (row.excluded) outcomes.push({ ...base, success: null, excluded: row.excluded });
    else if (metric === "submitted") outcomes.push({ ...base, success: isSubmitted(row.exitStatus) });
    else if (verdict) outcomes.push({ ...base, success: verdict.resolved });
    else {
      const why = results ? "not in the trial's results" : "its trial has no results";
      outcomes.push({ ...base, success: null, excluded: why });
    }
  }
  const unmatched = trials.flatMap((t, k) => {
    const v = verdicts[k];
    const mine = placed.filter((p) => p.trial === t.name);
    if (!v?.results.size || !mine.length || mine.some((p) => v.results.has(p.row.instanceId))) return [];
    return [{ source: v.source, instances: mine.length, example: mine[0]!.row.instanceId }];
  });
  return { metric, trials: trials.length, placed, outcomes, duplicates: [...duplicates], unmatched };
}

/**
 * Short names for sets given as paths, for a line a reader pastes: the last path component where they all
 * differ (`runs/base/out` and `runs/gate/out` give `base` and `gate`); undefined when no component does.
 *
 * @example
 * ```ts
 * import { setNames } from "./trial_sets.ts";
 * setNames(["abl/control", "abl/daemon/"]); // ["control", "daemon"]
 * ```
 */
export function setNames(paths: readonly string[]): string[] | undefined {
  const parts = paths.map((p) => p.replace(/\/+$/, "").replace(/(\.traj)?\.json$/, "").split("/"));
  const depth = Math.min(...parts.map((p) => p.length));
  for (let k = 1; k <= depth; k++) {
    const names = parts.map((p) => p[p.length - k] ?? "");
    if (names.every((n) => n !== "") && new Set(names).size === names.length) return names;
  }
  return undefined;
}
