/**
 * Python's per-character Unicode predicates and case mappings where JavaScript has none: title
 * case (`str.title`, `str.capitalize`), `casefold`, `swapcase`, `isupper`, `isdigit`, ...
 * @module
 */
import { codePoints, isSpace } from "./_strings.ts";

const TITLE: Record<string, string> = {
  "\u01c4": "\u01c5",
  "\u01c5": "\u01c5",
  "\u01c6": "\u01c5",
  "\u01c7": "\u01c8",
  "\u01c8": "\u01c8",
  "\u01c9": "\u01c8",
  "\u01ca": "\u01cb",
  "\u01cb": "\u01cb",
  "\u01cc": "\u01cb",
  "\u01f1": "\u01f2",
  "\u01f2": "\u01f2",
  "\u01f3": "\u01f2",
  "\u00df": "Ss",
  "\ufb00": "Ff",
  "\ufb01": "Fi",
  "\ufb02": "Fl",
  "\ufb03": "Ffi",
  "\ufb04": "Ffl",
  "\ufb05": "St",
  "\ufb06": "St",
  "\u0587": "\u0535\u0582",
  "\ufb13": "\u0544\u0576",
  "\ufb14": "\u0544\u0565",
  "\ufb15": "\u0544\u056b",
  "\ufb16": "\u054e\u0576",
  "\ufb17": "\u0544\u056d",
  "\u1fb3": "\u1fbc",
  "\u1fc3": "\u1fcc",
  "\u1ff3": "\u1ffc",
};

/** The title case of one character (Unicode's Titlecase_Mapping). */
export function titleChar(c: string): string {
  const t = TITLE[c];
  if (t !== undefined) return t;
  const cp = c.codePointAt(0) ?? 0;
  // Greek with ypogegrammeni: the title case is the capital with prosgegrammeni.
  if (cp >= 0x1f80 && cp <= 0x1faf) return String.fromCodePoint(cp | 0x8);
  return c.toUpperCase();
}

/**
 * The case classes, built on first use (a Unicode property class costs ~0.2 ms to build, which
 * start-up would pay for predicates a run seldom uses).
 */
let cases: { cased: RegExp; lower: RegExp; upper: RegExp; title: RegExp } | undefined;
const CASES = () =>
  cases ??= {
    cased: /[\p{Lowercase}\p{Uppercase}\p{Lt}]/u,
    lower: /\p{Lowercase}/u,
    upper: /\p{Uppercase}/u,
    title: /\p{Lt}/u,
  };

/** True for a cased character (Python's `Py_UNICODE_ISLOWER || ISUPPER || ISTITLE`). */
export function isCased(c: string): boolean {
  return CASES().cased.test(c);
}

/** Python `str.title()`. */
export function pyTitle(s: string): string {
  let out = "";
  let prevCased = false;
  for (const c of s) {
    out += prevCased ? c.toLowerCase() : titleChar(c);
    prevCased = isCased(c);
  }
  return out;
}

/** Python `str.capitalize()`: first character title-cased, the rest lower-cased. */
export function pyCapitalize(s: string): string {
  const [first, ...rest] = codePoints(s);
  if (first === undefined) return "";
  return titleChar(first) + rest.join("").toLowerCase();
}

/** Python `str.casefold()` (upper then lower: full folding for the common cases). */
export function pyCasefold(s: string): string {
  return s.toUpperCase().toLowerCase();
}

/** Python `str.swapcase()`. */
export function pySwapcase(s: string): string {
  const { upper, lower, title } = CASES();
  let out = "";
  for (const c of s) {
    out += upper.test(c) || title.test(c) ? c.toLowerCase() : lower.test(c) ? c.toUpperCase() : c;
  }
  return out;
}

/** Python `str.isupper()`. */
export function pyIsUpper(s: string): boolean {
  const { upper, lower, title } = CASES();
  let cased = false;
  for (const c of s) {
    if (lower.test(c) || title.test(c)) return false;
    if (upper.test(c)) cased = true;
  }
  return cased;
}

/** Python `str.islower()`. */
export function pyIsLower(s: string): boolean {
  const { upper, lower, title } = CASES();
  let cased = false;
  for (const c of s) {
    if (upper.test(c) || title.test(c)) return false;
    if (lower.test(c)) cased = true;
  }
  return cased;
}

/** Python `str.istitle()`. */
export function pyIsTitle(s: string): boolean {
  const { upper, lower, title } = CASES();
  let cased = false, prevCased = false;
  for (const c of s) {
    if (upper.test(c) || title.test(c)) {
      if (prevCased) return false;
      prevCased = cased = true;
    } else if (lower.test(c)) {
      if (!prevCased) return false;
      prevCased = cased = true;
    } else prevCased = false;
  }
  return cased;
}

const DIGIT_EXTRA =
  "\\u00b2\\u00b3\\u00b9\\u1369-\\u1371\\u19da\\u2070\\u2074-\\u2079\\u2080-\\u2089\\u2460-\\u2468\\u2474-\\u247c" +
  "\\u2488-\\u2490\\u24ea\\u24f5-\\u24fd\\u24ff\\u2776-\\u277e\\u2780-\\u2788\\u278a-\\u2792\\u{1f100}-\\u{1f10a}";
const CJK_NUMERIC =
  "\\u3007\\u4e00\\u4e03\\u4e07\\u4e09\\u4e5d\\u4e8c\\u4e94\\u516b\\u516d\\u5341\\u5343\\u56db\\u767e\\u842c";
/** Python's `str.isX()` classes, built on first use (see {@link CASES}). */
let predicates: Record<string, RegExp> | undefined;
const PREDICATES = (): Record<string, RegExp> =>
  predicates ??= {
    decimal: /^\p{Nd}+$/u,
    digit: new RegExp(`^[\\p{Nd}${DIGIT_EXTRA}]+$`, "u"),
    numeric: new RegExp(`^[\\p{N}${CJK_NUMERIC}]+$`, "u"),
    alpha: /^\p{L}+$/u,
    alnum: new RegExp(`^[\\p{L}\\p{N}${CJK_NUMERIC}]+$`, "u"),
    identifier: /^[\p{XID_Start}_]\p{XID_Continue}*$/u,
    // deno-lint-ignore no-control-regex
    ascii: /^[\x00-\x7f]*$/,
    printable: /^[^\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]*$/u,
  };

/** Python's `str.isX()` predicates by name (`decimal`, `digit`, ..., `space`). */
export function pyIs(name: string, s: string): boolean | undefined {
  if (name === "space") return isSpace(s);
  if (name === "upper") return pyIsUpper(s);
  if (name === "lower") return pyIsLower(s);
  if (name === "title") return pyIsTitle(s);
  const table = PREDICATES();
  const re = Object.hasOwn(table, name) ? table[name] : undefined;
  return re?.test(s);
}
