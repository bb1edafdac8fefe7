/**
 * `claudius compare A B`: two sets of runs side by side, as a table, JSON or CSV.
 *
 * @module
 */
import { type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import type { Host } from "../core/host.ts";
import { ACTION_TYPES } from "../tools/trajectories/action_types.ts";
import { MAP_WORKER, mapTrajectoriesParallel } from "../tools/trajectories/map_trajectories.ts";
import type { EvalResults } from "../tools/trajectories/eval_results.ts";
import {
  countSet,
  findTrials,
  RESULTS_FILE,
  setNames,
  type Trial,
  trialName,
  trialVerdicts,
} from "../tools/trajectories/trial_sets.ts";
import { compareStats } from "../tools/trajectories/set_stats.ts";
import { pairText } from "./_set_stats_text.ts";
import {
  compareRuns,
  type Comparison,
  type InstanceSide,
  type SetSummary,
} from "../tools/trajectories/compare_runs.ts";
import { csvLine, renderTable } from "../lib/table.ts";
import { fmtCost } from "../lib/formats.ts";
import { safeText } from "../lib/text.ts";
import { REFERENCE_FLAG, toolIO } from "./tools.ts";
import { promptsSummary } from "../tools/trajectories/prompts_source.ts";
import type { TrajectoryStats } from "../tools/trajectories/trajectory_stats.ts";

/** The flags of `claudius compare`. */
export const COMPARE_FLAGS = {
  results: flag({
    type: "string",
    multiple: true,
    value: "FILE",
    complete: "file",
    doc: "an evaluator's results, once per set in order (A, then B; '-' for none), for a set of one " +
      "trial: a SWE-bench run report, {id: bool | score | {resolved}}, a list of resolved ids, JSONL " +
      "{instance_id, resolved}, ProgramBench *.eval.json (a file or a directory) or score.json. Without it, " +
      "each trial's results.json, else ProgramBench *.eval.json files inside it, are read",
  }),
  all: flag({ type: "boolean", doc: "list every instance, not only those that differ" }),
  json: flag({ type: "boolean", doc: "the whole comparison as JSON" }),
  csv: flag({ type: "boolean", doc: "one CSV line per instance" }),
  reference: REFERENCE_FLAG,
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** `claudius compare`. */
export const SPEC: CommandSpec<typeof COMPARE_FLAGS> = {
  name: "claudius compare",
  summary: "two sets of runs side by side",
  usage: ["A B [--results FILE_A --results FILE_B] [--all] [--json | --csv]"],
  examples: [
    ["claudius compare ablation/control ablation/daemon", "the two arms of an ablation"],
    ["claudius compare a/ b/ --results a.json --results b.json", "with an evaluator's verdicts"],
  ],
  description: "Matched by instance id: instances, submitted and (with an evaluator's results) resolved " +
    "counts, exit statuses, steps, cost, format errors, timeouts and action-type shares, then the " +
    "differences in words and a table of the instances that differ; then each set's success rate with " +
    "its 95 % interval (and pass@k, pass^k and the flip rate over trials) and the paired difference with " +
    "its test, p-value and the smallest difference the instances detect, in one line to paste " +
    "(docs/statistics.md). A and B are run directories (a batch's output, runs/), trajectory files, or " +
    "directories of trials (trial-<k>/, as batch --trials writes them) or one of those trials.",
  flags: COMPARE_FLAGS,
  positionals: { min: 2, max: 2, name: "two run sets A and B" },
};

/**
 * Run `claudius compare` with its arguments.
 * @returns 0, or 1 when some trajectory could not be read or a set holds none
 * @throws {UsageError} for bad flags or a missing A / B
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const io = toolIO(host);
  const { values, positionals } = parseCommandLine(COMPARE_FLAGS, argv);
  if (values.help) return (io.write(renderHelp(SPEC) + "\n"), 0);
  if (positionals.length !== 2) {
    throw new UsageError(`compare needs two run sets A and B, got ${positionals.length}`);
  }
  if (values.json && values.csv) throw new UsageError("--json and --csv cannot be used together");
  const resultFiles = values.results ?? [];
  if (resultFiles.length > 2) throw new UsageError("--results is given once per run set (A, then B)");
  const reference = values.reference?.length ? values.reference : undefined;
  const labels = setNames(positionals) ?? ["A", "B"];
  let failed = 0;
  const sets = await Promise.all(positionals.map(async (path, k) => {
    const trials = await findTrials(path);
    const explicit = resultFiles[k];
    if (explicit !== undefined && explicit !== "-" && trials.length > 1) {
      throw new UsageError(
        `--results ${explicit} holds one trial's verdicts, but ${path} has ${trials.length} trials: put each ` +
          `trial's verdicts in its directory as ${RESULTS_FILE} (${trials[0]!.name}/${RESULTS_FILE}, ...)`,
      );
    }
    const paths = trials.flatMap((t) => t.files);
    if (!paths.length) {
      io.error(`warning: no trajectories found under ${path}`);
      failed++;
    }
    const { results: rows, failures } = await mapTrajectoriesParallel(
      paths,
      "stats",
      reference ? { reference } : {},
      { worker: host.programFile(MAP_WORKER) },
    );
    for (const f of failures) io.error(`warning: ${f.message}`);
    failed += failures.length;
    const verdicts = await Promise.all(trials.map((t) => trialVerdicts(t, explicit)));
    const counted = countSet(trials, rows, verdicts);
    for (const u of counted.unmatched) {
      io.error(
        `warning: the results ${u.source} name none of the ${u.instances} instances of ${
          labels[k]
        } (such as ` +
          `${u.example}); ids must match the trajectories' instance ids`,
      );
    }
    for (const key of counted.duplicates) {
      const kept = counted.placed.find((p) => p.key === key)?.row.path;
      const left = rows.filter((r) => r.path !== kept && keyOf(trials, r) === key).map((r) => r.path);
      io.error(
        `warning: instance ${key} appears more than once in a set: kept ${kept}, left out ${
          left.join(", ")
        } (give the files you mean)`,
      );
    }
    return { label: labels[k]!, counted };
  }));
  const [sa, sb] = [sets[0]!, sets[1]!];
  const several = sa.counted.trials > 1 || sb.counted.trials > 1;
  const runSet = ({ label, counted }: typeof sa) => {
    // Per (trial, instance): trial k of A beside trial k of B; a one-trial set is trial 1 then.
    const key = (p: (typeof counted.placed)[number]) =>
      several ? `${p.trial || trialName(1)}/${p.row.instanceId}` : p.row.instanceId;
    const results: EvalResults = new Map(
      counted.placed.flatMap((p) => (p.verdict ? [[key(p), p.verdict] as const] : [])),
    );
    const evaluated = counted.metric === "resolved";
    return {
      label,
      rows: counted.placed.map((p) => ({ ...p.row, instanceId: key(p) })),
      ...(evaluated ? { results } : {}),
    };
  };
  const c = compareRuns(runSet(sa), runSet(sb), several ? "(trial, instance) runs" : "instances");
  const stats = compareStats(
    { label: sa.label, outcomes: sa.counted.outcomes, metric: sa.counted.metric, trials: sa.counted.trials },
    { label: sb.label, outcomes: sb.counted.outcomes, metric: sb.counted.metric, trials: sb.counted.trials },
  );
  const prompts = promptsOfSets(sa, sb);
  if (values.json) io.write(JSON.stringify({ ...c, stats, prompts }, null, 2) + "\n");
  else if (values.csv) io.write(csv(c));
  else {
    const first = prompts.differ
      ? `prompts differ: ${sa.label} ran ${promptsSummary(prompts.counts[0]!)}; ${sb.label} ran ${
        promptsSummary(prompts.counts[1]!)
      }`
      : "";
    io.write(
      (first ? `${safeText(first)}\n` : "") + text(c, Boolean(values.all), several) + "\n\n" +
        pairText(stats, sa.label, sb.label) +
        "\n",
    );
  }
  return failed ? 1 : 0;
}

/** The key of a row in its set (`trial-k/id`, or the id). */
/**
 * What each set's runs ran as prompts (by source, counted), and whether the sets' prompts differ: some
 * run of one has prompts (a source, a release, a file's digest) no run of the other has.
 */
function promptsOfSets(...sets: { counted: { placed: { row: TrajectoryStats }[] } }[]) {
  const rows = sets.map((s) => s.counted.placed.map((p) => p.row));
  const keys = rows.map((r) => new Set(r.map((x) => x.promptsKey)));
  const differ = keys[0]!.size !== keys[1]!.size || [...keys[0]!].some((k) => !keys[1]!.has(k));
  const counts = rows.map((r) => {
    const out: Record<string, number> = {};
    for (const x of r) out[x.prompts] = (out[x.prompts] ?? 0) + 1;
    return out;
  });
  return { differ, counts };
}

function keyOf(trials: readonly Trial[], row: { path: string; instanceId: string }): string | undefined {
  const trial = trials.find((t) => t.files.includes(row.path));
  if (!trial) return undefined;
  return trial.name ? `${trial.name}/${row.instanceId}` : row.instanceId;
}

const pct = (x: number, of: number) => (of ? ` (${Math.round((100 * x) / of)}%)` : "");
const signed = (d: number, digits = 0) => (d > 0 ? "+" : d < 0 ? "-" : "") + Math.abs(d).toFixed(digits);
const rel = (a: number, b: number) => {
  const d = a ? Math.round((100 * (b - a)) / a) : 0;
  return a ? `${d > 0 ? "+" : d < 0 ? "-" : ""}${Math.abs(d)}%` : "";
};

function summaryRows(a: SetSummary, b: SetSummary, several: boolean): string[][] {
  const rows: string[][] = [
    [
      several ? "runs (trial x instance)" : "instances",
      String(a.instances),
      String(b.instances),
      signed(b.instances - a.instances),
    ],
    [
      "submitted",
      `${a.submitted}${pct(a.submitted, a.instances)}`,
      `${b.submitted}${pct(b.submitted, b.instances)}`,
      signed(b.submitted - a.submitted),
    ],
    [
      "empty submissions",
      String(a.emptySubmissions),
      String(b.emptySubmissions),
      signed(b.emptySubmissions - a.emptySubmissions),
    ],
  ];
  const res = (
    s: SetSummary,
  ) => (s.resolved === undefined ? "-" : `${s.resolved}/${s.evaluated}${pct(s.resolved, s.evaluated!)}`);
  if (a.resolved !== undefined || b.resolved !== undefined) {
    rows.push([
      "resolved",
      res(a),
      res(b),
      a.resolved !== undefined && b.resolved !== undefined ? signed(b.resolved - a.resolved) : "",
    ]);
  }
  const statuses = [...new Set([...Object.keys(a.exitStatuses), ...Object.keys(b.exitStatuses)])].sort();
  for (const s of statuses) {
    const x = a.exitStatuses[s] ?? 0, y = b.exitStatuses[s] ?? 0;
    rows.push([`exit ${s || "(not ended)"}`, String(x), String(y), signed(y - x)]);
  }
  rows.push(
    ["steps, mean", a.meanSteps.toFixed(1), b.meanSteps.toFixed(1), rel(a.meanSteps, b.meanSteps)],
    ["steps, median", String(a.medianSteps), String(b.medianSteps), rel(a.medianSteps, b.medianSteps)],
    ["cost, total", fmtCost(a.totalCost), fmtCost(b.totalCost), rel(a.totalCost, b.totalCost)],
    ["cost, mean", fmtCost(a.meanCost), fmtCost(b.meanCost), rel(a.meanCost, b.meanCost)],
    [
      "format errors",
      String(a.formatErrors),
      String(b.formatErrors),
      signed(b.formatErrors - a.formatErrors),
    ],
    ["timeouts", String(a.timeouts), String(b.timeouts), signed(b.timeouts - a.timeouts)],
  );
  for (const t of ACTION_TYPES) {
    const x = 100 * a.actionTypeShares[t], y = 100 * b.actionTypeShares[t];
    rows.push([`${t} share`, `${Math.round(x)}%`, `${Math.round(y)}%`, `${signed(y - x)} pts`]);
  }
  return rows;
}

const cell = (s: InstanceSide | undefined) =>
  s
    ? [
      s.exitStatus || "-",
      String(s.steps),
      fmtCost(s.cost),
      s.resolved === undefined ? "" : s.resolved ? "yes" : "no",
    ]
    : ["", "", "", ""];

function text(c: Comparison, all: boolean, several: boolean): string {
  const la = c.a.label, lb = c.b.label;
  const out = [
    renderTable(
      [{ header: "" }, { header: la, right: true }, { header: lb, right: true }, {
        header: "difference",
        right: true,
      }],
      summaryRows(c.a, c.b, several),
    ),
    "",
    "Differences:",
    ...c.differences.map((d) => `  - ${safeText(d)}`),
  ];
  const shown = c.instances.filter((i) => all || i.notes.length);
  if (shown.length) {
    out.push("", all ? "Instances:" : "Instances that differ:");
    out.push(renderTable(
      [
        { header: "instance" },
        ...[la, lb].flatMap((
          l,
        ) => [{ header: `${l} exit` }, { header: "steps", right: true }, { header: "cost", right: true }, {
          header: "resolved",
        }]),
        { header: "notes" },
      ],
      shown.map((i) => [i.instanceId, ...cell(i.a), ...cell(i.b), i.notes.join("; ")]),
    ));
  }
  return out.join("\n");
}

function csv(c: Comparison): string {
  const sides = ["a", "b"] as const;
  const header = [
    "instance",
    ...sides.flatMap((s) =>
      ["exit_status", "steps", "cost", "submitted", "resolved", "score", "main_action_type"].map((k) =>
        `${s}_${k}`
      )
    ),
    "notes",
  ];
  const lines = [csvLine(header)];
  for (const i of c.instances) {
    const values = sides.flatMap((s) => {
      const x = i[s];
      return x
        ? [
          x.exitStatus,
          x.steps,
          x.cost,
          x.submitted,
          x.resolved ?? "",
          x.score ?? "",
          x.mainActionType ?? "",
        ]
        : ["", "", "", "", "", "", ""];
    });
    lines.push(csvLine([i.instanceId, ...values, i.notes.join("; ")]));
  }
  return lines.join("\n") + "\n";
}
