/**
 * Strings as Python sees them: lengths, indices and slices in code points, code point ordering,
 * Python's whitespace and `strip`.
 * @module
 */

const SURROGATE = /[\uD800-\uDFFF]/;

let memoText = "";
let memoLength = 0;

/** Number of code points in `s` (the last long string's count is kept: templates ask twice). */
export function cpLength(s: string): number {
  if (s === memoText) return memoLength;
  if (!SURROGATE.test(s)) return s.length;
  let pairs = 0;
  const n = s.length;
  for (let i = 0; i < n - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      pairs++;
      i++;
    }
  }
  if (n > 256) {
    memoText = s;
    memoLength = n - pairs;
  }
  return n - pairs;
}

/** The code points of `s` as one-character strings. */
export function codePoints(s: string): string[] {
  return SURROGATE.test(s) ? Array.from(s) : s.split("");
}

/** Python's slice.indices(): clamps start/stop for a sequence of `len` items. */
export function sliceIndices(
  len: number,
  start: number | null,
  stop: number | null,
  step: number,
): [number, number] {
  const clamp = (v: number | null, dflt: number): number => {
    if (v === null) return dflt;
    if (v < 0) v += len;
    if (step > 0) return Math.min(Math.max(v, 0), len);
    return Math.min(Math.max(v, -1), len - 1);
  };
  return step > 0 ? [clamp(start, 0), clamp(stop, len)] : [clamp(start, len - 1), clamp(stop, -1)];
}

/** Number of items `items[start:stop:step]` selects. */
export function sliceLength(start: number, stop: number, step: number): number {
  if (step > 0) return start < stop ? Math.floor((stop - start - 1) / step) + 1 : 0;
  return start > stop ? Math.floor((start - stop - 1) / -step) + 1 : 0;
}

/** Picks `items[start:stop:step]` from an array. */
export function sliceArray<T>(items: T[], start: number | null, stop: number | null, step: number): T[] {
  const [a, b] = sliceIndices(items.length, start, stop, step);
  if (step === 1) return items.slice(a, Math.max(a, b));
  const out: T[] = [];
  for (let i = a; step > 0 ? i < b : i > b; i += step) out.push(items[i] as T);
  return out;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** UTF-16 offset of code point `cp` (0..len), scanning from the nearer end. */
function cpOffset(s: string, cp: number, len: number): number {
  if (cp <= len / 2) {
    let i = 0;
    for (let n = 0; n < cp; n++) i += isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1)) ? 2 : 1;
    return i;
  }
  let i = s.length;
  for (let n = len; n > cp; n--) i -= isLow(s.charCodeAt(i - 1)) && isHigh(s.charCodeAt(i - 2)) ? 2 : 1;
  return i;
}

/** Python `s[start:stop:step]` over code points. */
export function cpSlice(s: string, start: number | null, stop: number | null, step: number): string {
  if (!SURROGATE.test(s)) {
    if (step === 1) {
      const [a, b] = sliceIndices(s.length, start, stop, 1);
      return s.slice(a, Math.max(a, b));
    }
    return sliceArray(s.split(""), start, stop, step).join("");
  }
  if (step !== 1) return sliceArray(Array.from(s), start, stop, step).join("");
  const len = cpLength(s);
  const [a, b] = sliceIndices(len, start, stop, 1);
  return b <= a ? "" : s.slice(cpOffset(s, a, len), cpOffset(s, b, len));
}

/** Python `s[i]` over code points; undefined when out of range. */
export function cpAt(s: string, i: number): string | undefined {
  if (!SURROGATE.test(s)) return s[i < 0 ? i + s.length : i];
  const chars = Array.from(s);
  return chars[i < 0 ? i + chars.length : i];
}

/** Code point index of a UTF-16 offset. */
export function cpIndex(s: string, offset: number): number {
  return SURROGATE.test(s) ? cpLength(s.slice(0, offset)) : offset;
}

/** Compares strings by code point, like Python. */
export function cmpStr(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral code points) sort after U+E000..U+FFFF in code point order.
    if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
    if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/** Python's whitespace (str.isspace / `\s`), as a character-class body. */
export const PY_WS =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_WS = new RegExp(`^[${PY_WS}]+`);
const TRAILING_WS = new RegExp(`[${PY_WS}]+$`);
const ALL_WS = new RegExp(`^[${PY_WS}]+$`);

/** Python `str.isspace()`. */
export function isSpace(s: string): boolean {
  return ALL_WS.test(s);
}

/** Python `str.lstrip(chars)`. */
export function pyLstrip(s: string, chars: string | null = null): string {
  if (chars === null) return s.replace(LEADING_WS, "");
  const set = new Set(codePoints(chars));
  const cps = codePoints(s);
  let a = 0;
  while (a < cps.length && set.has(cps[a] ?? "")) a++;
  return cps.slice(a).join("");
}

/** Python `str.rstrip(chars)`. */
export function pyRstrip(s: string, chars: string | null = null): string {
  if (chars === null) return s.replace(TRAILING_WS, "");
  const set = new Set(codePoints(chars));
  const cps = codePoints(s);
  let z = cps.length;
  while (z > 0 && set.has(cps[z - 1] ?? "")) z--;
  return cps.slice(0, z).join("");
}

/** Python `str.strip(chars)`. */
export function pyStrip(s: string, chars: string | null = null): string {
  return pyLstrip(pyRstrip(s, chars), chars);
}

/** Python's line boundaries (`str.splitlines`). */
// deno-lint-ignore no-control-regex
export const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;

/** Python `str.splitlines(keepends)`. */
export function splitLines(s: string, keepends = false): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of s.matchAll(LINE_BREAK)) {
    const end = m.index + m[0].length;
    out.push(s.slice(last, keepends ? end : m.index));
    last = end;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}
