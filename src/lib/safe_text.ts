/**
 * Untrusted text (model replies, command outputs, file names) made safe for a terminal: control
 * characters (C0 but tab and newline, DEL, C1) and invisible formatting characters (bidi overrides,
 * zero-width spaces, line separators, BOM) become visible escapes (`\x1b`, `\u{202e}`), so a
 * command's output can neither move the cursor, retitle the window, write the clipboard (OSC 52)
 * nor reorder what the user reads.
 *
 * @module
 */

/** One unsafe character: C0 but tab and newline, DEL, C1, bidi and zero-width formatting, BOM. */
// deno-lint-ignore no-control-regex
export const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const UNSAFE_G = new RegExp(UNSAFE.source, "g");

/** The visible escape of one unsafe character: `\x1b`, `\r`, `\u{202e}`. */
export function escapeChar(c: string): string {
  const code = c.codePointAt(0)!;
  if (c === "\r") return "\\r";
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * `text` with its lines and tabs kept and every other unsafe character escaped (CRLF counts as a
 * newline).
 *
 * @example
 * ```ts
 * import { escapeControls } from "./safe_text.ts";
 * escapeControls("ok\r\n\x1b]52;c;ZXZpbA==\x07\n"); // "ok\n\\x1b]52;c;ZXZpbA==\\x07\n"
 * ```
 * @param text untrusted text
 * @returns text that prints as it reads
 */
export function escapeControls(text: string): string {
  return UNSAFE.test(text) ? text.replace(/\r\n/g, "\n").replace(UNSAFE_G, escapeChar) : text;
}

/**
 * `text` as one line of a terminal display: {@link escapeControls}, and newlines and tabs escaped too
 * (`\n`, `\t`), so a field (an instance id, a provider's error text) can neither run onto a new line
 * nor break a display that counts its lines.
 *
 * @example
 * ```ts
 * import { escapeLine } from "./safe_text.ts";
 * escapeLine("id\x1b]0;owned\x07\nnext"); // "id\\x1b]0;owned\\x07\\nnext"
 * ```
 * @param text untrusted text
 * @returns one printable line
 */
export function escapeLine(text: string): string {
  const escaped = escapeControls(text);
  return /[\n\t]/.test(escaped) ? escaped.replaceAll("\n", "\\n").replaceAll("\t", "\\t") : escaped;
}

/** A path as the user would type it: relative to `cwd` when under it, quoted for the shell when needed. */
export function shownPath(path: string, cwd: string): string {
  const relative = path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
  const shown = escapeControls(relative);
  return /^[\w@%+=:,./-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", `'\\''`)}'`;
}
