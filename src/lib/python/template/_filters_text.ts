/**
 * Jinja2's built-in filters on text and numbers.
 * @module
 */
import { binop } from "./_arith.ts";
import { type Builtin, likeInput, softStr } from "./_builtin.ts";
import { roundPy } from "./_decimal.ts";
import { PyDict } from "./_dict.ts";
import { fail } from "./_error.ts";
import { parseFloatValue, parseIntText, toFloat, validBase } from "./_convert.ts";
import { pyStr } from "./_format.ts";
import { escape } from "./_markup.ts";
import { formatFloatAs } from "./_printf.ts";
import { pyLen, truthy } from "./_ops.ts";
import { py, REQUIRED, type Signature } from "./_signature.ts";
import { strMethod } from "./_str_methods.ts";
import { cpSlice, PY_WS, pyStrip, splitLines } from "./_strings.ts";
import { wrapText } from "./_textwrap.ts";
import { pyCapitalize } from "./_unicode.ts";
import {
  float,
  int,
  isFloat,
  isIndex,
  isNumber,
  isStr,
  Markup,
  num,
  PyTuple,
  strOf,
  typeName,
  Undefined,
} from "./_values.ts";

type Run = Builtin["run"];
const f = (sig: Signature, run: Run): Builtin => ({ sig, run });

function method(s: string | Markup, name: string, args: unknown[]): unknown {
  const m = strMethod(s, name);
  return m ? m.call(args, new Map(), { autoescape: false }) : null;
}

function doInt(v: unknown, dflt: unknown, base: unknown): unknown {
  if (v instanceof Undefined) return v.raise();
  if (isStr(v)) {
    const n = validBase(base) ? parseIntText(strOf(v), num(base)) : undefined;
    if (n !== undefined) return n;
  } else if (isNumber(v)) {
    const n = num(v);
    if (Number.isNaN(n)) return dflt;
    if (!Number.isFinite(n)) fail("OverflowError", "cannot convert float infinity to integer");
    return int(Math.trunc(n));
  }
  const fl = parseFloatValue(v);
  return fl === undefined || !Number.isFinite(fl) ? dflt : int(Math.trunc(fl));
}

function doRound(v: unknown, precision: unknown, method: unknown): unknown {
  if (method !== "common" && method !== "ceil" && method !== "floor") {
    fail("FilterArgumentError", "method must be common, ceil or floor");
  }
  if (!isNumber(v)) return fail("TypeError", `type ${typeName(v)} doesn't define __round__ method`);
  if (!isIndex(precision)) {
    fail("TypeError", `'${typeName(precision)}' object cannot be interpreted as an integer`);
  }
  const p = num(precision), x = num(v);
  if (method === "common") {
    if (!isFloat(v)) return p >= 0 ? int(x) : int(roundPy(x, p));
    return float(Number.isFinite(x) ? roundPy(x, p) : x);
  }
  const scale = num(binop("**", 10, p));
  const scaled = x * scale;
  if (Number.isNaN(scaled)) fail("ValueError", "cannot convert float NaN to integer");
  if (!Number.isFinite(scaled)) fail("OverflowError", "cannot convert float infinity to integer");
  return float((method === "ceil" ? Math.ceil(scaled) : Math.floor(scaled)) / scale);
}

function truncate(s: unknown, length: unknown, killwords: unknown, end: unknown, leeway: unknown): unknown {
  const lw = leeway === null ? 5 : leeway;
  const endLen = pyLen(end);
  if (num(length) < endLen) fail("AssertionError", `expected length >= ${endLen}, got ${num(length)}`);
  if (num(lw) < 0) fail("AssertionError", `expected leeway >= 0, got ${num(lw)}`);
  if (pyLen(s) <= num(length) + num(lw)) return s;
  if (!isStr(s)) return fail("TypeError", `'${typeName(s)}' object is not subscriptable`);
  const cut = cpSlice(strOf(s), null, num(length) - endLen, 1);
  const kept = truthy(killwords) ? cut : cut.lastIndexOf(" ") < 0 ? cut : cut.slice(0, cut.lastIndexOf(" "));
  return binop("+", likeInput(s, kept), end);
}

const WORD_BEGIN = new RegExp(`([-${PY_WS}({\\[<]+)`);
let word: RegExp | undefined;
/** A word of `wordcount` (built on first use: a Unicode property class costs ~0.2 ms to build, which start-up would pay). */
const WORD = () => (word ??= /[\p{L}\p{N}_]+/gu);

function title(s: unknown): string {
  return strOf(softStr(s)).split(WORD_BEGIN).filter((x) => x !== "").map((item) => {
    const [h = "", ...rest] = item;
    return h.toUpperCase() + rest.join("").toLowerCase();
  }).join("");
}

function indent(s: unknown, width: unknown, first: unknown, blank: unknown): unknown {
  let ind: string;
  if (isStr(width)) ind = strOf(width);
  else if (isIndex(width)) ind = " ".repeat(Math.max(0, num(width)));
  else return fail("TypeError", `can't multiply sequence by non-int of type '${typeName(width)}'`);
  if (!isStr(s)) return fail("TypeError", `unsupported operand type(s) for +=: '${typeName(s)}' and 'str'`);
  const lines = splitLines(strOf(s) + "\n");
  let rv: string;
  if (truthy(blank)) rv = lines.join("\n" + ind);
  else {
    rv = lines.shift() ?? "";
    if (lines.length) rv += "\n" + lines.map((l) => (l ? ind + l : l)).join("\n");
  }
  if (truthy(first)) rv = ind + rv;
  return likeInput(s, rv);
}

