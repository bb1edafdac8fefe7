/**
 * The methods of Python's `str` that templates call (`s.split()`, `s.startswith(...)`, ...), and
 * Markup's variants, which return Markup and escape their arguments.
 * @module
 */
import { fail } from "./_error.ts";
import { escapeText, markupEscape, stripTags, unescapeHtml } from "./_markup.ts";
import { itemsOf } from "./_ops.ts";
import { bind, py, REQUIRED, type Signature } from "./_signature.ts";
import { type AttrLookup, strFormat } from "./_strformat.ts";
import { cpIndex, cpLength, cpSlice, pyLstrip, pyRstrip, pyStrip, splitLines } from "./_strings.ts";
import { pyCapitalize, pyCasefold, pyIs, pySwapcase, pyTitle } from "./_unicode.ts";
import { splitText } from "./_split.ts";
import { isIndex, isStr, Markup, num, PyFunction, PyTuple, strOf, typeName } from "./_values.ts";

type Impl = (s: string, a: unknown[], extra: Map<string, unknown>) => unknown;
interface Method {
  sig: Signature;
  impl: Impl;
}

const m0 = (name: string, impl: (s: string) => unknown): Method => ({
  sig: { name: `str.${name}`, params: [], style: "method" },
  impl: (s) => impl(s),
});
const clinic = (name: string, params: [string, unknown][], impl: Impl): Method => ({
  sig: { name: `str.${name}`, params, style: "clinic" },
  impl,
});
const kw = (name: string, params: (string | [string, unknown])[], impl: Impl): Method => ({
  sig: py(name, params),
  impl,
});

function text(v: unknown, what: string): string {
  if (isStr(v)) return strOf(v);
  return fail("TypeError", `${what} must be str, not ${typeName(v)}`);
}

function chars(v: unknown, name: string): string | null {
  if (v === null) return null;
  if (isStr(v)) return strOf(v);
  return fail("TypeError", `${name} arg must be None or str`);
}

/** Python's slice-style `start`/`end` arguments, as code point indices clamped to `len`. */
function bounds(len: number, start: unknown, end: unknown): [number, number] {
  const norm = (v: unknown, d: number) => {
    if (v === null) return d;
    if (!isIndex(v)) {
      return fail("TypeError", "slice indices must be integers or None or have an __index__ method");
    }
    const n = num(v);
    return n < 0 ? Math.max(n + len, 0) : Math.min(n, len);
  };
  return [norm(start, 0), norm(end, len)];
}

function find(s: string, sub: unknown, start: unknown, end: unknown, last: boolean): number {
  const needle = text(sub, "must be str, not");
  const len = cpLength(s);
  const [a, b] = bounds(len, start, end);
  if (start !== null && isIndex(start) && num(start) > len) return -1;
  if (b - a < cpLength(needle)) return -1;
  const hay = cpSlice(s, a, b, 1);
  const i = last ? hay.lastIndexOf(needle) : hay.indexOf(needle);
  return i < 0 ? -1 : a + cpIndex(hay, i);
}

function count(s: string, sub: unknown, start: unknown, end: unknown): number {
  const needle = text(sub, "must be str, not");
  const len = cpLength(s);
  const [a, b] = bounds(len, start, end);
  if (a > b) return 0;
  const hay = cpSlice(s, a, b, 1);
  if (needle === "") return cpLength(hay) + 1;
  return hay.split(needle).length - 1;
}

function affix(s: string, arg: unknown, start: unknown, end: unknown, suffix: boolean): boolean {
  const name = suffix ? "endswith" : "startswith";
  const len = cpLength(s);
  if (start !== null && isIndex(start) && num(start) > len) return false;
  const [a, b] = bounds(len, start, end);
  const part = a > b ? "" : cpSlice(s, a, b, 1);
  const test = (x: string | Markup) => {
    const t = strOf(x);
    return a > b ? false : suffix ? part.endsWith(t) : part.startsWith(t);
  };
  if (isStr(arg)) return test(arg);
  if (arg instanceof PyTuple) {
    return arg.items.some((x) =>
      isStr(x) ? test(x) : fail("TypeError", `tuple for ${name} must only contain str, not ${typeName(x)}`)
    );
  }
  return fail("TypeError", `${name} first arg must be str or a tuple of str, not ${typeName(arg)}`);
}

function pad(s: string, width: unknown, fill: unknown, where: "center" | "ljust" | "rjust"): string {
  if (!isIndex(width)) fail("TypeError", `'${typeName(width)}' object cannot be interpreted as an integer`);
  const f = text(fill, `The fill character`);
  if (cpLength(f) !== 1) fail("TypeError", "The fill character must be exactly one character long");
  const w = num(width), marg = w - cpLength(s);
  if (marg <= 0) return s;
  if (where === "ljust") return s + f.repeat(marg);
  if (where === "rjust") return f.repeat(marg) + s;
  const left = Math.floor(marg / 2) + (marg & w & 1);
  return f.repeat(left) + s + f.repeat(marg - left);
}

