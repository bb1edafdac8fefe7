/**
 * The end of a run as a person reads it: how it ended, its steps, cost, tokens and time (read back
 * from the trajectory, so they are the figures `claudius stats` prints), where the trajectory and the
 * working directory are, and the commands to try next. At a terminal a short block; in a log one line.
 *
 * @module
 */
import { loadTrajectory } from "../tools/trajectories/load_trajectory.ts";
import { parseTrajectory } from "../tools/trajectories/parse_trajectory.ts";
import { fmtCost, fmtCount, fmtSeconds } from "../lib/formats.ts";
import { shownPath } from "../lib/safe_text.ts";

/** What the summary is about. */
export interface SummaryInput {
  /** The exit status, and a note after it (` (best-of-3: not pass@1)`). */
  status: string;
  note?: string;
  /** The trajectory file (absolute). */
  trajectory: string;
  /**
   * The trajectory as the run holds it (its messages and `info.model_stats`), read instead of the file:
   * the same figures without reading back and parsing a file of many megabytes at the end of a long run.
   */
  data?: unknown;
  /** The host's working directory (paths under it are shown relative to it). */
  cwd: string;
  /** Where the commands ran, in words (see `whereCommandsRun`). */
  where?: string;
  /** The directory single runs save to (`<cwd>/runs`): there, `resume --last` finds the run. */
  runsDir: string;
  /** A block for a terminal (coloured when `color`), else one line. */
  terminal: boolean;
  color: boolean;
}

const STATUS_COLOUR: Record<string, string> = { Submitted: "32", LimitsExceeded: "33", TimeExceeded: "33" };

/**
 * The summary's lines. Figures the trajectory cannot give (a file torn beyond repair) are left out.
 *
 * @example
 * ```ts ignore
 * const lines = await summaryLines({ status: "Submitted", trajectory: "/w/runs/a.traj.json", cwd: "/w",
 *   runsDir: "/w/runs", terminal: true, color: false });
 * // ["claudius: Submitted · 3 steps · $0.0120 · 1.10k tokens in, 100 out · 4.2s", ...]
 * ```
 */
export async function summaryLines(input: SummaryInput): Promise<string[]> {
  const read = input.data === undefined
    ? loadTrajectory(input.trajectory)
    : Promise.resolve().then(() => parseTrajectory(input.data, { path: input.trajectory }));
  const figures = await read.then((t) => {
    const tokens = t.totals.tokens;
    return [
      `${t.steps.length} step${t.steps.length === 1 ? "" : "s"}`,
      fmtCost(t.reportedCost ?? t.totals.cost),
      `${fmtCount(tokens.prompt)} tokens in, ${fmtCount(tokens.completion)} out`,
      fmtSeconds(t.totals.wallSeconds),
    ];
  }, () => []);
  const path = shownPath(input.trajectory, input.cwd);
  const status = `${input.status}${input.note ?? ""}`;
  if (!input.terminal) {
    const more = figures.length ? ` (${figures.join(", ")})` : "";
    const ran = input.where ? `; commands ran in ${input.where}` : "";
    return [`claudius: ${status}; trajectory saved to ${path}${more}${ran}`];
  }
  const paint = (code: string, text: string) => (input.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const colour = STATUS_COLOUR[input.status] ?? "31";
  const lines = [
    `claudius: ${paint(`1;${colour}`, status)}${figures.map((f) => ` · ${f}`).join("")}`,
    `  trajectory  ${path}`,
    ...(input.where ? [`  ran in      ${input.where}`] : []),
  ];
  const next = [`claudius inspect ${path}`, `claudius stats ${path}`];
  if (input.status !== "Submitted") {
    const dir = input.trajectory.slice(0, input.trajectory.lastIndexOf("/"));
    next.push(dir === input.runsDir ? "claudius resume --last" : `claudius resume ${path}`);
  }
  // Whole, to copy: a long path may be wider than the terminal, never cut.
  lines.push(...next.map((c, i) => `  ${i ? "      " : "next: "}${paint("1", c)}`));
  return lines;
}
