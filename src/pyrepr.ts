/**
 * Python's `repr()` of a str, for texts upstream builds with `%r` / `repr` (template printing of
 * lists and dicts, `subprocess.TimeoutExpired` messages of argv lists).
 *
 * @module
 */

/** Characters Python's `str.isprintable()` rejects (its `repr` escapes them). */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/**
 * Python `repr(str)`: quote choice, backslash escapes, `\xNN` / `\uNNNN` / `\UNNNNNNNN`.
 *
 * @example
 * ```ts
 * import { reprStr } from "./pyrepr.ts";
 * reprStr("it's"); // "\"it's\""
 * ```
 */
export function reprStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch !== " " && (cp < 0x20 || cp === 0x7f || (cp > 0x7f && NON_PRINTABLE.test(ch)))) {
      if (cp < 0x100) out += "\\x" + cp.toString(16).padStart(2, "0");
      else if (cp < 0x10000) out += "\\u" + cp.toString(16).padStart(4, "0");
      else out += "\\U" + cp.toString(16).padStart(8, "0");
    } else out += ch;
  }
  return out + quote;
}
