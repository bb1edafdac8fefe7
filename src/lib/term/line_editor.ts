/**
 * Line editing for the interactive prompts, without the terminal: an editor state that keys
 * (`keys.ts`) change (cursor movement, deletion, history recall, multi-line entry,
 * bracketed paste), and the escape sequences that draw the entry after the prompt. `tty.ts` wires
 * them to stdin and stdout.
 *
 * @module
 */
import type { Key } from "./keys.ts";

/** What a key did. */
export type EditResult = "edit" | "interrupt" | "eof" | { submit: string };

/** Options of a {@link LineEditor}. */
export interface EditorOptions {
  /** Enter inserts a newline; Esc then Enter (or Alt+Enter) submits. */
  multiline?: boolean;
  /** Earlier entries, oldest first (Up recalls the newest). */
  history?: readonly string[];
}

/** The entry being edited: code points and a cursor between them. */
export class LineEditor {
  chars: string[] = [];
  cursor = 0;
  readonly #multiline: boolean;
  readonly #history: readonly string[];
  #historyIndex: number;
  #draft: string[] = [];
  #escaped = false;

  /** @param options multi-line entry, history */
  constructor(options: EditorOptions = {}) {
    this.#multiline = options.multiline ?? false;
    this.#history = options.history ?? [];
    this.#historyIndex = this.#history.length;
  }

  /** The entry's text. */
  get text(): string {
    return this.chars.join("");
  }

  /** Apply one key. */
  handle(key: Key): EditResult {
    const escaped = this.#escaped;
    this.#escaped = false;
    switch (key.kind) {
      case "text":
      case "paste":
        this.#insert(key.text);
        return "edit";
      case "enter":
        if (this.#multiline && !escaped) {
          this.#insert("\n");
          return "edit";
        }
        return { submit: this.text };
      case "altEnter":
        return { submit: this.text };
      case "escape":
        this.#escaped = true;
        return "edit";
      case "ctrlC":
        return "interrupt";
      case "ctrlD":
        if (this.chars.length === 0) return "eof";
        this.chars.splice(this.cursor, 1);
        return "edit";
      case "backspace":
      case "delete":
      case "killEnd":
      case "killStart":
      case "killWord":
        this.#delete(key.kind);
        return "edit";
      case "ignore":
        return "edit";
      default:
        this.#move(key.kind);
        return "edit";
    }
  }

