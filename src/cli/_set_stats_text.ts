/**
 * The statistics block of `claudius stats` and `claudius compare` as text: per set its rate with the
 * interval, pass@k, pass^k, flip rate and what was left out; for a pair the line to paste.
 *
 * @module
 */
import { wrap } from "../lib/help.ts";
import { renderTable } from "../lib/table.ts";
import { formatInterval, type PairStats, type SetStats } from "../tools/trajectories/set_stats.ts";

/** The width notes are wrapped to (the tools' tables fit 80 columns). */
const WIDTH = 80;

const num = (x: number | null) => (x === null ? "-" : x.toFixed(2));

/** `0.43 [0.25, 0.62]` (Wilson) or `-` with nothing to estimate. */
function rate(s: SetStats): string {
  if (s.mean === null) return "-";
  const how = s.ci95_method === "wilson" ? "Wilson" : "clustered SE";
  return `${num(s.mean)} ${s.ci95 ? formatInterval(s.ci95) : "[-]"} ${how}`;
}

/** `0.43 0.57 0.70` for k = 1 .. K. */
function curve(values: Record<string, number | null>): string {
  return Object.values(values).map(num).join(" ");
}

/** What counts as success, in words. */
function metricWords(s: SetStats): string {
  return s.metric === "resolved" ? "resolved (evaluator's results)" : "submitted (no evaluator's results)";
}

/** A set as the block shows it. */
export interface SetText {
  label: string;
  stats: SetStats;
  /**
   * Where the set's prompts came from, shown as a row when given: the hook for the trajectories' prompt
   * provenance (`info.prompts`, issue 25), which no trajectory records yet.
   */
  prompts?: string;
}

/**
 * The per-set table (one column per set), then what was left out of each set and why each empty
 * figure is empty.
 */
export function setsText(sets: readonly SetText[]): string {
  const k = Math.max(...sets.map((s) => s.stats.trials));
  const metrics = new Set(sets.map((s) => s.stats.metric));
  const row = (name: string, cell: (s: SetStats) => string) => [name, ...sets.map((s) => cell(s.stats))];
  const rows = [
    ...(metrics.size > 1 ? [row("success", (s) => s.metric)] : []),
    row("instances x trials", (s) => `${s.instances} x ${s.trials} (${s.scored} scored)`),
    row("mean [95 % CI]", rate),
    ...(k > 1
      ? [
        row(`pass@1..${k}`, (s) => curve(s.pass_at_k)),
        row(`pass^1..${k}`, (s) => curve(s.pass_hat_k)),
        row("flip rate", (s) => num(s.flip_rate)),
      ]
      : []),
    row("excluded", (s) => String(s.excluded.length)),
    ...(sets.some((s) => s.prompts) ? [["prompts", ...sets.map((s) => s.prompts ?? "-")]] : []),
  ];
  const heading = metrics.size > 1 ? "success as each set counts it" : metricWords(sets[0]!.stats);
  const out = [
    `Success rate: ${heading}`,
    renderTable([{ header: "" }, ...sets.map((s) => ({ header: s.label, right: true }))], rows),
  ];
  for (const { label, stats } of sets) {
    const many = sets.length > 1 ? ` from ${label}` : "";
    if (stats.excluded.length) {
      const list = stats.excluded.slice(0, 20).map((id) => `${id} (${stats.excluded_why[id]})`).join(", ");
      const more = stats.excluded.length > 20 ? `, and ${stats.excluded.length - 20} more` : "";
      out.push(...wrap(`excluded${many} (in no rate; a rerun runs them again): ${list}${more}`, WIDTH, 2));
    }
    const shown = Object.entries(stats.notes).filter(([field]) =>
      // One trial per instance: nothing can flip and pass@1 is the mean; pass^k says what pass@k says.
      k > 1 || !/^(flip_rate|pass_(at|hat)_k\.)/.test(field)
    );
    out.push(...noteLines(`note${many}`, shown, ""));
  }
  return out.join("\n");
}

/** One line per reason, naming every field it applies to. */
function noteLines(head: string, notes: [string, string][], prefix: string): string[] {
  const fields = new Map<string, string[]>();
  for (const [field, why] of notes) fields.set(why, [...(fields.get(why) ?? []), prefix + field]);
  return [...fields].flatMap(([why, names]) => wrap(`${head}: ${names.join(", ")}: ${why}`, WIDTH, 2));
}

/** The pair's block: both sets, then the difference's line and its notes. */
export function pairText(stats: PairStats, la: string, lb: string): string {
  const notes = Object.entries(stats.difference.notes).filter(([, why]) => !stats.line.includes(why));
  return [
    setsText([{ label: la, stats: stats.A }, { label: lb, stats: stats.B }]),
    "",
    stats.line, // one line, to paste
    ...noteLines("note", notes, "difference."),
    "(figures and formulas: docs/statistics.md)",
  ].join("\n");
}
