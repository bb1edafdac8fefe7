/**
 * Terminal input as keys: decoded text, in chunks as read, parsed into key presses (control keys,
 * CSI/SS3 sequences, Alt keys) and bracketed pastes, for the line editor (`line_editor.ts`).
 *
 * @module
 */
import { CURSOR_KEYS } from "./cursor_keys.ts";

/** One key press (or one paste). */
export type Key =
  | { kind: "text"; text: string }
  | { kind: "paste"; text: string }
  | {
    kind:
      | "enter"
      | "altEnter"
      | "escape"
      | "backspace"
      | "delete"
      | "left"
      | "right"
      | "up"
      | "down"
      | "home"
      | "end"
      | "wordLeft"
      | "wordRight"
      | "killEnd"
      | "killStart"
      | "killWord"
      | "ctrlC"
      | "ctrlD"
      | "ignore";
  };

type Named = Exclude<Key, { text: string }>["kind"];

const CONTROL: Record<string, Named> = {
  "\r": "enter",
  "\n": "enter",
  "\x7f": "backspace",
  "\x08": "backspace",
  "\x03": "ctrlC",
  "\x04": "ctrlD",
  "\x01": "home",
  "\x05": "end",
  "\x02": "left",
  "\x06": "right",
  "\x10": "up",
  "\x0e": "down",
  "\x0b": "killEnd",
  "\x15": "killStart",
  "\x17": "killWord",
};

const CSI: Record<string, Named> = {
  ...CURSOR_KEYS,
  "1;5C": "wordRight",
  "1;5D": "wordLeft",
  "1;3C": "wordRight",
  "1;3D": "wordLeft",
};

/** The rest of a CSI / SS3 sequence after `ESC [` or `ESC O`. */
const SEQUENCE = /^([0-9;]*[~A-Za-z])/;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Turns terminal input (decoded text, in chunks as read) into {@link Key}s. */
export class KeyParser {
  #buffer = "";
  #paste: string | undefined;

  /**
   * Parse what arrived; an incomplete escape sequence waits for the next chunk (a lone ESC at the
   * end of a chunk is the Escape key).
   */
  feed(chunk: string): Key[] {
    this.#buffer += chunk;
    const keys: Key[] = [];
    let text = "";
    const flushText = () => {
      if (text) keys.push({ kind: "text", text });
      text = "";
    };
    while (this.#buffer.length > 0) {
      if (this.#paste !== undefined) {
        if (!this.#readPaste(keys)) break;
        continue;
      }
      const ch = this.#buffer.charAt(0);
      if (ch === "\x1b") {
        flushText();
        if (!this.#readEscape(keys)) break;
        continue;
      }
      const named = CONTROL[ch];
      if (named) {
        flushText();
        keys.push({ kind: named });
        this.#buffer = this.#buffer.slice(ch === "\r" && this.#buffer[1] === "\n" ? 2 : 1);
        continue;
      }
      if (ch < " " && ch !== "\t") {
        flushText();
        keys.push({ kind: "ignore" });
      } else text += ch;
      this.#buffer = this.#buffer.slice(1);
    }
    flushText();
    return keys;
  }

  /** Inside a paste: up to its end marker. @returns false when the marker has not arrived yet */
  #readPaste(keys: Key[]): boolean {
    const end = this.#buffer.indexOf(PASTE_END);
    if (end === -1) {
      // Keep what may be the start of the end marker for the next chunk.
      const keep = this.#buffer.length - Math.max(0, this.#buffer.lastIndexOf("\x1b"));
      const cut = keep < PASTE_END.length && this.#buffer.includes("\x1b")
        ? this.#buffer.length - keep
        : this.#buffer.length;
      this.#paste += this.#buffer.slice(0, cut);
      this.#buffer = this.#buffer.slice(cut);
      return false;
    }
    keys.push({ kind: "paste", text: (this.#paste + this.#buffer.slice(0, end)).replace(/\r\n?/g, "\n") });
    this.#paste = undefined;
    this.#buffer = this.#buffer.slice(end + PASTE_END.length);
    return true;
  }

  /** At an ESC: a paste's start, Escape, Alt+Enter, a CSI/SS3 key or an Alt key. @returns false to wait for more */
  #readEscape(keys: Key[]): boolean {
    if (this.#buffer.startsWith(PASTE_START)) {
      this.#paste = "";
      this.#buffer = this.#buffer.slice(PASTE_START.length);
      return true;
    }
    if (this.#buffer.length === 1) {
      keys.push({ kind: "escape" });
      this.#buffer = "";
      return false;
    }
    const next = this.#buffer.charAt(1);
    if (next === "\r" || next === "\n") {
      keys.push({ kind: "altEnter" });
      this.#buffer = this.#buffer.slice(2);
      return true;
    }
    if (next === "[" || next === "O") {
      const m = SEQUENCE.exec(this.#buffer.slice(2));
      if (!m) {
        if (/^[0-9;]*$/.test(this.#buffer.slice(2))) return false; // the rest of the sequence is coming
        keys.push({ kind: "ignore" });
        this.#buffer = this.#buffer.slice(2);
        return true;
      }
      keys.push({ kind: CSI[m[0]] ?? "ignore" });
      this.#buffer = this.#buffer.slice(2 + m[0].length);
      return true;
    }
    const alt: Named | undefined = next === "b" ? "wordLeft" : next === "f" ? "wordRight" : undefined;
    keys.push({ kind: alt ?? "escape" });
    this.#buffer = this.#buffer.slice(alt ? 2 : 1);
    return true;
  }
}
