/**
 * Jinja2's built-in filters for HTML, URLs and serialising: escape, forceescape, safe, striptags,
 * urlencode, urlize, xmlattr, tojson, pprint.
 * @module
 */
import type { Builtin } from "./_builtin.ts";
import { dictEntries, isDict } from "./_dict.ts";
import { fail } from "./_error.ts";
import { pyRepr, pyStr } from "./_format.ts";
import { toJson } from "./_json.ts";
import { escape, escapeText, markupEscape, stripTags } from "./_markup.ts";
import { isIterable, itemsOf, toList, truthy } from "./_ops.ts";
import { pformat } from "./_pprint.ts";
import { py, type Signature } from "./_signature.ts";
import { splitText } from "./_split.ts";
import { urlize } from "./_urlize.ts";
import { isStr, Markup, seqItems, strOf, typeName, Undefined } from "./_values.ts";

type Run = Builtin["run"];
const f = (sig: Signature, run: Run): Builtin => ({ sig, run });
const EVAL = { hidden: 1 };

const UNRESERVED = /[A-Za-z0-9_.\-~]/;
const encoder = new TextEncoder();

/** Jinja's `url_quote`: UTF-8, percent-encoded; `/` kept unless quoting for a query string. */
export function urlQuote(v: unknown, forQs = false): string {
  const s = isStr(v) ? strOf(v) : pyStr(v);
  let out = "";
  for (const ch of s) {
    if (UNRESERVED.test(ch) || (!forQs && ch === "/")) out += ch;
    else if (forQs && ch === " ") out += "+";
    else for (const b of encoder.encode(ch)) out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

function urlencode(value: unknown): string {
  if (value instanceof Undefined) return value.raise();
  if (isStr(value) || !isIterable(value)) return urlQuote(value);
  const pairs = isDict(value) ? dictEntries(value) : toList(value).map((p): [unknown, unknown] => {
    const kv = seqItems(p) ?? toList(p);
    if (kv.length !== 2) {
      fail(
        "ValueError",
        `${kv.length > 2 ? "too many" : "not enough"} values to unpack (expected 2${
          kv.length > 2 ? "" : `, got ${kv.length}`
        })`,
      );
    }
    return [kv[0], kv[1]];
  });
  return pairs.map(([k, v]) => `${urlQuote(k, true)}=${urlQuote(v, true)}`).join("&");
}

// deno-lint-ignore no-control-regex
const ATTR_KEY = /[\t\n\x0b\x0c\r\x1c-\x1f /=>]/;

function xmlattr(autoescape: boolean, d: unknown, autospace: unknown): unknown {
  if (d instanceof Undefined) return d.raise();
  if (!isDict(d)) return fail("AttributeError", `'${typeName(d)}' object has no attribute 'items'`);
  const items: string[] = [];
  for (const [key, value] of dictEntries(d)) {
    if (value === null || value instanceof Undefined) continue;
    if (ATTR_KEY.test(pyStr(key))) fail("ValueError", `Invalid character in attribute name: ${pyRepr(key)}`);
    items.push(`${markupEscape(key)}="${markupEscape(value)}"`);
  }
  let rv = items.join(" ");
  if (truthy(autospace) && rv) rv = " " + rv;
  return autoescape ? new Markup(rv) : rv;
}

let scheme: RegExp | undefined;
/** A URI scheme prefix (built on first use: a Unicode property class costs ~0.2 ms to build, which start-up would pay). */
const SCHEME = () => (scheme ??= /^[\p{L}\p{N}_.+-]{2,}:\/{0,2}$/u);

function doUrlize(autoescape: boolean, args: unknown[]): unknown {
  const [value, limit, nofollow, target, rel, extra] = args;
  const relParts = new Set(splitText(rel === null || !truthy(rel) ? "" : pyStr(rel), null, -1, false));
  if (truthy(nofollow)) relParts.add("nofollow");
  relParts.add("noopener");
  const relAttr = [...relParts].sort().join(" ") || null;
  const schemes = extra === null ? [] : itemsOf(extra).map((x) => pyStr(x));
  for (const s of schemes) {
    if (!SCHEME().test(s)) fail("FilterArgumentError", `${pyRepr(s)} is not a valid URI scheme prefix.`);
  }
  const rv = urlize(
    markupEscape(value),
    limit === null ? null : Number(limit),
    relAttr,
    target === null ? null : pyStr(target),
    extra === null ? null : schemes,
  );
  return autoescape ? new Markup(rv) : rv;
}

/** The HTML, URL and serialising filters by name. */
export const HTML_FILTERS: [string, Builtin][] = [
  ["escape", f(py("escape", ["s"]), (_e, [v]) => escape(v))],
  ["forceescape", f(py("do_forceescape", ["value"]), (_e, [v]) => new Markup(escapeText(pyStr(v))))],
  ["safe", f(py("do_mark_safe", ["value"]), (_e, [v]) => new Markup(pyStr(v)))],
  ["striptags", f(py("do_striptags", ["value"]), (_e, [v]) => stripTags(pyStr(v)))],
  ["urlencode", f(py("do_urlencode", ["value"]), (_e, [v]) => urlencode(v))],
  [
    "urlize",
    f(
      py("do_urlize", ["value", ["trim_url_limit", null], ["nofollow", false], ["target", null], [
        "rel",
        null,
      ], ["extra_schemes", null]], EVAL),
      (e, a) => doUrlize(e.autoescape, a),
    ),
  ],
  [
    "xmlattr",
    f(py("do_xmlattr", ["d", ["autospace", true]], EVAL), (e, [d, a]) => xmlattr(e.autoescape, d, a)),
  ],
  ["tojson", f(py("do_tojson", ["value", ["indent", null]], EVAL), (_e, [v, i]) => toJson(v, i))],
  ["pprint", f(py("do_pprint", ["value"]), (_e, [v]) => pformat(v))],
];
const escapeFilter = HTML_FILTERS.find(([name]) => name === "escape")?.[1];
if (!escapeFilter) throw new Error("Cannot alias the escape filter: it is not defined");
HTML_FILTERS.push(["e", escapeFilter]);
