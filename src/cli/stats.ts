/**
 * `claudius stats PATH...`: one row per trajectory plus a total, as a table, JSON or CSV.
 *
 * @module
 */
import { checkPositionals, type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import type { Host } from "../core/host.ts";
import { ACTION_TYPES } from "../tools/trajectories/action_types.ts";
import {
  countSet,
  findTrials,
  RESULTS_FILE,
  type Trial,
  trialVerdicts,
} from "../tools/trajectories/trial_sets.ts";
import { setStats } from "../tools/trajectories/set_stats.ts";
import { setsText } from "./_set_stats_text.ts";
import { MAP_WORKER, mapTrajectoriesParallel } from "../tools/trajectories/map_trajectories.ts";
import { type StatsTotal, totalStats, type TrajectoryStats } from "../tools/trajectories/trajectory_stats.ts";
import { superseded } from "../tools/trajectories/superseded.ts";
import { promptsSummary } from "../tools/trajectories/prompts_source.ts";
import { safeText, textWidth } from "../lib/text.ts";
import { wrap } from "../lib/help.ts";
import { SUBMITTED } from "../tools/trajectories/outcome.ts";
import { type Column, csvLine, renderTable } from "../lib/table.ts";
import { fmtCost, fmtCount, fmtSeconds, fmtShare } from "../lib/formats.ts";
import { REFERENCE_FLAG, toolIO } from "./tools.ts";

/** The flags of `claudius stats`. */
export const STATS_FLAGS = {
  json: flag({
    type: "boolean",
    doc: 'everything as JSON: {"trajectories": [...], "total": {...}, "stats": {...}, "failures": [...]}',
  }),
  csv: flag({ type: "boolean", doc: "one CSV line per trajectory, then a TOTAL line (full precision)" }),
  wide: flag({
    type: "boolean",
    short: "w",
    doc: "every column (calls, format errors, timeouts, cached tokens, model and command time, submission " +
      "size, action types); by default the table fits 80 columns",
  }),
  results: flag({
    type: "string",
    value: "FILE",
    complete: "file",
    doc: "an evaluator's results for the rate (a set of one trial; formats as compare's --results). " +
      "Without it, each trial's results.json, or ProgramBench *.eval.json files, are read",
  }),
  reference: REFERENCE_FLAG,
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** `claudius stats`. */
export const SPEC: CommandSpec<typeof STATS_FLAGS> = {
  name: "claudius stats",
  summary: "one row per trajectory and a total",
  usage: ["PATH... [--wide | --json | --csv] [--results FILE] [--reference NAME]..."],
  examples: [
    ["claudius stats runs/", "every run under runs/: exit, steps, cost, tokens in and out, wall time"],
    ["claudius stats runs/ --wide", "every column"],
    ["claudius stats out/ --csv > runs.csv", "a batch, for a spreadsheet"],
  ],
  description: "Each row: exit status, steps (model turns, format errors included), cost, prompt (in) and " +
    "completion (out) tokens, wall time; with --wide also model calls, format errors, timeouts, cached " +
    "tokens, the wall time's split into model and command time, submission size, and each action type's " +
    "share of the tool calls. 'submitted' counts the runs that ended Submitted. PATH is a " +
    "trajectory file or a directory (searched for *.traj.json, and runs/*.json). Files that cannot be " +
    "read are reported on stderr and make the exit code 1. Below the table, the PATHs as one set: its " +
    "success rate (resolved, with an evaluator's results; else submitted) over instances with its 95 % " +
    "interval, and over repeated trials (each trial-<k> directory, and each PATH without one, is a " +
    "trial) pass@k, pass^k and the flip rate; runs that ended on the infrastructure count in no rate " +
    "and are listed (docs/statistics.md).",
  flags: STATS_FLAGS,
  positionals: { min: 1, max: Infinity, name: "at least one PATH (a trajectory or a directory)" },
};

/** The table's columns and how a row fills them. */
const COLUMNS: (Column & {
  cell: (r: TrajectoryStats | StatsTotal) => string;
  raw: (r: TrajectoryStats) => number | string;
  /** Its header in the default table (absent: only with --wide). */
  narrow?: string;
})[] = [
  { header: "steps", narrow: "steps", right: true, cell: (r) => String(r.steps), raw: (r) => r.steps },
  { header: "calls", right: true, cell: (r) => String(r.modelCalls), raw: (r) => r.modelCalls },
  { header: "fmt err", right: true, cell: (r) => String(r.formatErrors), raw: (r) => r.formatErrors },
  { header: "timeouts", right: true, cell: (r) => String(r.timeouts), raw: (r) => r.timeouts },
  { header: "cost", narrow: "cost", right: true, cell: (r) => fmtCost(r.cost), raw: (r) => r.cost },
  {
    header: "prompt",
    narrow: "in",
    right: true,
    cell: (r) => fmtCount(r.promptTokens),
    raw: (r) => r.promptTokens,
  },
  {
    header: "completion",
    narrow: "out",
    right: true,
    cell: (r) => fmtCount(r.completionTokens),
    raw: (r) => r.completionTokens,
  },
  { header: "cached", right: true, cell: (r) => fmtCount(r.cachedTokens), raw: (r) => r.cachedTokens },
  {
    header: "wall",
    narrow: "wall",
    right: true,
    cell: (r) => fmtSeconds(r.wallSeconds),
    raw: (r) => r.wallSeconds,
  },
  { header: "model", right: true, cell: (r) => fmtSeconds(r.modelSeconds), raw: (r) => r.modelSeconds },
  {
    header: "commands",
    right: true,
    cell: (r) => fmtSeconds(r.commandSeconds),
    raw: (r) => r.commandSeconds,
  },
  {
    header: "submission",
    right: true,
    cell: (r) => fmtCount(r.submissionBytes),
    raw: (r) => r.submissionBytes,
  },
];

/**
 * Run `claudius stats` with its arguments.
 * @returns the exit code: 0, or 1 when some file could not be read (or none was found)
 * @throws {UsageError} for bad flags or no PATH
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const io = toolIO(host);
  const { values, positionals } = parseCommandLine(STATS_FLAGS, argv);
  if (values.help) return (io.write(renderHelp(SPEC) + "\n"), 0);
  if ([values.json, values.csv, values.wide].filter(Boolean).length > 1) {
    throw new UsageError("--wide, --json and --csv cannot be used together");
  }
  checkPositionals(SPEC, positionals);
  const reference = values.reference?.length ? values.reference : undefined;
  const set = await readSet(positionals, values.results);
  const paths = set.trials.flatMap((t) => t.files);
  const { results: rows, failures } = await mapTrajectoriesParallel(
    paths,
    "stats",
    reference ? { reference } : {},
    { worker: host.programFile(MAP_WORKER) },
  );
  for (const f of failures) io.error(`warning: ${f.message}`);
  const counted = countSet(set.trials, rows, set.verdicts);
  for (const u of counted.unmatched) {
    io.error(
      `warning: the results ${u.source} name none of the ${u.instances} instances of its trial (such as ` +
        `${u.example}); ids must match the trajectories' instance ids`,
    );
  }
  if (counted.duplicates.length) {
    const d = counted.duplicates;
    io.error(
      `warning: ${d.length} instance(s) appear more than once in one trial (such as ${
        d[0]
      }): the rate counts ` +
        "the first of each; give one set (a batch's, an arm's or a trial's directory) for a rate that means something",
    );
  }
  const stats = setStats(counted.outcomes, counted.metric, counted.trials);
  const total = totalStats(rows);
  if (values.json) {
    io.write(JSON.stringify({ trajectories: rows, total, stats, failures }, null, 2) + "\n");
  } else if (values.csv) {
    io.write(csv(rows, total));
  } else {
    const block = rows.length ? `\n\n${setsText([{ label: "set", stats }])}` : "";
    const prompts = rows.length ? `\nprompts: ${safeText(promptsSummary(total.prompts))}` : "";
    io.write((values.wide ? table(rows, total) : narrowTable(rows, total)) + prompts + block + "\n");
  }
  if (!paths.length) io.error(`warning: no trajectories found under ${positionals.join(", ")}`);
  return failures.length || !paths.length ? 1 : 0;
}

/**
 * The PATHs as one set: each PATH's trials (its `trial-<k>` directories, else itself), named by the
 * PATH when there are several, with their verdicts.
 * @throws {UsageError} for --results on a set of several trials
 */
async function readSet(positionals: readonly string[], results: string | undefined) {
  const per = await Promise.all(positionals.map(findTrials));
  const trials: Trial[] = per.flatMap((list, i) =>
    list.map((t) => {
      if (positionals.length === 1) return t;
      const where = positionals[i]!.replace(/\/+$/, "");
      return { ...t, name: t.name ? `${where}/${t.name}` : where };
    })
  );
  if (results !== undefined && trials.length > 1) {
    throw new UsageError(
      `--results ${results} holds one trial's verdicts, but the set has ${trials.length} trials: put each ` +
        `trial's verdicts in its directory as ${RESULTS_FILE}`,
    );
  }
  return { trials, verdicts: await Promise.all(trials.map((t) => trialVerdicts(t, results))) };
}

function table(rows: TrajectoryStats[], total: StatsTotal): string {
  const types = ACTION_TYPES.map((t) => ({ header: t === "execute" ? "exec" : t, right: true }));
  const columns: Column[] = [{ header: "instance" }, { header: "exit" }, ...COLUMNS, ...types];
  const line = (name: string, exit: string, r: TrajectoryStats | StatsTotal) => {
    const n = ACTION_TYPES.reduce((sum, t) => sum + r.actionTypes[t], 0);
    return [
      name,
      exit,
      ...COLUMNS.map((c) => c.cell(r)),
      ...ACTION_TYPES.map((t) => fmtShare(r.actionTypes[t], n)),
    ];
  };
  const name = rowName(rows);
  const body = rows.map((r) => line(name(r), r.exitStatus || "-", r));
  const submitted = total.exitStatuses[SUBMITTED] ?? 0;
  body.push(line(`total (${total.trajectories})`, `${submitted} submitted`, total));
  const statuses = Object.entries(total.exitStatuses).sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${safeText(s) || "(not ended)"} ${n}`).join(", ");
  const foot = [statuses ? `exit statuses: ${statuses}` : "", supersededNote(total)].filter(Boolean);
  return [renderTable(columns, body, true), ...foot].join("\n");
}

/** A row's name: its instance, marked when repaired, or resumed by another row (left out of the total). */
function rowName(rows: readonly TrajectoryStats[]): (r: TrajectoryStats) => string {
  const later = superseded(rows);
  return (r) => r.instanceId + (r.repaired ? " (repaired)" : "") + (later.has(r) ? " (resumed later)" : "");
}

/** The line saying which rows the total leaves out, "" when none. */
function supersededNote(total: StatsTotal): string {
  if (!total.superseded) return "";
  const n = total.superseded;
  return `${n} ${
    n === 1 ? "trajectory" : "trajectories"
  } resumed later: not in the total (the resume counts it)`;
}

/** The width the default table fits. */
const NARROW_WIDTH = 80;

/** `text` cut to `width` terminal cells, an ellipsis at the cut. */
function clipCells(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let out = "";
  for (const c of text) {
    if (textWidth(out + c) > width - 1) break;
    out += c;
  }
  return `${out}…`;
}

/** The default table: exit, steps, cost, tokens in and out, wall time; instance ids cut to fit 80 columns. */
function narrowTable(rows: TrajectoryStats[], total: StatsTotal): string {
  const shown = COLUMNS.filter((c) => c.narrow !== undefined);
  const columns: Column[] = [
    { header: "instance" },
    { header: "exit" },
    ...shown.map((c) => ({ header: c.narrow!, right: true })),
  ];
  const submitted = total.exitStatuses[SUBMITTED] ?? 0;
  const name = rowName(rows);
  const body = [
    ...rows.map((r) => [name(r), r.exitStatus || "-", r] as const),
    [`total (${total.trajectories})`, `${submitted} submitted`, total] as const,
  ].map(([name, exit, r]) => [safeText(name), safeText(exit), ...shown.map((c) => c.cell(r))]);
  const others = columns.slice(1).map((c, i) =>
    Math.max(textWidth(c.header), ...body.map((cells) => textWidth(cells[i + 1] ?? "")))
  );
  const room = Math.max(12, NARROW_WIDTH - others.reduce((a, b) => a + b + 2, 0));
  for (const cells of body) cells[0] = clipCells(cells[0]!, room);
  const statuses = Object.entries(total.exitStatuses).sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${safeText(s) || "(not ended)"} ${n}`).join(", ");
  const foot = [
    ...(statuses ? wrap(`exit statuses: ${statuses}`, NARROW_WIDTH, 2) : []),
    ...(total.superseded ? wrap(supersededNote(total), NARROW_WIDTH, 2) : []),
  ];
  return [renderTable(columns, body, true), ...foot].join("\n");
}

function csv(rows: TrajectoryStats[], total: StatsTotal): string {
  const header = [
    "path",
    "instance",
    "exit_status",
    ...COLUMNS.map((c) => c.header.replace(" ", "_")),
    ...ACTION_TYPES,
    "repaired",
  ];
  const lines = [csvLine(header)];
  for (const r of rows) {
    lines.push(
      csvLine([
        r.path,
        r.instanceId,
        r.exitStatus,
        ...COLUMNS.map((c) => c.raw(r)),
        ...ACTION_TYPES.map((t) => r.actionTypes[t]),
        r.repaired,
      ]),
    );
  }
  const t = total as unknown as TrajectoryStats;
  lines.push(
    csvLine([
      "TOTAL",
      String(total.trajectories),
      `${total.exitStatuses[SUBMITTED] ?? 0} submitted`,
      ...COLUMNS.map((c) => c.raw(t)),
      ...ACTION_TYPES.map((k) => total.actionTypes[k]),
      total.repaired,
    ]),
  );
  return lines.join("\n") + "\n";
}
