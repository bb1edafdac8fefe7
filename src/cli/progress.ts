/**
 * What a run that asks nothing shows as it goes (without `-v` or `-q`): each step with the running
 * cost, each command and a short result line (return code, output size, its first line). At a
 * terminal the lines fit its width and are coloured; in a log (stderr not a terminal) each command is
 * one plain line, so a run in CI, Slurm or Harbor shows that it moves and where it stopped.
 *
 * @module
 */
import type { Action, Message } from "../core/types.ts";
import { escapeControls } from "../lib/safe_text.ts";
import { fmtCost } from "../lib/formats.ts";

/** Where the lines go and how they look. */
export interface ProgressOptions {
  /** Lines for a terminal (fitted to `columns`, coloured when `color`), else one plain line per command. */
  terminal: boolean;
  color: boolean;
  /** The terminal's width. */
  columns: () => number;
  /** A resumed run: the steps and cost of the run it goes on from (its steps are numbered on). */
  before?: { steps: number; cost: number };
}

/** The most characters of a log line (a command's first line is cut to fit). */
const LOG_LINE = 200;

/** `text` cut to `width` characters, with an ellipsis when cut. */
export function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(1, width - 1)).join("")}…`;
}

/** The first line of a command, with how many lines follow (a heredoc, a script). */
function commandLine(command: string): string {
  const lines = command.trim().split("\n");
  const more = lines.length - 1;
  return escapeControls(lines[0] ?? "") + (more > 0 ? ` … (+${more} line${more === 1 ? "" : "s"})` : "");
}

/** `12 lines (3.4 kB)`, `1 line`, `no output`. */
function size(output: string): string {
  if (output === "") return "no output";
  const lines = output.replace(/\n$/, "").split("\n").length;
  const bytes = new TextEncoder().encode(output).length;
  const kb = bytes >= 1000 ? ` (${(bytes / 1000).toFixed(bytes < 10_000 ? 1 : 0)} kB)` : "";
  return `${lines} line${lines === 1 ? "" : "s"}${kb}`;
}

/** The first line of output that is not blank, escaped. */
function firstLine(output: string): string {
  return escapeControls(output.split("\n").find((l) => l.trim() !== "")?.trim() ?? "");
}

/**
 * Follows a run's messages (an episode's `watch.message`) and writes its progress, one line at a time.
 *
 * @example
 * ```ts
 * import { Progress } from "./progress.ts";
 * const lines: string[] = [];
 * const p = new Progress((l) => lines.push(l), { terminal: false, color: false, columns: () => 80 });
 * const extra = { response: {}, timestamp: 0 };
 * p.message({ role: "assistant", content: "", extra: { actions: [{ command: "ls" }], cost: 0.01, ...extra } });
 * const output = { raw_output: "a\nb\n", returncode: 0, exception_info: "", timestamp: 0 };
 * p.message({ role: "tool", tool_call_id: "1", content: "", extra: output });
 * lines; // ["step 1 · $0.0100 · $ ls · rc 0 · 2 lines"]
 * ```
 */
export class Progress {
  readonly #write: (line: string) => void;
  readonly #o: ProgressOptions;
  #step = 0;
  #cost = 0;
  #costs = false;
  /** The step's commands whose output has not come yet. */
  #waiting: Action[] = [];

  /**
   * @param write receives each line
   * @param options terminal or log, colours, width
   */
  constructor(write: (line: string) => void, options: ProgressOptions) {
    this.#write = write;
    this.#o = options;
    this.#step = options.before?.steps ?? 0;
    this.#cost = options.before?.cost ?? 0;
    this.#costs = this.#cost > 0;
  }

  #paint(code: string, text: string): string {
    return this.#o.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }

  /** `step 3 · $0.0123` (no cost while the model reports none). */
  #head(): string {
    return `step ${this.#step}${this.#costs ? ` · ${fmtCost(this.#cost)}` : ""}`;
  }

  /** Take in one message of the run. */
  message(m: Message): void {
    const extra: Record<string, unknown> = m.extra ?? {};
    if (typeof extra.cost === "number" && extra.cost > 0) {
      this.#cost += extra.cost;
      this.#costs = true;
    }
    const model = m.role === "assistant" || (m as { object?: unknown }).object === "response";
    if (model && Array.isArray(extra.actions)) return this.#modelStep(extra.actions as Action[]);
    if (extra.interrupt_type === "FormatError") return this.#formatError();
    if (extra.raw_output !== undefined && extra.returncode !== undefined) {
      return this.#output(String(extra.raw_output), Number(extra.returncode), extra.exception_info);
    }
    if (m.role === "exit") return this.#exit(String(extra.exit_status));
  }

  /** A submission (its command's output is the submission: no observation follows). */
  #exit(status: string): void {
    const pending = this.#waiting.length > 0;
    this.#waiting = [];
    if (!pending || status !== "Submitted") return;
    this.#write(this.#o.terminal ? this.#paint("32", "    → submitted") : `${this.#head()} · submitted`);
  }

  #modelStep(actions: Action[]): void {
    this.#step++;
    this.#waiting = [...actions];
    if (!this.#o.terminal) return;
    this.#write(this.#paint("1;36", this.#head()));
    this.#command();
  }

  /** At a terminal: the command that runs next (its result line follows when its output comes). */
  #command(): void {
    const next = this.#waiting[0];
    if (next) this.#write(this.#paint("1", fit(`  $ ${commandLine(next.command)}`, this.#o.columns())));
  }

  #formatError(): void {
    this.#step++;
    const what = "format error: the reply held no valid command (the model is told)";
    if (this.#o.terminal) this.#write(`${this.#paint("1;36", this.#head())} · ${this.#paint("33", what)}`);
    else this.#write(`${this.#head()} · ${what}`);
  }

  #output(output: string, rc: number, exception: unknown): void {
    const action = this.#waiting.shift();
    const failed = typeof exception === "string" && exception !== "" ? exception.split("\n")[0]! : "";
    const result = [`rc ${rc}`, ...(failed ? [escapeControls(failed)] : []), size(output)].join(" · ");
    if (!this.#o.terminal) {
      const command = action ? ` · $ ${commandLine(action.command)}` : "";
      return this.#write(fit(`${this.#head()}${command} · ${result}`, LOG_LINE));
    }
    const first = firstLine(output);
    const text = fit(`    → ${result}${first ? ` · ${first}` : ""}`, this.#o.columns());
    this.#write(this.#paint(rc === 0 && !failed ? "2" : "31", text));
    this.#command();
  }
}
