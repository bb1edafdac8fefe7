/**
 * What an interactive run shows: each message as it is appended (upstream's layout: a header per
 * message, `claudius (step N, $X.XX):` for the model's), the commands of a turn numbered, long
 * contents folded (on screen only: the model and the trajectory get everything), a spinner with the
 * elapsed time while waiting, the model's reply as it streams in, prompts and notices.
 *
 * @module
 */
import { escapeControls } from "../../lib/safe_text.ts";
import type { Action, Message } from "../../core/types.ts";
import type { StreamEvent } from "../../core/types.ts";
import { escape, paint } from "../../lib/term/markup.ts";
import { formatFixed2 } from "./_texts.ts";
import { isPlainObject } from "../../lib/json.ts";

/** Where the screen writes. */
export interface ScreenOutput {
  /** Write text as it is (ANSI sequences included when `color`). */
  write(text: string): void;
  /** Colour on (a terminal, and no `NO_COLOR`). */
  readonly color: boolean;
  /** A terminal: the spinner may redraw its line. */
  readonly live: boolean;
  /** Terminal width. */
  columns(): number;
  /** The column the last text ended at (0: at the start of a line), when known. */
  readonly column?: number;
}

/** Where the run is, for the model's header. */
export interface StepInfo {
  step: number;
  cost: number;
}

/** Display options. */
export interface ScreenOptions {
  /** Fold contents longer than this many lines (head and tail shown). Default 40. */
  foldLines?: number;
  /** Fold contents longer than this many characters. Default 4000. */
  foldChars?: number;
  /** Milliseconds clock (spinner). Default `performance.now`. */
  now?: () => number;
}

interface Spinner {
  timer: ReturnType<typeof setTimeout> | undefined;
  drawn: boolean;
}

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
const ROLE_NAMES: Record<string, string> = { system: "System", user: "User", tool: "Tool", exit: "Exit" };

/**
 * A message's text as upstream's `get_content_string` finds it: string content, the text of typed
 * parts (multimodal content, a Responses turn's `input_text`), or a Responses item's `output` (a reply's
 * message items, a tool result's string).
 */
function textOf(message: Message): string {
  const texts = (parts: unknown): string[] =>
    Array.isArray(parts)
      ? parts.flatMap((p) => (typeof p?.text === "string" && p.text ? [p.text] : []))
      : typeof parts === "string" && parts
      ? [parts]
      : [];
  const found = [...texts(message.content)];
  const output: unknown = message.output;
  if (typeof output === "string") found.push(output);
  else if (Array.isArray(output)) {
    for (const item of output) if (item?.type === "message") found.push(...texts(item.content));
  }
  return found.join("\n\n");
}

/** The interactive display (see the module doc). */
export class Screen {
  readonly #out: ScreenOutput;
  readonly #foldLines: number;
  readonly #foldChars: number;
  readonly #now: () => number;
  #spinner: Spinner | undefined;
  #reply: StepInfo = { step: 0, cost: 0 };
  #streamed = false;
  #streamEndsLine = true;

