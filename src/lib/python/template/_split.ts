/**
 * Python's `str.split` and `str.rsplit`.
 * @module
 */
import { fail } from "./_error.ts";
import { PY_WS } from "./_strings.ts";
import { isStr, strOf, typeName } from "./_values.ts";

const WS_RUN = new RegExp(`[${PY_WS}]+`, "g");
const TRAILING = new RegExp(`[${PY_WS}]+$`);

function splitWhitespace(s: string, maxsplit: number, fromRight: boolean): string[] {
  const words: [number, number][] = [];
  let last = 0;
  for (const m of s.matchAll(WS_RUN)) {
    if (m.index > last) words.push([last, m.index]);
    last = m.index + m[0].length;
  }
  if (last < s.length) words.push([last, s.length]);
  if (maxsplit < 0 || words.length <= maxsplit) return words.map(([a, b]) => s.slice(a, b));
  if (fromRight) {
    const keep = words.slice(words.length - maxsplit);
    const head = s.slice(0, keep[0]?.[0] ?? s.length).replace(TRAILING, "");
    return [head, ...keep.map(([a, b]) => s.slice(a, b))];
  }
  const keep = words.slice(0, maxsplit);
  const tail = s.slice(words[maxsplit]?.[0] ?? s.length);
  return [...keep.map(([a, b]) => s.slice(a, b)), tail];
}

/** Python `s.split(sep, maxsplit)` / `s.rsplit(sep, maxsplit)`. */
export function splitText(s: string, sep: unknown, maxsplit: number, fromRight: boolean): string[] {
  if (sep === null) return splitWhitespace(s, maxsplit, fromRight);
  if (!isStr(sep)) return fail("TypeError", `must be str or None, not ${typeName(sep)}`);
  const d = strOf(sep);
  if (d === "") fail("ValueError", "empty separator");
  const parts = s.split(d);
  if (maxsplit < 0 || parts.length <= maxsplit + 1) return parts;
  if (fromRight) {
    return [parts.slice(0, parts.length - maxsplit).join(d), ...parts.slice(parts.length - maxsplit)];
  }
  return [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(d)];
}
