/**
 * The inspector's pages of one trajectory: page 0 is the task (system prompt and task), page k is
 * step k (the k-th model call, format-error turns included, so numbers match the trajectory's
 * `api_calls`). Each page is lines of safe spans; its footer sums up the step.
 *
 * @module
 */
import type { StepLabels } from "../trajectories/action_types.ts";
import { fmtCost, fmtCount, fmtSeconds } from "../../lib/formats.ts";
import type { Step, StepAction, Trajectory } from "../trajectories/types.ts";
import { type Line, safeLines, safeText, type Style } from "../../lib/text.ts";

/** What a page shows. */
export interface PageOptions {
  /** Show the model's reasoning text. */
  reasoning: boolean;
}

/** Pages of a trajectory: the task page and one per step. */
export function pageCount(t: Trajectory): number {
  return t.steps.length + 1;
}

const heading = (text: string, style: Style = "heading"): Line => [{ text, style }];

/** How an exit status reads: `(running)` while the run has not ended. */
export function statusText(status: string): string {
  return status === "" ? "(running)" : status;
}

/**
 * The lines of page `page` (0 = the task).
 *
 * @param t the trajectory
 * @param page 0 .. steps
 * @param o what to show
 */
export function pageLines(t: Trajectory, page: number, o: PageOptions): Line[] {
  const lines: Line[] = [];
  const block = (title: Line, text: string, style: Style = "plain") => {
    if (lines.length) lines.push([]);
    lines.push(title);
    for (const line of safeLines(text, style)) lines.push(line); // a task or reply may be long too
  };
  if (page === 0) {
    block(heading("SYSTEM"), t.system);
    block(heading("TASK"), t.instance);
  } else {
    const step = t.steps[page - 1]!;
    // The submitting command ran, but its output went to the exit message, not an observation.
    const submitting = page === pageCount(t) - 1 && t.exit.status === "Submitted"
      ? step.actions.find((a) => a.observation === undefined)
      : undefined;
    stepLines(step, o, block, lines, submitting);
  }
  if (page === pageCount(t) - 1 && t.exit.messageIndex !== undefined) {
    const ok = t.exit.status === "Submitted";
    const body = [
      t.exit.content,
      t.exit.exceptionStr && t.exit.exceptionStr !== t.exit.content ? t.exit.exceptionStr : "",
    ]
      .filter((x) => x).join("\n");
    block(heading(`EXIT: ${safeText(t.exit.status)}`, ok ? "ok" : "error"), body || "(no message)", "plain");
    if (t.exit.submission && t.exit.submission !== t.exit.content) {
      block(heading("SUBMISSION"), t.exit.submission);
    }
  }
  return lines;
}

type Block = (title: Line, text: string, style?: Style) => void;

function stepLines(
  step: Step,
  o: PageOptions,
  block: Block,
  lines: Line[],
  submitting: StepAction | undefined,
): void {
  if (step.reasoning) {
    if (o.reasoning) block(heading("REASONING", "dim"), step.reasoning, "dim");
    else block(heading("(reasoning hidden: r shows it)", "dim"), "");
  }
  if (step.kind === "format_error") {
    block(heading("ASSISTANT (reply rejected: format error)", "warn"), step.text || "(no text)");
    for (const call of step.toolCalls) {
      lines.push(...safeLines(`tool call ${call.function.name} ${call.function.arguments}`, "command"));
    }
    block(heading("FORMAT ERROR (what the model was told)", "warn"), step.formatError ?? "");
    return;
  }
  block(heading("ASSISTANT"), step.text || "(no text)");
  step.actions.forEach((a, i) => {
    lines.push([]);
    const label = step.actions.length > 1 ? `action ${i + 1}/${step.actions.length}` : "action";
    const obs = a.observation;
    const rc = obs?.returncode;
    const state: Line = a === submitting
      ? [{ text: " · submitted (its output is the submission)", style: "ok" }]
      : obs === undefined
      ? [{ text: " · not run (the run ended during this turn)", style: "dim" }]
      : obs.timedOut
      ? [{ text: " · timed out", style: "error" }]
      : rc === undefined
      ? []
      : [{ text: ` · returncode ${rc}`, style: rc === 0 ? "ok" : "error" }];
    lines.push([{ text: label.toUpperCase(), style: "heading" }, ...state]);
    const cmd = safeLines(a.command, "command");
    cmd[0]!.unshift({ text: "$ ", style: "command" });
    lines.push(...cmd);
    if (obs) { for (const line of safeLines(obs.content, "plain")) lines.push(line); // may be many
     }
  });
}

/** The messages a page shows (for `e`, the JSON pager). */
export function pageMessages(t: Trajectory, page: number): Trajectory["messages"] {
  const first = t.steps[0]?.messageIndex ?? t.exit.messageIndex ?? t.messages.length;
  const last = page === pageCount(t) - 1;
  if (page === 0) return t.messages.slice(0, last ? t.messages.length : first);
  const step = t.steps[page - 1]!;
  return t.messages.slice(step.messageIndex, last ? t.messages.length : step.endIndex);
}

const tokens = (prompt: number, completion: number, cached: number) =>
  `${fmtCount(prompt)} in${cached ? ` (${fmtCount(cached)} cached)` : ""} / ${fmtCount(completion)} out`;

/**
 * The footer of a page: for a step its return codes, times, tokens, cost and action types; for the
 * task page the trajectory's totals.
 *
 * @param t the trajectory
 * @param page 0 .. steps
 * @param labels the step's action types, when classified
 */
export function pageFooter(t: Trajectory, page: number, labels: StepLabels | undefined): Line {
  const parts: string[] = [];
  if (page === 0) {
    const x = t.totals;
    parts.push(
      statusText(t.exit.status),
      `${t.steps.length} steps (${x.formatErrors} format errors)`,
      `${x.commands} commands (${x.timeouts} timed out)`,
      fmtCost(t.reportedCost ?? x.cost),
      tokens(x.tokens.prompt, x.tokens.completion, x.tokens.cached),
      `wall ${fmtSeconds(x.wallSeconds)} (model ${fmtSeconds(x.modelSeconds)}, commands ${
        fmtSeconds(x.commandSeconds)
      })`,
    );
    if (t.modelName) parts.push(t.modelName);
  } else {
    const s = t.steps[page - 1]!;
    if (s.kind === "format_error") parts.push("format error");
    else {
      const codes = s.actions.map((a) => {
        const o = a.observation;
        return o === undefined ? "-" : o.timedOut ? "timeout" : String(o.returncode ?? "?");
      });
      parts.push(`rc ${codes.join(",") || "-"}`);
    }
    if (s.modelSeconds !== undefined) parts.push(`model ${fmtSeconds(s.modelSeconds)}`);
    if (s.commandSeconds !== undefined) parts.push(`commands ${fmtSeconds(s.commandSeconds)}`);
    if (s.usage) parts.push(tokens(s.usage.prompt, s.usage.completion, s.usage.cached));
    parts.push(fmtCost(s.cost));
    if (labels?.actions.length) {
      parts.push(`types ${labels.actions.map((a) => a.primary ?? "-").join(",")}`);
    }
  }
  return [{ text: safeText(parts.join(" · ")), style: "dim" }];
}