  /** Delete before or after the cursor: a character, to the line's end or start, a word. */
  #delete(kind: "backspace" | "delete" | "killEnd" | "killStart" | "killWord"): void {
    switch (kind) {
      case "backspace":
        if (this.cursor > 0) this.chars.splice(--this.cursor, 1);
        return;
      case "delete":
        this.chars.splice(this.cursor, 1);
        return;
      case "killEnd":
        this.chars.splice(this.cursor);
        return;
      case "killStart":
        this.chars.splice(0, this.cursor);
        this.cursor = 0;
        return;
      case "killWord": {
        const start = this.#wordStart();
        this.chars.splice(start, this.cursor - start);
        this.cursor = start;
      }
    }
  }

  /** Move the cursor (up and down past the first or last line recall history). */
  #move(kind: "left" | "right" | "home" | "end" | "wordLeft" | "wordRight" | "up" | "down"): void {
    switch (kind) {
      case "left":
        this.cursor = Math.max(0, this.cursor - 1);
        return;
      case "right":
        this.cursor = Math.min(this.chars.length, this.cursor + 1);
        return;
      case "home":
        this.cursor = this.chars.lastIndexOf("\n", this.cursor - 1) + 1;
        return;
      case "end": {
        const nl = this.chars.indexOf("\n", this.cursor);
        this.cursor = nl === -1 ? this.chars.length : nl;
        return;
      }
      case "wordLeft":
        this.cursor = this.#wordStart();
        return;
      case "wordRight": {
        let i = this.cursor;
        while (this.#isSpace(i)) i++;
        while (this.#isWord(i)) i++;
        this.cursor = i;
        return;
      }
      case "up":
      case "down": {
        const direction = kind === "up" ? -1 : 1;
        if (!this.#lineMove(direction)) this.#recall(direction);
      }
    }
  }

  #isSpace(i: number): boolean {
    const c = this.chars[i];
    return c !== undefined && /\s/.test(c);
  }

  #isWord(i: number): boolean {
    const c = this.chars[i];
    return c !== undefined && !/\s/.test(c);
  }

  #insert(text: string): void {
    const add = [...text.replaceAll("\t", "    ")];
    this.chars.splice(this.cursor, 0, ...add);
    this.cursor += add.length;
  }

  #wordStart(): number {
    let i = this.cursor;
    while (this.#isSpace(i - 1)) i--;
    while (this.#isWord(i - 1)) i--;
    return i;
  }

  /** In a multi-line entry, move to the line above or below; false on the first / last line. */
  #lineMove(direction: -1 | 1): boolean {
    const start = this.chars.lastIndexOf("\n", this.cursor - 1) + 1;
    const column = this.cursor - start;
    if (direction < 0) {
      if (start === 0) return false;
      const prevStart = this.chars.lastIndexOf("\n", start - 2) + 1;
      this.cursor = Math.min(prevStart + column, start - 1);
    } else {
      const nl = this.chars.indexOf("\n", this.cursor);
      if (nl === -1) return false;
      const nextEnd = this.chars.indexOf("\n", nl + 1);
      this.cursor = Math.min(nl + 1 + column, nextEnd === -1 ? this.chars.length : nextEnd);
    }
    return true;
  }

  #recall(direction: -1 | 1): void {
    const index = this.#historyIndex + direction;
    if (index < 0 || index > this.#history.length) return;
    if (this.#historyIndex === this.#history.length) this.#draft = this.chars;
    this.#historyIndex = index;
    const entry = this.#history[index];
    this.chars = entry === undefined ? this.#draft : [...entry];
    this.cursor = this.chars.length;
  }
}

/** Where the drawn entry leaves the cursor, relative to the entry's first row. */
export interface Drawn {
  /** Escape sequences and text to write. */
  output: string;
  /** Row of the cursor (0 = the prompt's row). */
  cursorRow: number;
  /** Row of the entry's end (the footer's row when there is one). */
  endRow: number;
}

/**
 * Draw the entry after the prompt: back to the prompt's row (from `fromRow`), clear below, write the
 * text (and a dim footer line), and put the cursor in place. Columns are counted one per code point
 * (wide characters are not measured).
 *
 * @param fromRow the row the cursor is on now (a previous {@link Drawn.cursorRow}, 0 at first)
 * @param offset the column the prompt ends at
 * @param chars the entry
 * @param cursor the cursor index into `chars`
 * @param width terminal columns
 * @param footer a hint line under the entry
 */
export function drawEntry(
  fromRow: number,
  offset: number,
  chars: readonly string[],
  cursor: number,
  width: number,
  footer = "",
): Drawn {
  width = Math.max(1, width);
  offset %= width;
  let out = fromRow > 0 ? `\x1b[${fromRow}A\r` : "\r";
  if (offset > 0) out += `\x1b[${offset}C`;
  out += "\x1b[J" + chars.join("").replaceAll("\n", "\r\n");
  const position = (count: number): [number, number] => {
    let row = 0;
    let col = offset;
    for (let i = 0; i < count; i++) {
      if (chars[i] === "\n") {
        row++;
        col = 0;
        continue;
      }
      if (col === width) {
        row++;
        col = 0;
      }
      col++;
    }
    return col === width ? [row + 1, 0] : [row, col];
  };
  let [endRow, endCol] = position(chars.length);
  if (chars.length > 0 && endCol === 0 && chars.at(-1) !== "\n") out += "\r\n"; // leave the pending wrap
  if (footer) {
    out += `\r\n\x1b[2m${footer.slice(0, width - 1)}\x1b[0m`;
    endRow += 1;
    endCol = Math.min(footer.length, width - 1);
  }
  const [row, col] = position(cursor);
  if (endRow > row) out += `\x1b[${endRow - row}A`;
  if (endCol !== col || endRow !== row) out += "\r" + (col > 0 ? `\x1b[${col}C` : "");
  return { output: out, cursorRow: row, endRow };
}
