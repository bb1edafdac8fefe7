/**
 * Python's `sorted()`: stable, `<` comparisons only, and (below 64 items, where CPython's timsort
 * is a run count plus a binary insertion sort) the very comparisons CPython makes, so a list of
 * unorderable values fails with the same `'<' not supported between ...` message.
 * @module
 */
import { pyCompare } from "./_ops.ts";

const lt = (a: unknown, b: unknown) => pyCompare("<", a, b);

function countRun(keys: unknown[], lo: number, hi: number): [number, boolean] {
  if (lo + 1 === hi) return [1, false];
  let i = lo + 2;
  if (lt(keys[lo + 1], keys[lo])) {
    while (i < hi && lt(keys[i], keys[i - 1])) i++;
    return [i - lo, true];
  }
  while (i < hi && !lt(keys[i], keys[i - 1])) i++;
  return [i - lo, false];
}

function reverseRange<T>(a: T[], lo: number, hi: number): void {
  a.slice(lo, hi).reverse().forEach((x, k) => (a[lo + k] = x));
}

function binaryInsertion(keys: unknown[], vals: unknown[], start: number): void {
  for (let i = start; i < keys.length; i++) {
    const pivot = keys[i], pv = vals[i];
    let l = 0, r = i;
    while (l < r) {
      const p = l + ((r - l) >> 1);
      if (lt(pivot, keys[p])) r = p;
      else l = p + 1;
    }
    keys.splice(i, 1);
    keys.splice(l, 0, pivot);
    vals.splice(i, 1);
    vals.splice(l, 0, pv);
  }
}

/** Python `sorted(items, key=key, reverse=reverse)`. */
export function pySorted<T>(items: readonly T[], key?: (x: T) => unknown, reverse = false): T[] {
  const vals = items.slice();
  if (reverse) vals.reverse();
  const keys: unknown[] = key ? vals.map(key) : vals.slice();
  const n = vals.length;
  if (n < 2) return vals;
  if (n < 64) {
    const [run, descending] = countRun(keys, 0, n);
    if (descending) {
      reverseRange(keys, 0, run);
      reverseRange(vals, 0, run);
    }
    binaryInsertion(keys, vals, run);
  } else {
    const order = vals.map((v, i) => ({ k: keys[i], i, v }));
    order.sort((a, b) => (lt(a.k, b.k) ? -1 : lt(b.k, a.k) ? 1 : a.i - b.i));
    order.forEach((o, i) => (vals[i] = o.v));
  }
  if (reverse) vals.reverse();
  return vals;
}
