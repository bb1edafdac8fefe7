/**
 * The terminal: the screen's output (tracking the column the last text ended at) and the prompt's
 * input (raw mode while a prompt waits, so Ctrl-C is a key there and a signal everywhere else;
 * bracketed paste, so a pasted block is one entry and never answers later prompts; history).
 * Stdin and stdout are passed in (`main.ts` gives `Deno.stdin` and `Deno.stdout`).
 *
 * @module
 */
import { drawEntry, LineEditor } from "../../lib/term/line_editor.ts";
import { type Key, KeyParser } from "../../lib/term/keys.ts";
import { stripAnsi } from "../../lib/term/markup.ts";
import type { ScreenOutput } from "./screen.ts";
import type { History } from "./history.ts";
import {
  EndOfInput,
  type Interrupts,
  KeyboardInterrupt,
  type Prompter,
  type ReadOptions,
  TerminalGone,
} from "./user_io.ts";

/** What the input needs of stdin (`Deno.stdin` fits). */
export interface TtyStdin {
  read(buffer: Uint8Array): Promise<number | null>;
  setRaw(mode: boolean): void;
}

/** What the output needs of stdout (`Deno.stdout` fits). */
export interface TtyStdout {
  writeSync(data: Uint8Array): number;
}

const encoder = new TextEncoder();

/** The screen's output on a terminal (or a pipe: `live` false, no colour). */
export class TtyOutput implements ScreenOutput {
  readonly color: boolean;
  readonly live: boolean;
  readonly #stdout: TtyStdout;
  readonly #columns: () => number;
  #column = 0;
  /** The terminal went away (a write failed): nothing more can be shown. */
  gone = false;

  /**
   * @param stdout where to write
   * @param options colour, whether it is a terminal, its width
   */
  constructor(stdout: TtyStdout, options: { color: boolean; live: boolean; columns: () => number }) {
    this.#stdout = stdout;
    this.color = options.color;
    this.live = options.live;
    this.#columns = options.columns;
  }

  /** The column the last written text ended at (where a prompt's entry starts). */
  get column(): number {
    return this.#column;
  }

  columns(): number {
    return this.#columns();
  }

  /** Write to the terminal; one that has gone away (closed: EIO) takes nothing, and the run goes on. */
  write(text: string): void {
    const data = encoder.encode(text);
    try {
      for (let at = 0; at < data.length;) at += this.#stdout.writeSync(data.subarray(at));
    } catch {
      this.gone = true;
    }
    const line = text.slice(Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r")) + 1);
    const width = [...stripAnsi(line)].length;
    this.#column = /[\r\n]/.test(text) ? width : this.#column + width;
  }
}

/** Prompts read from a terminal, one entry at a time, with line editing and history. */
export class TtyInput implements Prompter {
  readonly canAsk = true;
  readonly #stdin: TtyStdin;
  readonly #out: TtyOutput;
  readonly #history: History | undefined;
  readonly #interrupts: Interrupts;
  readonly #hint: string;
  readonly #buffer = new Uint8Array(4096);
  readonly #decoder = new TextDecoder();
  readonly #parser = new KeyParser();
  readonly #keys: Key[] = [];
  #pending: Promise<number | null | "gone"> | undefined;

  /**
   * @param stdin the terminal's input
   * @param out the screen's output (the entry is drawn after what it wrote last)
   * @param interrupts a SIGINT while reading cancels the read as Ctrl-C
   * @param options history, the multi-line key hint
   */
  constructor(
    stdin: TtyStdin,
    out: TtyOutput,
    interrupts: Interrupts,
    options: { history?: History; multilineHint?: string } = {},
  ) {
    this.#stdin = stdin;
    this.#out = out;
    this.#interrupts = interrupts;
    this.#history = options.history;
    this.#hint = options.multilineHint ?? "";
  }

  async read(options: ReadOptions = {}): Promise<string> {
    const editor = new LineEditor({
      multiline: options.multiline ?? false,
      history: options.history ? this.#history?.entries ?? [] : [],
    });
    const offset = this.#out.column;
    const footer = options.multiline ? this.#hint : "";
    let row = 0;
    const draw = (cursor: number, hint: string) => {
      const drawn = drawEntry(row, offset, editor.chars, cursor, this.#out.columns(), hint);
      this.#out.write(drawn.output);
      row = drawn.cursorRow;
    };
    let cancel: (e: KeyboardInterrupt) => void = () => {};
    const cancelled = new Promise<never>((_, reject) => (cancel = reject));
    cancelled.catch(() => {});
    this.#interrupts.onRead((e) => cancel(e));
    try {
      this.#stdin.setRaw(true);
    } catch {
      throw new TerminalGone(); // a terminal already gone has no input to read
    }
    this.#out.write("\x1b[?2004h");
    const finish = () => {
      draw(editor.chars.length, "");
      this.#out.write("\r\n");
    };
    try {
      draw(editor.cursor, footer);
      for (;;) {
        let key: Key;
        try {
          key = await this.#nextKey(cancelled);
        } catch (e) {
          finish();
          throw e;
        }
        const result = editor.handle(key);
        if (result === "edit") {
          draw(editor.cursor, footer);
          continue;
        }
        finish();
        if (result === "interrupt") throw new KeyboardInterrupt();
        if (result === "eof") throw new EndOfInput();
        if (options.history) this.#history?.add(result.submit);
        return result.submit;
      }
    } finally {
      this.#interrupts.onRead(undefined);
      this.#out.write("\x1b[?2004l");
      try {
        this.#stdin.setRaw(false);
      } catch {
        // The terminal is gone (closed): there is no mode to restore.
      }
    }
  }

  async #nextKey(cancelled: Promise<never>): Promise<Key> {
    for (;;) {
      const key = this.#keys.shift();
      if (key) return key;
      // A terminal that closes (its window, an ssh session) fails the read with EIO: its input ended.
      this.#pending ??= this.#stdin.read(this.#buffer).catch((e) => {
        if (e instanceof Deno.errors.BadResource || /\(os error 5\)/.test(String(e?.message))) {
          return "gone" as const;
        }
        throw e;
      });
      const n = await Promise.race([this.#pending, cancelled]);
      this.#pending = undefined;
      if (n === "gone") throw new TerminalGone();
      if (n === null) throw new EndOfInput();
      this.#keys.push(
        ...this.#parser.feed(this.#decoder.decode(this.#buffer.subarray(0, n), { stream: true })),
      );
    }
  }
}
