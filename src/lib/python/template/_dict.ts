/**
 * Python dicts and hashing: {@linkcode PyDict} keys by Python equality (`1`, `1.0` and `True` are
 * one key, the first one stored is kept), and the same dict operations over plain JS objects
 * (string keys only) that callers pass in.
 * @module
 */
import { fail } from "./_error.ts";
import {
  isPlainDict,
  isStr,
  Markup,
  PyFloat,
  PyObject,
  PyTuple,
  strOf,
  typeName,
  Undefined,
} from "./_values.ts";

const ids = new WeakMap<object, number>();
let nextId = 0;

/** A range's hash identity: equal ranges (same items) get the same key. */
export interface RangeLike {
  readonly start: number;
  readonly step: number;
  readonly length: number;
}

function isRangeLike(v: unknown): v is RangeLike & PyObject {
  return v instanceof PyObject && v.pyType === "range";
}

function rangeKey(r: RangeLike): string {
  if (r.length === 0) return "r:0";
  return r.length === 1 ? `r:1:${r.start}` : `r:${r.length}:${r.start}:${r.step}`;
}

/**
 * The key Python would hash `v` by; values that compare equal get the same key. Throws
 * TypeError for unhashable values and UndefinedError for strict undefined.
 */
export function hashKey(v: unknown): string {
  if (typeof v === "string") return "s" + v;
  if (typeof v === "number") return Number.isNaN(v) ? "o" + objectId(v) : "n" + String(v);
  if (typeof v === "boolean") return v ? "n1" : "n0";
  if (v === null || v === undefined) return "N";
  if (v instanceof PyFloat) return Number.isNaN(v.value) ? "o" + objectId(v) : "n" + String(v.value);
  if (v instanceof Markup) return "s" + v.s;
  if (v instanceof PyTuple) return "t" + JSON.stringify(v.items.map(hashKey));
  if (v instanceof Undefined) return v.strict ? v.raise() : "U";
  if (isRangeLike(v)) return rangeKey(v);
  if (v instanceof PyObject && !v.pyType.startsWith("dict_")) return "o" + objectId(v);
  return fail("TypeError", `unhashable type: '${typeName(v)}'`);
}

function objectId(v: unknown): number {
  if (typeof v !== "object" || v === null) return -1; // a NaN number: never equal to anything
  let id = ids.get(v);
  if (id === undefined) ids.set(v, id = nextId++);
  return id;
}

/** A Python dict with Python key semantics, in insertion order. */
export class PyDict {
  readonly map: Map<string, [unknown, unknown]> = new Map();

  /** Builds a dict from key/value pairs (later pairs win, the first key object stays). */
  static from(pairs: Iterable<[unknown, unknown]>): PyDict {
    const d = new PyDict();
    for (const [k, v] of pairs) d.set(k, v);
    return d;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: unknown): { found: boolean; value: unknown } {
    const e = this.map.get(hashKey(key));
    return e ? { found: true, value: e[1] } : { found: false, value: undefined };
  }

  set(key: unknown, value: unknown): void {
    const h = hashKey(key);
    const e = this.map.get(h);
    if (e) e[1] = value;
    else this.map.set(h, [key, value]);
  }

  delete(key: unknown): boolean {
    return this.map.delete(hashKey(key));
  }

  entries(): [unknown, unknown][] {
    return [...this.map.values()];
  }
}

/** The dict types: PyDict and plain objects. */
export type Dict = PyDict | Record<string, unknown>;

/** True for dicts. */
export function isDict(v: unknown): v is Dict {
  return v instanceof PyDict || isPlainDict(v);
}

/** Key/value pairs of a dict in insertion order (missing keys of plain objects skipped). */
export function dictEntries(d: Dict): [unknown, unknown][] {
  if (d instanceof PyDict) return d.entries();
  return Object.entries(d).filter(([, v]) => v !== undefined);
}

/** Keys of a dict in insertion order. */
export function dictKeys(d: Dict): unknown[] {
  if (d instanceof PyDict) return [...d.map.values()].map((e) => e[0]);
  return Object.keys(d).filter((k) => d[k] !== undefined);
}

/** Number of keys. */
export function dictSize(d: Dict): number {
  return d instanceof PyDict ? d.size : dictKeys(d).length;
}

/** Looks a key up; `found` is false when missing. Unhashable keys throw TypeError. */
export function dictGet(d: Dict, key: unknown): { found: boolean; value: unknown } {
  if (d instanceof PyDict) return d.get(key);
  hashKey(key);
  if (isStr(key)) {
    const k = strOf(key);
    if (Object.hasOwn(d, k) && d[k] !== undefined) return { found: true, value: d[k] };
  }
  return { found: false, value: undefined };
}

/** `d[key] = value`. A plain object takes string keys only. */
export function dictSet(d: Dict, key: unknown, value: unknown): void {
  if (d instanceof PyDict) return d.set(key, value);
  hashKey(key);
  if (!isStr(key)) {
    fail("TypeError", `a dict passed to the template takes only str keys, got ${typeName(key)}`);
  }
  d[strOf(key)] = value;
}

/** `del d[key]`; false when missing. */
export function dictDelete(d: Dict, key: unknown): boolean {
  if (d instanceof PyDict) return d.delete(key);
  const k = isStr(key) ? strOf(key) : undefined;
  if (k === undefined || !Object.hasOwn(d, k) || d[k] === undefined) return false;
  delete d[k];
  return true;
}

/** Removes every key. */
export function dictClear(d: Dict): void {
  if (d instanceof PyDict) d.map.clear();
  else for (const k of Object.keys(d)) delete d[k];
}
