/**
 * The end of a run as a person reads it: how it ended, its steps, cost, tokens and time (the figures
 * `claudius stats` reads from the trajectory, counted from what the run holds), where the trajectory
 * and the working directory are, and the commands to try next. At a terminal a short block; in a log
 * one line.
 *
 * @module
 */
import { fmtCost, fmtCount, fmtSeconds } from "../lib/formats.ts";
import { shownPath } from "../lib/safe_text.ts";
import { isPlainObject } from "../lib/json.ts";

/** The run as it ended: its messages and what it cost (the trajectory's `info.model_stats.instance_cost`). */
export interface HeldRun {
  messages: readonly object[];
  cost: number;
}

/** What the summary is about. */
export interface SummaryInput {
  /** The exit status, and a note after it (` (best-of-3: not pass@1)`). */
  status: string;
  note?: string;
  /** The trajectory file (absolute). */
  trajectory: string;
  /**
   * The run as it holds it, counted instead of the file: the same figures without reading back and
   * parsing a file of many megabytes at the end of a long run (absent: the file is read).
   */
  held?: HeldRun;
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
  const counted = input.held ? runFigures(input.held) : await fileFigures(input.trajectory);
  const figures = counted === undefined ? [] : [
    `${counted.steps} step${counted.steps === 1 ? "" : "s"}`,
    fmtCost(counted.cost),
    `${fmtCount(counted.promptTokens)} tokens in, ${fmtCount(counted.completionTokens)} out`,
    fmtSeconds(counted.wallSeconds),
  ];
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

/** The figures the summary shows. */
export interface RunFigures {
  steps: number;
  cost: number;
  promptTokens: number;
  completionTokens: number;
  wallSeconds: number;
}

/** A token count or a cost: a finite number >= 0 (anything else counts as missing, as `claudius stats` reads it). */
const count = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : undefined);
const finite = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : undefined);
const rec = (x: unknown): Record<string, unknown> => (isPlainObject(x) ? x : {});

/**
 * The summary's figures from a run's messages, as `claudius stats` reads them from the file the run
 * wrote (`parseTrajectory`, for a `mini-swe-agent-1.1` file): one step per model call (an assistant
 * message, a format error's turn, a Responses API reply), before the exit message; the tokens of each
 * call's `usage` (chat completions' or the Responses API's names); the seconds from the first
 * timestamp to the last; the run's own cost (else the steps' `extra.cost`).
 *
 * @example
 * ```ts
 * import { runFigures } from "./summary.ts";
 * const reply = { role: "assistant", extra: { response: { usage: { prompt_tokens: 9, completion_tokens: 2 } } } };
 * runFigures({ messages: [{ role: "user", content: "hi" }, reply], cost: 0.5 }).promptTokens; // 9
 * ```
 */
export function runFigures({ messages, cost }: HeldRun): RunFigures {
  const exitAt = messages.findLastIndex((m) => rec(m).role === "exit");
  const figures = { steps: 0, cost: 0, promptTokens: 0, completionTokens: 0, wallSeconds: 0 };
  let first: number | undefined, last: number | undefined;
  for (const [i, message] of messages.entries()) {
    const m = rec(message);
    const extra = rec(m.extra);
    const t = finite(extra.timestamp) ?? finite(m.timestamp);
    if (t !== undefined && (first === undefined || t < first)) first = t;
    if (t !== undefined && (last === undefined || t > last)) last = t;
    const role = typeof m.role === "string" ? m.role : "";
    const formatError = extra.interrupt_type === "FormatError";
    if (
      i === exitAt || !(role === "assistant" || formatError || (role === "" && Array.isArray(extra.actions)))
    ) {
      continue;
    }
    figures.steps++;
    figures.cost += count(extra.cost) ?? 0;
    // A Responses API reply is the response itself; a format error's turn carries it in extra.
    const response = isPlainObject(extra.response)
      ? extra.response
      : !formatError && Array.isArray(m.output)
      ? m
      : {};
    const usage = response.usage;
    if (!isPlainObject(usage)) continue;
    figures.promptTokens += count(usage.prompt_tokens) ?? count(usage.input_tokens) ?? 0;
    figures.completionTokens += count(usage.completion_tokens) ?? count(usage.output_tokens) ?? 0;
  }
  figures.cost = count(cost) ?? figures.cost;
  if (first !== undefined && last !== undefined) figures.wallSeconds = last - first;
  return figures;
}

/** The figures of a trajectory file (read and parsed as `claudius stats` reads it), undefined when it cannot be read. */
async function fileFigures(path: string): Promise<RunFigures | undefined> {
  const { loadTrajectory } = await import("../tools/trajectories/load_trajectory.ts");
  return await loadTrajectory(path).then((t) => ({
    steps: t.steps.length,
    cost: t.reportedCost ?? t.totals.cost,
    promptTokens: t.totals.tokens.prompt,
    completionTokens: t.totals.tokens.completion,
    wallSeconds: t.totals.wallSeconds,
  }), () => undefined);
}