  /**
   * @param out where to write
   * @param options folding thresholds, clock
   */
  constructor(out: ScreenOutput, options: ScreenOptions = {}) {
    this.#out = out;
    this.#foldLines = options.foldLines ?? 40;
    this.#foldChars = options.foldChars ?? 4000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Whether colour is on. */
  get color(): boolean {
    return this.#out.color;
  }

  /** Show a prompt or notice written in markup. */
  say(markup: string): void {
    this.#show(markup);
  }

  /** Make room for a line written elsewhere (a warning on stderr): no spinner, a fresh line. */
  aside(): void {
    this.#stop();
    if ((this.#out.column ?? 0) > 0) this.#out.write("\r\n");
  }

  /** The line between steps. */
  rule(): void {
    this.#show(`[dim]${"─".repeat(Math.max(10, this.#out.columns()))}[/]\n`);
  }

  /** Show a message as it is appended. */
  message(message: Message, at: StepInfo): void {
    // A Responses reply is the response object itself (no role), as upstream keeps it.
    if (message.role === "assistant" || message.object === "response") {
      const listed: unknown = message.extra?.actions;
      const actions = Array.isArray(listed) ? listed.filter(isAction) : [];
      const text = textOf(message);
      if (!this.#streamed) {
        this.#show(`\n${this.#header(at)}\n`);
        if (text) this.#write(this.#fold(escapeControls(text)) + "\n");
      } else if (!this.#streamEndsLine) this.#write("\n");
      this.#streamed = false;
      this.#commands(actions.map((a) => a.command));
      return;
    }
    const name = message.role === "user" && message.extra && "actions" in message.extra
      ? "User"
      : message.type === "function_call_output"
      ? "Tool"
      : ROLE_NAMES[message.role] ?? message.role;
    this.#show(`\n[bold green]${name}[/]:\n`);
    this.#write(this.#fold(escapeControls(textOf(message)).replace(/\n$/, "")) + "\n");
  }

  /** Before a model call: where the run is, for a streamed reply's header. */
  replyStart(at: StepInfo): void {
    this.#reply = at;
    this.#streamed = false;
  }

  /** The model's reply as it arrives (`model.stream`). */
  stream(event: StreamEvent): void {
    this.#stop();
    if (event.type === "start") {
      this.#write(
        paint(this.#streamed ? "\n[dim](retrying)[/]\n" : `\n${this.#header(this.#reply)}\n`, this.color),
      );
      this.#streamed = true;
      this.#streamEndsLine = true;
    } else if (event.type === "text" && event.text) {
      this.#write(escapeControls(event.text));
      this.#streamEndsLine = event.text.endsWith("\n");
    }
  }

  /**
   * Show a spinner with the elapsed time until the returned function is called (terminals only).
   * @param label what is being waited for
   * @param delayMs draw nothing if it ends sooner
   */
  busy(label: string, delayMs = 0): () => void {
    this.#stop();
    if (!this.#out.live) return () => {};
    const start = this.#now();
    const spinner: Spinner = { timer: undefined, drawn: false };
    const draw = () => {
      const elapsed = (this.#now() - start) / 1000;
      const frame = FRAMES[Math.floor(elapsed * 10) % FRAMES.length];
      this.#out.write(
        `\r${paint(`[cyan]${frame}[/] ${escape(label)} [dim]${elapsed.toFixed(1)} s[/]`, this.color)}\x1b[K`,
      );
      spinner.drawn = true;
      spinner.timer = setTimeout(draw, 100);
    };
    spinner.timer = setTimeout(draw, delayMs);
    this.#spinner = spinner;
    return () => {
      if (this.#spinner === spinner) this.#stop();
    };
  }

  #stop(): void {
    const s = this.#spinner;
    if (!s) return;
    clearTimeout(s.timer);
    if (s.drawn) this.#out.write("\r\x1b[2K");
    this.#spinner = undefined;
  }

  #show(markup: string): void {
    this.#endStream();
    this.#write(paint(markup, this.#out.color));
  }

  #endStream(): void {
    this.#stop();
    if (this.#streamed && !this.#streamEndsLine) {
      this.#out.write("\n");
      this.#streamEndsLine = true;
    }
  }

  #write(text: string): void {
    this.#stop();
    this.#out.write(text);
  }

  #header(at: StepInfo): string {
    return `[bold red]claudius[/] (step [bold]${at.step}[/], [bold]$${formatFixed2(at.cost)}[/]):`;
  }

  #commands(commands: string[]): void {
    commands.forEach((command, i) => {
      const tag = `[${i + 1}] `;
      const body = escapeControls(command).split("\n").join("\n" + " ".repeat(tag.length));
      this.#write(paint(`\n[bold cyan]${escape(tag)}[/][bold]${escape(body)}[/]`, this.color));
    });
    if (commands.length) this.#write("\n");
  }

  #fold(text: string): string {
    const lines = text.split("\n");
    let out = text;
    if (lines.length > this.#foldLines) {
      const head = Math.ceil(this.#foldLines / 2);
      const tail = Math.floor(this.#foldLines / 4);
      const hidden = lines.length - head - tail;
      out = [...lines.slice(0, head), this.#note(`${hidden} lines folded`), ...lines.slice(-tail)].join("\n");
    }
    if (out.length > this.#foldChars) {
      const head = Math.ceil(this.#foldChars / 2);
      const tail = Math.floor(this.#foldChars / 4);
      const hidden = out.length - head - tail;
      out = `${out.slice(0, head)}\n${this.#note(`${hidden} characters folded`)}\n${out.slice(-tail)}`;
    }
    return out;
  }

  #note(what: string): string {
    return paint(`[dim]… ${what} (on screen only: the model sees everything) …[/]`, this.color);
  }
}

function isAction(a: unknown): a is Action {
  return isPlainObject(a) && typeof a.command === "string";
}
