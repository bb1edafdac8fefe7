/**
 * Python's protocols over the value model: truth, `==`, ordering, `in`, `len()`, `iter()`.
 * @module
 */
import { dictGet, dictKeys, dictSize, hashKey, isDict } from "./_dict.ts";
import { fail } from "./_error.ts";
import { DictView, PyRange } from "./_objects.ts";
import { cmpStr, cpLength } from "./_strings.ts";
import {
  isNumber,
  isStr,
  Markup,
  num,
  PyFloat,
  PyObject,
  PyTuple,
  seqItems,
  strOf,
  typeName,
  Undefined,
} from "./_values.ts";

/** Python `bool(v)`; strict undefined fails. */
export function truthy(v: unknown): boolean {
  switch (typeof v) {
    case "boolean":
      return v;
    case "number":
      return v !== 0;
    case "string":
      return v.length > 0;
  }
  if (v === null || v === undefined) return false;
  if (v instanceof PyFloat) return v.value !== 0;
  if (v instanceof Undefined) return v.strict ? v.raise() : false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof Markup) return v.s.length > 0;
  if (v instanceof PyObject) return v.len ? v.len() > 0 : true;
  if (isDict(v)) return dictSize(v) > 0;
  return true;
}

function undefinedEq(a: unknown, b: unknown): boolean | undefined {
  if (a instanceof Undefined) return a.strict ? a.raise() : b instanceof Undefined && !b.strict;
  if (b instanceof Undefined) return b.strict ? b.raise() : false;
  return undefined;
}

/** Python `a == b`. */
export function pyEq(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") return a === b;
  if (isNumber(a) && isNumber(b)) return num(a) === num(b);
  const u = undefinedEq(a, b);
  if (u !== undefined) return u;
  if (a === b) return true;
  if (isStr(a) || isStr(b)) return isStr(a) && isStr(b) && strOf(a) === strOf(b);
  if (a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && eqItems(a, b);
  if (a instanceof PyTuple) return b instanceof PyTuple && eqItems(a.items, b.items);
  if (isDict(a)) return isDict(b) && eqDicts(a, b);
  if (a instanceof PyRange && b instanceof PyRange) return hashKey(a) === hashKey(b);
  return false;
}

/** Equality of container items: identity first, as CPython's containers compare. */
export function itemEq(a: unknown, b: unknown): boolean {
  return a === b || pyEq(a, b);
}

function eqItems(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => itemEq(x, b[i]));
}

function eqDicts(a: Parameters<typeof dictKeys>[0], b: Parameters<typeof dictKeys>[0]): boolean {
  if (dictSize(a) !== dictSize(b)) return false;
  return dictKeys(a).every((k) => {
    const x = dictGet(a, k), y = dictGet(b, k);
    return y.found && itemEq(x.value, y.value);
  });
}

/** The comparison operators. */
export type CmpOp = "<" | "<=" | ">" | ">=";

function ordered(op: CmpOp, c: number): boolean {
  if (Number.isNaN(c)) return false;
  return op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
}

/** Python `a <op> b`; TypeError when the types are not ordered. */
export function pyCompare(op: CmpOp, a: unknown, b: unknown): boolean {
  if (a instanceof Undefined) a.raise();
  if (b instanceof Undefined) b.raise();
  if (isNumber(a) && isNumber(b)) {
    const x = num(a), y = num(b);
    return ordered(op, x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN);
  }
  if (isStr(a) && isStr(b)) return ordered(op, cmpStr(strOf(a), strOf(b)));
  const x = seqItems(a), y = seqItems(b);
  if (x && y && Array.isArray(a) === Array.isArray(b)) {
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) {
      if (!itemEq(x[i], y[i])) return pyCompare(op, x[i], y[i]);
    }
    return ordered(op, x.length - y.length);
  }
  return fail(
    "TypeError",
    `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`,
  );
}

/** Python `a in b`. */
export function pyIn(a: unknown, b: unknown): boolean {
  if (b instanceof Undefined) return b.strict ? b.raise() : false;
  if (isStr(b)) {
    if (!isStr(a)) {
      return fail("TypeError", `'in <string>' requires string as left operand, not ${typeName(a)}`);
    }
    return strOf(b).includes(strOf(a));
  }
  if (a instanceof Undefined && a.strict) a.raise();
  const items = seqItems(b);
  if (items) return items.some((x) => itemEq(x, a));
  if (isDict(b)) return dictGet(b, a).found;
  if (b instanceof PyRange) return isNumber(a) ? b.indexOf(num(a)) >= 0 : false;
  if (b instanceof DictView && b.kind === "keys") return dictGet(b.dict, a).found;
  if (b instanceof PyObject && b.iterate) {
    const it = b.iterate();
    for (let r = it.next(); !r.done; r = it.next()) if (itemEq(r.value, a)) return true;
    return false;
  }
  return fail("TypeError", `argument of type '${typeName(b)}' is not iterable`);
}

/** Python `len(v)`. */
export function pyLen(v: unknown): number {
  if (typeof v === "string") return cpLength(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof Undefined) return v.strict ? v.raise() : 0;
  if (v instanceof Markup) return cpLength(v.s);
  if (v instanceof PyTuple) return v.items.length;
  if (v instanceof PyObject && v.len) return v.len();
  if (isDict(v)) return dictSize(v);
  return fail("TypeError", `object of type '${typeName(v)}' has no len()`);
}

/** True when `len(v)` works. */
export function hasLen(v: unknown): boolean {
  return isStr(v) || seqItems(v) !== undefined || isDict(v) || (v instanceof PyObject && v.len !== undefined);
}

const EMPTY: Iterator<unknown> = [][Symbol.iterator]();

/** Python `iter(v)`: code points, list/tuple items (live), dict keys, lazy objects. */
export function iterate(v: unknown): Iterator<unknown> {
  if (Array.isArray(v)) return v[Symbol.iterator]();
  if (typeof v === "string") return v[Symbol.iterator]();
  if (v instanceof PyTuple) return v.items[Symbol.iterator]();
  if (v instanceof Undefined) return v.strict ? v.raise() : EMPTY;
  if (v instanceof Markup) return v.s[Symbol.iterator]();
  if (v instanceof PyObject && v.iterate) return v.iterate();
  if (isDict(v)) return dictKeys(v)[Symbol.iterator]();
  return fail("TypeError", `'${typeName(v)}' object is not iterable`);
}

/** True when `iter(v)` works (strict undefined fails, as Python's `iter()` does). */
export function isIterable(v: unknown): boolean {
  if (v instanceof Undefined) return v.strict ? v.raise() : true;
  return isStr(v) || seqItems(v) !== undefined || isDict(v) || (v instanceof PyObject && !!v.iterate);
}

/** Python `list(v)`: a new array of the items. */
export function toList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v.slice();
  if (v instanceof PyTuple) return v.items.slice();
  const it = iterate(v);
  const out: unknown[] = [];
  for (let r = it.next(); !r.done; r = it.next()) out.push(r.value);
  return out;
}

/** The items of `v` without copying when it already is a list or tuple. */
export function itemsOf(v: unknown): readonly unknown[] {
  return seqItems(v) ?? toList(v);
}
