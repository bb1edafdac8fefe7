/**
 * A record with one entry per key of a fixed list, made from a function of the key: the one place a
 * list of keys becomes a record typed by them (`Object.fromEntries` types its result by string).
 *
 * @module
 */

/**
 * `{ [k]: value(k) }` for every `k` of `keys`, in their order.
 * @example
 * ```ts
 * import { keyed } from "./keyed.ts";
 * keyed(["read", "write"] as const, () => 0); // { read: 0, write: 0 }
 * ```
 */
export function keyed<K extends string, V>(keys: readonly K[], value: (key: K) => V): Record<K, V> {
  // Every key is set below; the type says so once here.
  const out = {} as Record<K, V>;
  for (const k of keys) out[k] = value(k);
  return out;
}