function zfill(s: string, width: unknown): string {
  const w = num(width), len = cpLength(s);
  if (len >= w) return s;
  const sign = s[0] === "+" || s[0] === "-" ? s[0] : "";
  return sign + "0".repeat(w - len) + s.slice(sign.length);
}

function partition(s: string, sep: unknown, last: boolean): PyTuple {
  const d = text(sep, "must be str, not");
  if (d === "") fail("ValueError", "empty separator");
  const i = last ? s.lastIndexOf(d) : s.indexOf(d);
  if (i < 0) return new PyTuple(last ? ["", "", s] : [s, "", ""]);
  return new PyTuple([s.slice(0, i), d, s.slice(i + d.length)]);
}

function replace(s: string, old: unknown, rep: unknown, n: unknown): string {
  const o = text(old, "replace() argument 1"), r = text(rep, "replace() argument 2");
  const limit = num(n);
  const parts = o === "" ? ["", ...[...s], ""] : s.split(o);
  if (o === "" && s === "") return limit === 0 ? "" : r;
  let out = parts[0] ?? "";
  for (let i = 1; i < parts.length; i++) out += (limit < 0 || i <= limit ? r : o) + parts[i];
  return out;
}

function expandTabs(s: string, size: unknown): string {
  const n = num(size);
  let out = "", col = 0;
  for (const c of s) {
    if (c === "\t") {
      const spaces = n > 0 ? n - (col % n) : 0;
      out += " ".repeat(spaces);
      col += spaces;
    } else {
      out += c;
      col = c === "\n" || c === "\r" ? 0 : col + 1;
    }
  }
  return out;
}

function join(s: string, it: unknown): string {
  return itemsOf(it).map((x, i) => {
    if (!isStr(x)) fail("TypeError", `sequence item ${i}: expected str instance, ${typeName(x)} found`);
    return strOf(x);
  }).join(s);
}

const IS = [
  "alnum",
  "alpha",
  "ascii",
  "decimal",
  "digit",
  "identifier",
  "lower",
  "numeric",
  "printable",
  "space",
  "title",
  "upper",
];
const ARGS_RANGE: [string, unknown][] = [["start", null], ["end", null]];

const METHODS: Record<string, Method> = {
  upper: m0("upper", (s) => s.toUpperCase()),
  lower: m0("lower", (s) => s.toLowerCase()),
  title: m0("title", pyTitle),
  capitalize: m0("capitalize", pyCapitalize),
  swapcase: m0("swapcase", pySwapcase),
  casefold: m0("casefold", pyCasefold),
  strip: clinic("strip", [["chars", null]], (s, [c]) => pyStrip(s, chars(c, "strip"))),
  lstrip: clinic("lstrip", [["chars", null]], (s, [c]) => pyLstrip(s, chars(c, "lstrip"))),
  rstrip: clinic("rstrip", [["chars", null]], (s, [c]) => pyRstrip(s, chars(c, "rstrip"))),
  split: kw("split", [["sep", null], ["maxsplit", -1]], (s, [d, n]) => splitText(s, d, num(n), false)),
  rsplit: kw("rsplit", [["sep", null], ["maxsplit", -1]], (s, [d, n]) => splitText(s, d, num(n), true)),
  splitlines: kw("splitlines", [["keepends", false]], (s, [k]) => splitLines(s, k === true || num(k) !== 0)),
  replace: clinic(
    "replace",
    [["old", REQUIRED], ["new", REQUIRED], ["count", -1]],
    (s, [o, r, n]) => replace(s, o, r, n),
  ),
  find: clinic("find", [["sub", REQUIRED], ...ARGS_RANGE], (s, [x, a, b]) => find(s, x, a, b, false)),
  rfind: clinic("rfind", [["sub", REQUIRED], ...ARGS_RANGE], (s, [x, a, b]) => find(s, x, a, b, true)),
  index: clinic(
    "index",
    [["sub", REQUIRED], ...ARGS_RANGE],
    (s, [x, a, b]) => found(find(s, x, a, b, false)),
  ),
  rindex: clinic(
    "rindex",
    [["sub", REQUIRED], ...ARGS_RANGE],
    (s, [x, a, b]) => found(find(s, x, a, b, true)),
  ),
  count: clinic("count", [["sub", REQUIRED], ...ARGS_RANGE], (s, [x, a, b]) => count(s, x, a, b)),
  startswith: clinic(
    "startswith",
    [["prefix", REQUIRED], ...ARGS_RANGE],
    (s, [p, a, b]) => affix(s, p, a, b, false),
  ),
  endswith: clinic(
    "endswith",
    [["suffix", REQUIRED], ...ARGS_RANGE],
    (s, [p, a, b]) => affix(s, p, a, b, true),
  ),
  join: clinic("join", [["iterable", REQUIRED]], (s, [it]) => join(s, it)),
  center: clinic("center", [["width", REQUIRED], ["fillchar", " "]], (s, [w, f]) => pad(s, w, f, "center")),
  ljust: clinic("ljust", [["width", REQUIRED], ["fillchar", " "]], (s, [w, f]) => pad(s, w, f, "ljust")),
  rjust: clinic("rjust", [["width", REQUIRED], ["fillchar", " "]], (s, [w, f]) => pad(s, w, f, "rjust")),
  zfill: clinic("zfill", [["width", REQUIRED]], (s, [w]) => zfill(s, w)),
  partition: clinic("partition", [["sep", REQUIRED]], (s, [d]) => partition(s, d, false)),
  rpartition: clinic("rpartition", [["sep", REQUIRED]], (s, [d]) => partition(s, d, true)),
  removeprefix: clinic("removeprefix", [["prefix", REQUIRED]], (s, [p]) => {
    const t = text(p, "removeprefix() argument");
    return s.startsWith(t) ? s.slice(t.length) : s;
  }),
  removesuffix: clinic("removesuffix", [["suffix", REQUIRED]], (s, [p]) => {
    const t = text(p, "removesuffix() argument");
    return t && s.endsWith(t) ? s.slice(0, -t.length) : s;
  }),
  expandtabs: kw("expandtabs", [["tabsize", 8]], (s, [n]) => expandTabs(s, n)),
  format: { sig: py("format", [], { varargs: true, varkw: true }), impl: () => null },
  format_map: clinic("format_map", [["mapping", REQUIRED]], (s, [m]) => strFormat(s, [], m)),
};
for (const p of IS) METHODS[`is${p}`] = m0(`is${p}`, (s) => pyIs(p, s));

