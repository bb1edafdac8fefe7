/**
 * Jinja's `tojson`: Python's `json.dumps(v, sort_keys=True, indent=...)` (ASCII escapes), then the
 * HTML-safe escapes of `<`, `>`, `&` and `'`.
 * @module
 */
import { dictEntries, isDict } from "./_dict.ts";
import { fail } from "./_error.ts";
import { formatFloat, formatInt } from "./_format.ts";
import { pySorted } from "./_sort.ts";
import { isIndex, isStr, Markup, num, PyFloat, seqItems, strOf, typeName } from "./_values.ts";

const SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

function jsonStr(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    const c = s.charCodeAt(i);
    const short = SHORT[ch];
    if (short !== undefined) out += short;
    else if (c < 0x20 || c > 0x7e) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

function jsonFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity";
  return formatFloat(n);
}

function jsonKey(k: unknown): string {
  if (isStr(k)) return strOf(k);
  if (k === null) return "null";
  if (typeof k === "boolean") return k ? "true" : "false";
  if (isIndex(k)) return formatInt(num(k));
  if (k instanceof PyFloat || typeof k === "number") return jsonFloat(num(k));
  return fail("TypeError", `keys must be str, int, float, bool or None, not ${typeName(k)}`);
}

class Encoder {
  readonly #seen = new Set<object>();
  constructor(readonly indent: string | null) {}

  encode(v: unknown, level: number): string {
    if (isStr(v)) return jsonStr(strOf(v));
    if (v === null) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") return Number.isInteger(v) ? formatInt(v) : jsonFloat(v);
    if (v instanceof PyFloat) return jsonFloat(v.value);
    const items = seqItems(v);
    if (items) {
      // The items (a tuple's own list) stand for the container in the cycle check.
      return this.#container(
        items,
        "[",
        "]",
        items.map((x) => (lvl: number) => this.encode(x, lvl)),
        level,
      );
    }
    if (isDict(v)) {
      const sorted = pySorted(dictEntries(v), ([k]) => k);
      const parts = sorted.map(([k, x]) => (lvl: number) => `${jsonStr(jsonKey(k))}: ${this.encode(x, lvl)}`);
      return this.#container(v, "{", "}", parts, level);
    }
    return fail("TypeError", `Object of type ${typeName(v)} is not JSON serializable`);
  }

  #container(
    v: object,
    open: string,
    close: string,
    parts: ((lvl: number) => string)[],
    level: number,
  ): string {
    if (parts.length === 0) return open + close;
    if (this.#seen.has(v)) fail("ValueError", "Circular reference detected");
    this.#seen.add(v);
    let out: string;
    if (this.indent === null) out = open + parts.map((p) => p(level)).join(", ") + close;
    else {
      const inner = "\n" + this.indent.repeat(level + 1);
      out = open + inner + parts.map((p) => p(level + 1)).join("," + inner) + "\n" +
        this.indent.repeat(level) + close;
    }
    this.#seen.delete(v);
    return out;
  }
}

/** Python `json.dumps(v, sort_keys=True, indent=indent)`. */
export function jsonDumps(v: unknown, indent: unknown = null): string {
  let ind: string | null = null;
  if (isStr(indent)) ind = strOf(indent);
  else if (indent !== null) {
    if (!isIndex(indent)) {
      fail("TypeError", `can't multiply sequence by non-int of type '${typeName(indent)}'`);
    }
    ind = " ".repeat(Math.max(0, num(indent)));
  }
  return new Encoder(ind).encode(v, 0);
}

/** Jinja's `tojson` filter: json.dumps made safe for HTML, as Markup. */
export function toJson(v: unknown, indent: unknown = null): Markup {
  const s = jsonDumps(v, indent);
  return new Markup(
    /[<>&']/.test(s) ? s.replace(/[<>&']/g, (c) => "\\u00" + c.charCodeAt(0).toString(16)) : s,
  );
}
