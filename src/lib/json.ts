/**
 * JSON values as a type, and the check that a parsed value is one: what `JSON.parse` (or the
 * Python-flavoured `parsePythonJson`) returns is `unknown` to the compiler, and this says what it is
 * without a cast.
 *
 * @module
 */

/** A JSON value, as it travels on the wire and into the trajectory. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/**
 * True when `value` is made only of JSON values: null, booleans, numbers (NaN and the infinities
 * too, as Python's json writes them), strings, arrays and plain objects of them. Checked without
 * recursion, so any depth a parser produced is fine.
 * @example
 * ```ts
 * import { isJson } from "./json.ts";
 * isJson(JSON.parse('{"a": [1, "x", null]}')); // true
 * isJson({ when: new Date() }); // false
 * ```
 */
export function isJson(value: unknown): value is Json {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v === "boolean" || typeof v === "number" || typeof v === "string") continue;
    if (!Array.isArray(v) && !isPlainObject(v)) return false;
    // A loop, not push(...): a long array has more items than a call takes arguments.
    for (const item of Array.isArray(v) ? v : Object.values(v)) stack.push(item);
  }
  return true;
}

/**
 * True when `value` is a plain object of JSON values.
 * @example
 * ```ts
 * import { isJsonObject } from "./json.ts";
 * isJsonObject({ a: 1 }); // true
 * isJsonObject([1]); // false
 * ```
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return isPlainObject(value) && isJson(value);
}

/**
 * True for a plain object: a mapping as JSON and YAML make it (not an array, not null, not a class
 * instance such as a `Date`). The one guard for "a plain object" everywhere in claudius.
 *
 * @example
 * ```ts
 * import { isPlainObject } from "./json.ts";
 * isPlainObject({ a: 1 }); // true
 * isPlainObject([1]); // false
 * ```
 */
export function isPlainObject(value: Json | undefined): value is JsonObject;
export function isPlainObject(value: unknown): value is Record<string, unknown>;
export function isPlainObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