function filesize(value: unknown, binary: unknown): string {
  const bytes = toFloat(value);
  const bin = truthy(binary);
  const base = bin ? 1024 : 1000;
  const prefixes = bin
    ? ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    : ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];
  if (bytes === 1) return "1 Byte";
  if (bytes < base) return `${pyStr(doInt(bytes, 0, 10))} Bytes`;
  let unit = 0, prefix = "";
  for (const [i, p] of prefixes.entries()) {
    unit = Number(BigInt(base) ** BigInt(i + 2));
    prefix = p;
    if (bytes < unit) break;
  }
  return `${formatFloatAs((base * bytes) / unit, "f", 1)} ${prefix}`;
}

function format(value: unknown, rest: unknown[], extra: Map<string, unknown>): unknown {
  if (rest.length && extra.size) {
    fail("FilterArgumentError", "can't handle positional and keyword arguments at the same time");
  }
  const args = extra.size ? PyDict.from(extra) : new PyTuple(rest);
  return binop("%", softStr(value), args);
}

function replace(
  env: { autoescape: boolean },
  s: unknown,
  old: unknown,
  rep: unknown,
  count: unknown,
): unknown {
  const n = count === null ? -1 : count;
  if (!env.autoescape) return method(pyStr(s), "replace", [pyStr(old), pyStr(rep), n]);
  const subject = (old instanceof Markup || rep instanceof Markup) && !(s instanceof Markup)
    ? escape(s)
    : softStr(s);
  return method(subject, "replace", [softStr(old), softStr(rep), n]);
}

/** The text and number filters by name. */
export const TEXT_FILTERS: [string, Builtin][] = [
  [
    "abs",
    f({ name: "abs", params: [["x", REQUIRED]], style: "c" }, (_e, [v]) => {
      if (!isNumber(v)) return fail("TypeError", `bad operand type for abs(): '${typeName(v)}'`);
      return isFloat(v) ? float(Math.abs(num(v))) : int(Math.abs(num(v)));
    }),
  ],
  ["capitalize", f(py("do_capitalize", ["s"]), (_e, [s]) => likeInput(s, pyCapitalize(strOf(softStr(s)))))],
  ["center", f(py("do_center", ["value", ["width", 80]]), (_e, [v, w]) => method(softStr(v), "center", [w]))],
  [
    "default",
    f(py("do_default", ["value", ["default_value", ""], ["boolean", false]]), (_e, [v, d, b]) => {
      return v instanceof Undefined || (truthy(b) && !truthy(v)) ? d : v;
    }),
  ],
  [
    "float",
    f(py("do_float", ["value", ["default", float(0)]]), (_e, [v, d]) => {
      const fl = parseFloatValue(v);
      return fl === undefined ? d : float(fl);
    }),
  ],
  ["int", f(py("do_int", ["value", ["default", 0], ["base", 10]]), (_e, [v, d, b]) => doInt(v, d, b))],
  ["lower", f(py("do_lower", ["s"]), (_e, [s]) => likeInput(s, strOf(softStr(s)).toLowerCase()))],
  ["upper", f(py("do_upper", ["s"]), (_e, [s]) => likeInput(s, strOf(softStr(s)).toUpperCase()))],
  [
    "replace",
    f(
      py("do_replace", ["s", "old", "new", ["count", null]], { hidden: 1 }),
      (e, [s, o, r, c]) => replace(e, s, o, r, c),
    ),
  ],
  [
    "round",
    f(py("do_round", ["value", ["precision", 0], ["method", "common"]]), (_e, [v, p, m]) => doRound(v, p, m)),
  ],
  ["string", f(py("soft_str", ["s"]), (_e, [s]) => softStr(s))],
  ["title", f(py("do_title", ["s"]), (_e, [s]) => title(s))],
  [
    "trim",
    f(py("do_trim", ["value", ["chars", null]]), (_e, [v, c]) => {
      const s = softStr(v);
      return likeInput(s, pyStrip(strOf(s), c === null ? null : strOf(softStr(c))));
    }),
  ],
  [
    "truncate",
    f(
      py("do_truncate", ["s", ["length", 255], ["killwords", false], ["end", "..."], ["leeway", null]], {
        hidden: 1,
      }),
      (_e, a) => truncate(a[0], a[1], a[2], a[3], a[4]),
    ),
  ],
  ["wordcount", f(py("do_wordcount", ["s"]), (_e, [s]) => strOf(softStr(s)).match(WORD())?.length ?? 0)],
  [
    "wordwrap",
    f(
      py("do_wordwrap", ["s", ["width", 79], ["break_long_words", true], ["wrapstring", null], [
        "break_on_hyphens",
        true,
      ]], { hidden: 1 }),
      (_e, [s, w, bl, ws, bh]) => {
        if (!isStr(s)) return fail("AttributeError", `'${typeName(s)}' object has no attribute 'splitlines'`);
        const wrap = ws === null ? "\n" : strOf(softStr(ws));
        const lines = splitLines(strOf(s));
        return lines.map((l) => wrapText(l, num(w), truthy(bl), truthy(bh)).join(wrap)).join(wrap);
      },
    ),
  ],
  [
    "indent",
    f(
      py("do_indent", ["s", ["width", 4], ["first", false], ["blank", false]]),
      (_e, [s, w, fi, b]) => indent(s, w, fi, b),
    ),
  ],
  [
    "format",
    f(
      py("do_format", ["value"], { varargs: true, varkw: true }),
      (_e, [v], rest, extra) => format(v, rest, extra),
    ),
  ],
  [
    "filesizeformat",
    f(py("do_filesizeformat", ["value", ["binary", false]]), (_e, [v, b]) => filesize(v, b)),
  ],
];
