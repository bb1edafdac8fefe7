/**
 * The `-v` display: the model's text (as it streams in, with `model.stream`), each command and its
 * output, as they happen (control sequences in them shown escaped, never sent to the terminal raw).
 *
 * @module
 */
import type { Action, Message, StreamEvent } from "../core/types.ts";
import { escapeControls } from "../lib/safe_text.ts";

const LIMIT = 2000;
/** Untrusted text cut to {@link LIMIT} characters, its control sequences shown, never run. */
const clip = (
  s: string,
) => escapeControls(s.length > LIMIT ? `${s.slice(0, LIMIT)}\n… (${s.length - LIMIT} more characters)` : s);

/**
 * Render one message for a human reading the run live (no colours when `color` is false).
 * @param streamed a reply's header and text were shown as they arrived: only its commands are left
 */
export function formatForDisplay(message: Message, color: boolean, streamed = false): string {
  const paint = painter(color);
  const extra = message.extra ?? {};
  // Responses API messages: the response object, typed messages, function call outputs.
  if (message.object === "response") {
    const items = (Array.isArray(message.output) ? message.output : []) as Record<string, unknown>[];
    const content = items.filter((i) => i.type === "message").map((i) => partsText(i.content)).join("\n");
    return formatForDisplay({ ...message, role: "assistant", content } as Message, color, streamed);
  }
  if (message.type === "function_call_output") return observation(message, paint);
  if (Array.isArray(message.content)) {
    return formatForDisplay({ ...message, content: partsText(message.content) } as Message, color, streamed);
  }
  switch (message.role) {
    case "system":
    case "user":
      if (extra.interrupt_type) return paint("33", `── format error ──\n${clip(message.content ?? "")}`);
      if (extra.raw_output !== undefined) return observation(message, paint);
      return paint("2", `── ${message.role} ──\n${clip(message.content ?? "")}`);
    case "assistant": {
      const actions = (extra.actions ?? []) as Action[];
      const commands = actions.map((a) => paint("1", `$ ${escapeControls(a.command)}`)).join("\n");
      if (streamed) return commands;
      const text = message.content ? clip(message.content.trim()) + "\n" : "";
      return replyHeader(paint) + "\n" + text + commands;
    }
    case "tool":
      return observation(message, paint);
    case "exit":
      return paint("35", `── exit: ${String(extra.exit_status)} ──`) +
        (extra.submission ? `\n${clip(String(extra.submission))}` : "");
  }
}

/** Colours text with an SGR code when colour is on (`-v` at a terminal, no `NO_COLOR`). */
type Paint = (code: string, s: string) => string;
const painter = (color: boolean): Paint => (code, s) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
/** The line above a reply, whole or streamed. */
const replyHeader = (paint: Paint) => paint("36", "── assistant ──");

function observation(message: Message, paint: Paint): string {
  const extra = message.extra ?? {};
  const rc = Number(extra.returncode);
  const head = paint(
    rc === 0 ? "32" : "31",
    `── returncode ${rc}${extra.exception_info ? ` (${extra.exception_info})` : ""} ──`,
  );
  return `${head}\n${clip(String(extra.raw_output ?? ""))}`;
}

/** The text of typed content parts (`input_text`, `output_text`, `text`). */
function partsText(content: unknown): string {
  if (!Array.isArray(content)) return typeof content === "string" ? content : "";
  return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
}

/**
 * The `-v` display of a run: each message whole as it is appended; a streamed reply's text as it
 * arrives (cut at the same length as a whole one), then its commands.
 */
export class VerboseDisplay {
  readonly #log: (line: string) => void;
  readonly #write: (text: string) => void;
  readonly #color: boolean;
  readonly #paint: Paint;
  /** Characters of the reply streaming in, undefined when none is. */
  #streamed: number | undefined;
  #endsLine = true;

  /**
   * @param log writes one line to stderr
   * @param write writes text to stderr as it is (no line end added)
   */
  constructor(log: (line: string) => void, write: (text: string) => void, color: boolean) {
    this.#log = log;
    this.#write = write;
    this.#color = color;
    this.#paint = painter(color);
  }

  /** A piece of the reply being streamed (`start`: a new attempt of the call). */
  stream(event: StreamEvent): void {
    if (event.type === "end") return;
    if (event.type === "start") {
      const again = this.#streamed !== undefined;
      this.#write(
        `${again ? `${this.#endsLine ? "" : "\n"}(retrying)` : replyHeader(this.#paint)}\n`,
      );
      this.#streamed = 0;
      this.#endsLine = true;
      return;
    }
    const shown = this.#streamed ?? 0;
    this.#streamed = shown + event.text.length;
    if (shown >= LIMIT) return;
    const text = event.text.slice(0, LIMIT - shown);
    this.#write(escapeControls(text));
    this.#endsLine = text.endsWith("\n");
  }

  /** A message appended to the run. */
  message(message: Message): void {
    const streamed = this.#streamed;
    const reply = message.role === "assistant" || message.object === "response";
    this.#streamed = undefined;
    if (!reply || streamed === undefined) {
      // A stream cut short for good (no reply came of it) ends its line first.
      if (streamed !== undefined && !this.#endsLine) this.#write("\n");
      this.#endsLine = true;
      this.#log(formatForDisplay(message, this.#color));
      return;
    }
    const more = streamed > LIMIT ? `… (${streamed - LIMIT} more characters)\n` : "";
    if (!this.#endsLine || more) this.#write(`${this.#endsLine ? "" : "\n"}${more}`);
    const commands = formatForDisplay(message, this.#color, true);
    if (commands) this.#log(commands);
  }
}
