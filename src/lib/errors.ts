/**
 * What was thrown, as an `Error` or its message: a `catch` clause's value is `unknown` (a string, a
 * rejected promise's reason), and these read it without a cast.
 *
 * @module
 */

/**
 * The thrown value as an `Error` (itself when it is one, else a new one with its text).
 * @example
 * ```ts
 * import { asError } from "./errors.ts";
 * asError("boom").message; // "boom"
 * ```
 */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/**
 * The thrown value's message (an `Error`'s `message`, else its text).
 * @example
 * ```ts
 * import { errorMessage } from "./errors.ts";
 * errorMessage(new TypeError("bad")); // "bad"
 * ```
 */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