function found(i: number): number {
  return i < 0 ? fail("ValueError", "substring not found") : i;
}

/** Markup methods whose result is Markup again (lists and tuples of results too). */
const MARKUP_RESULT = new Set([
  "upper",
  "lower",
  "title",
  "capitalize",
  "swapcase",
  "casefold",
  "strip",
  "lstrip",
  "rstrip",
  "replace",
  "center",
  "ljust",
  "rjust",
  "zfill",
  "expandtabs",
  "removeprefix",
  "removesuffix",
  "join",
  "format",
  "format_map",
  "split",
  "rsplit",
  "splitlines",
  "partition",
  "rpartition",
]);
/** Markup methods that escape one argument (its index): the replacement, the fill character. */
const ESCAPED_ARG: Record<string, number> = { replace: 1, center: 1, ljust: 1, rjust: 1 };

function escapeArg(v: unknown): unknown {
  return isStr(v) ? markupEscape(v) : v;
}

function markupArgs(name: string, args: unknown[]): unknown[] {
  if (name === "join") return args.length ? [itemsOf(args[0]).map(escapeArg), ...args.slice(1)] : args;
  const i = ESCAPED_ARG[name];
  return i === undefined ? args : args.map((a, j) => (j === i ? escapeArg(a) : a));
}

function wrapMarkup(name: string, r: unknown): unknown {
  if (typeof r === "string") return MARKUP_RESULT.has(name) ? new Markup(r) : r;
  if (Array.isArray(r)) return r.map((x) => typeof x === "string" ? new Markup(x) : x);
  if (r instanceof PyTuple) return new PyTuple(r.items.map((x) => typeof x === "string" ? new Markup(x) : x));
  return r;
}

function markupOnly(m: Markup, name: string): PyFunction | undefined {
  if (name === "unescape") return new PyFunction("unescape", () => unescapeHtml(m.s));
  if (name === "striptags") return new PyFunction("striptags", () => stripTags(m.s));
  if (name === "escape") return new PyFunction("escape", ([v]) => new Markup(markupEscape(v)));
  return undefined;
}

/** A method of a str or Markup, bound to it; undefined when str has no such attribute. */
export function strMethod(obj: string | Markup, name: string, attr?: AttrLookup): PyFunction | undefined {
  const method = METHODS[name];
  if (obj instanceof Markup && !method) return markupOnly(obj, name);
  if (!method) return undefined;
  const s = strOf(obj);
  const isMarkup = obj instanceof Markup;
  return new PyFunction(name, (args, kwargs) => {
    if (isMarkup) args = markupArgs(name, args);
    let r: unknown;
    if (name === "format") r = strFormat(s, args, kwargs, isMarkup ? escapeText : undefined, attr);
    else {
      const b = bind(method.sig, args, kwargs);
      r = method.impl(s, b.values, b.extra);
    }
    return isMarkup ? wrapMarkup(name, r) : r;
  }, `<built-in method ${name} of ${isMarkup ? "Markup" : "str"} object>`);
}
