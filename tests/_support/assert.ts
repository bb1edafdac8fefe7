/**
 * Assertions in the style of `@std/assert` (jsr is unreachable here), over `node:assert/strict`.
 *
 * @module
 */
import nodeAssert from "node:assert/strict";

/** Assert `value` is truthy. */
export function assert(value: unknown, message?: string): asserts value {
  nodeAssert.ok(value, message);
}

/** Deep strict equality. */
export function assertEquals<T>(actual: unknown, expected: T, message?: string): asserts actual is T {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

/** `text` matches `re`. */
export function assertMatch(text: string, re: RegExp, message?: string): void {
  nodeAssert.match(text, re, message);
}

/** `text` contains `part`. */
export function assertStringIncludes(text: string, part: string, message?: string): void {
  nodeAssert.ok(
    text.includes(part),
    message ?? `expected ${JSON.stringify(text)} to include ${JSON.stringify(part)}`,
  );
}

/** `fn` throws an instance of `cls` (optionally with `includes` in its message); returns the error. */
export function assertThrows<E extends Error>(
  fn: () => unknown,
  cls: new (...args: never[]) => E,
  includes?: string,
): E {
  try {
    fn();
  } catch (e) {
    nodeAssert.ok(e instanceof cls, `expected ${cls.name}, got ${e}`);
    if (includes) {
      nodeAssert.ok((e as Error).message.includes(includes), `'${(e as Error).message}' lacks '${includes}'`);
    }
    return e as E;
  }
  throw new nodeAssert.AssertionError({ message: `expected ${cls.name} to be thrown` });
}

/** `fn` rejects with an instance of `cls` (optionally with `includes` in its message); returns the error. */
export async function assertRejects<E extends Error>(
  fn: () => Promise<unknown>,
  cls: new (...args: never[]) => E,
  includes?: string,
): Promise<E> {
  try {
    await fn();
  } catch (e) {
    nodeAssert.ok(e instanceof cls, `expected ${cls.name}, got ${e}`);
    if (includes) {
      nodeAssert.ok((e as Error).message.includes(includes), `'${(e as Error).message}' lacks '${includes}'`);
    }
    return e as E;
  }
  throw new nodeAssert.AssertionError({ message: `expected ${cls.name} rejection` });
}
