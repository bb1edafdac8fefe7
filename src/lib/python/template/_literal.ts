/**
 * String literal decoding as Jinja2 does it: `backslashreplace` to ASCII, then Python's
 * `unicode-escape` codec, whose error message (after the last `:`) is the syntax error.
 * @module
 */
import { SIMPLE_ESCAPES } from "../escapes.ts";

/** Python's escapes, and a backslash-newline that continues the line. */
const SIMPLE: Readonly<Record<string, string>> = { ...SIMPLE_ESCAPES, "\n": "" };
const HEX = /^[0-9a-fA-F]+$/;

/** A decoded literal, or the message of the decoding error. */
export interface Decoded {
  value: string;
  error?: string;
}

function backslashed(cp: number): string {
  // A non-ASCII character after a backslash was turned into its \x/\u/\U form before decoding.
  if (cp < 0x80) return "\\" + String.fromCodePoint(cp);
  if (cp < 0x100) return "\\x" + cp.toString(16).padStart(2, "0");
  if (cp < 0x10000) return "\\u" + cp.toString(16).padStart(4, "0");
  return "\\U" + cp.toString(16).padStart(8, "0");
}

/** Decodes the body of a string literal. */
export function unescapeLiteral(raw: string): Decoded {
  if (!raw.includes("\\")) return { value: raw };
  let out = "";
  for (let i = 0; i < raw.length;) {
    const ch = raw.charAt(i);
    if (ch !== "\\") {
      out += ch;
      i++;
      continue;
    }
    const cp = raw.codePointAt(i + 1) ?? 0;
    const c = String.fromCodePoint(cp);
    i += 1 + c.length;
    const simple = SIMPLE[c];
    if (simple !== undefined) out += simple;
    else if (c >= "0" && c <= "7") {
      const m = /^[0-7]{0,2}/.exec(raw.slice(i))?.[0] ?? "";
      out += String.fromCodePoint(parseInt(c + m, 8));
      i += m.length;
    } else if (c === "x" || c === "u" || c === "U") {
      const n = c === "x" ? 2 : c === "u" ? 4 : 8;
      const h = raw.slice(i, i + n);
      if (h.length < n || !HEX.test(h)) {
        return { value: "", error: `truncated \\${c}${"X".repeat(n)} escape` };
      }
      const v = parseInt(h, 16);
      if (v > 0x10ffff) return { value: "", error: "illegal Unicode character" };
      out += String.fromCodePoint(v);
      i += n;
    } else if (c === "N") {
      return {
        value: "",
        error: raw[i] === "{" ? "unknown Unicode character name" : "malformed \\N character escape",
      };
    } else if (cp === 0) {
      out += "\\";
    } else out += backslashed(cp);
  }
  return { value: out };
}
