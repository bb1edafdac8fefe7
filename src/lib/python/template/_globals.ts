/**
 * Jinja2's template globals: `range`, `dict`, `lipsum`, `cycler`, `joiner`, `namespace`.
 * @module
 */
import { dictEntries, isDict, PyDict } from "./_dict.ts";
import { fail } from "./_error.ts";
import { escapeText } from "./_markup.ts";
import { Cycler, Joiner, Namespace, PyRange } from "./_objects.ts";
import { toList } from "./_ops.ts";
import { bind, py } from "./_signature.ts";
import { pyCapitalize } from "./_unicode.ts";
import { isIndex, Markup, num, PyFunction, seqItems, typeName } from "./_values.ts";

function rangeArg(v: unknown): number {
  return isIndex(v)
    ? num(v)
    : fail("TypeError", `'${typeName(v)}' object cannot be interpreted as an integer`);
}

function makeRange(args: unknown[], kwargs: Map<string, unknown>): PyRange {
  if (kwargs.size) fail("TypeError", "range() takes no keyword arguments");
  if (args.length === 0) fail("TypeError", "range expected at least 1 argument, got 0");
  if (args.length > 3) fail("TypeError", `range expected at most 3 arguments, got ${args.length}`);
  const n = args.map(rangeArg);
  const [start, stop, step] = n.length === 1 ? [0, n[0] ?? 0, 1] : [n[0] ?? 0, n[1] ?? 0, n[2] ?? 1];
  if (step === 0) fail("ValueError", "range() arg 3 must not be zero");
  return new PyRange(start, stop, step);
}

/** Python `dict(*args, **kwargs)`. */
export function makeDict(args: unknown[], kwargs: Map<string, unknown>, name = "dict"): PyDict {
  if (args.length > 1) fail("TypeError", `${name} expected at most 1 argument, got ${args.length}`);
  const d = new PyDict();
  const src = args[0];
  if (args.length === 1) {
    if (isDict(src)) { for (const [k, v] of dictEntries(src)) d.set(k, v); }
    else {
      toList(src).forEach((item, i) => {
        const pair = seqItems(item) ?? (typeof item === "string" ? [...item] : undefined);
        if (pair === undefined) {
          fail("TypeError", `cannot convert dictionary update sequence element #${i} to a sequence`);
        }
        if (pair.length !== 2) {
          fail(
            "ValueError",
            `dictionary update sequence element #${i} has length ${pair.length}; 2 is required`,
          );
        }
        d.set(pair[0], pair[1]);
      });
    }
  }
  for (const [k, v] of kwargs) d.set(k, v);
  return d;
}

const WORDS = (
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et " +
  "dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea " +
  "commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum eu fugiat nulla pariatur " +
  "excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum"
).split(" ");

const randrange = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo));

function paragraph(min: number, max: number): string {
  const p: string[] = [];
  let capitalize = true, lastComma = 0, lastFullstop = 0, last = "";
  const n = hiGuard(min, max);
  for (let idx = 0; idx < n; idx++) {
    let word: string;
    do word = WORDS[Math.floor(Math.random() * WORDS.length)] ?? ""; while (word === last);
    last = word;
    if (capitalize) {
      word = pyCapitalize(word);
      capitalize = false;
    }
    if (idx - randrange(3, 8) > lastComma) {
      lastComma = idx;
      lastFullstop += 2;
      word += ",";
    }
    if (idx - randrange(10, 20) > lastFullstop) {
      lastComma = lastFullstop = idx;
      word += ".";
      capitalize = true;
    }
    p.push(word);
  }
  const text = p.join(" ");
  return text.endsWith(",") ? text.slice(0, -1) + "." : text.endsWith(".") ? text : text + ".";
}

function hiGuard(min: number, max: number): number {
  if (max <= min) fail("ValueError", `empty range in randrange(${min}, ${max})`);
  return randrange(min, max);
}

const lipsumSig = py("generate_lorem_ipsum", [["n", 5], ["html", true], ["min", 20], ["max", 100]]);

function lipsum(args: unknown[], kwargs: Map<string, unknown>): unknown {
  const [n, html, min, max] = bind(lipsumSig, args, kwargs).values;
  const paras = Array.from({ length: rangeArg(n) }, () => paragraph(rangeArg(min), rangeArg(max)));
  if (html === false || html === null || html === 0 || html === "") return paras.join("\n\n");
  return new Markup(paras.map((x) => `<p>${escapeText(x)}</p>`).join("\n"));
}

function namespace(args: unknown[], kwargs: Map<string, unknown>): Namespace {
  const ns = new Namespace();
  for (const [k, v] of makeDict(args, kwargs).entries()) ns.attrs.set(k, v);
  return ns;
}

/** Template globals by name. */
export const GLOBALS: Record<string, PyFunction> = {
  range: new PyFunction("range", makeRange, "<class 'range'>", "type"),
  dict: new PyFunction("dict", (a, k) => makeDict(a, k), "<class 'dict'>", "type"),
  lipsum: new PyFunction("generate_lorem_ipsum", lipsum, "<function generate_lorem_ipsum>", "function"),
  cycler: new PyFunction("Cycler", (a) => new Cycler(a), "<class 'jinja2.utils.Cycler'>", "type"),
  joiner: new PyFunction(
    "Joiner",
    (a) => new Joiner(a.length ? a[0] : ", "),
    "<class 'jinja2.utils.Joiner'>",
    "type",
  ),
  namespace: new PyFunction("Namespace", namespace, "<class 'jinja2.utils.Namespace'>", "type"),
};
