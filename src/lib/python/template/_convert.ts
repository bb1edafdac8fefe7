/**
 * Python's `float(v)` and `int(v[, base])` conversions, with their errors.
 * @module
 */
import { fail } from "./_error.ts";
import { reprStr } from "./_format.ts";
import { PY_WS } from "./_strings.ts";
import { isNumber, isStr, num, strOf, typeName, Undefined } from "./_values.ts";

let nd: RegExp | undefined;
/** A decimal digit of any script (built on first use: a Unicode property class costs ~0.2 ms to build, which start-up would pay). */
const ND = () => (nd ??= /\p{Nd}/u);
const EDGE_WS = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, "g");

/** Unicode decimal digits to ASCII (Python's numeric parsing accepts any Nd digit). */
function asciiDigits(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return s;
  let out = "";
  for (const c of s) {
    if (c >= "0" && c <= "9" || !ND().test(c)) {
      out += c;
      continue;
    }
    let cp = c.codePointAt(0) ?? 0, zero = cp;
    while (ND().test(String.fromCodePoint(zero - 1))) zero--;
    cp = (cp - zero) % 10;
    out += String(cp);
  }
  return out;
}

const D = "\\d(?:_?\\d)*";
const FLOAT_BODY = new RegExp(`^[+-]?(?:${D}\\.(?:${D})?|\\.${D}|${D})(?:[eE][+-]?${D})?$`);
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** Python `float(v)`; undefined when Python raises ValueError or TypeError. */
export function parseFloatValue(v: unknown): number | undefined {
  if (v instanceof Undefined) return v.raise();
  if (isNumber(v)) return num(v);
  if (!isStr(v)) return undefined;
  const s = asciiDigits(strOf(v).replace(EDGE_WS, ""));
  const special = SPECIAL.exec(s);
  if (special) {
    return special[2]?.toLowerCase().startsWith("inf") ? (special[1] === "-" ? -Infinity : Infinity) : NaN;
  }
  if (!FLOAT_BODY.test(s)) return undefined;
  return Number(s.replaceAll("_", ""));
}

/** Python `float(v)`, failing as Python does. */
export function toFloat(v: unknown): number {
  const f = parseFloatValue(v);
  if (f !== undefined) return f;
  if (isStr(v)) return fail("ValueError", `could not convert string to float: ${reprStr(strOf(v))}`);
  return fail("TypeError", `float() argument must be a string or a real number, not '${typeName(v)}'`);
}

const PREFIX: Record<string, number> = { x: 16, o: 8, b: 2 };

/** Python `int(s, base)` for a str; undefined when Python raises ValueError. */
export function parseIntText(text: string, base: number): number | undefined {
  let s = asciiDigits(text.replace(EDGE_WS, ""));
  let sign = 1;
  if (s[0] === "+" || s[0] === "-") {
    sign = s[0] === "-" ? -1 : 1;
    s = s.slice(1);
  }
  const prefix = /^0([xob])/i.exec(s)?.[1]?.toLowerCase();
  if (base === 0) {
    if (prefix !== undefined) {
      base = PREFIX[prefix] ?? 10;
      s = s.slice(2);
      if (s.startsWith("_")) s = s.slice(1);
    } else {
      if (/^0+(_?0)*$/.test(s)) return 0;
      if (s.startsWith("0")) return undefined;
      base = 10;
    }
  } else if (prefix !== undefined && PREFIX[prefix] === base) {
    s = s.slice(2);
    if (s.startsWith("_")) s = s.slice(1);
  }
  if (!/^[0-9a-z]+(_[0-9a-z]+)*$/i.test(s)) return undefined;
  const digits = s.replaceAll("_", "").toLowerCase();
  let n = 0;
  for (const d of digits) {
    const v = parseInt(d, 36);
    if (v >= base) return undefined;
    n = n * base + v;
  }
  return sign * n + 0;
}

/** True when `base` is one `int(s, base)` accepts. */
export function validBase(base: unknown): boolean {
  return typeof base === "number" && Number.isInteger(base) && (base === 0 || (base >= 2 && base <= 36));
}
