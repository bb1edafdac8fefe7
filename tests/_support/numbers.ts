/**
 * Comparing computed figures with reference values (computed elsewhere, e.g. by scipy): numbers to a
 * relative tolerance, nulls and the rest exactly, objects by the expected value's keys.
 *
 * @module
 */
import { assert, assertEquals } from "./assert.ts";

/**
 * Every number of `expected` matches `actual` to `rel` (relative; near 0, to 1e-14), every null is null, other
 * values are equal; objects are compared on `expected`'s keys, arrays element by element.
 */
export function assertFigures(actual: unknown, expected: unknown, where: string, rel = 1e-12): void {
  if (typeof expected === "number") {
    assert(
      typeof actual === "number" && Number.isFinite(actual),
      `${where}: ${actual}, expected ${expected}`,
    );
    assert(
      Math.abs(actual - expected) <= Math.max(1e-14, rel * Math.abs(expected)),
      `${where}: ${actual}, reference ${expected}`,
    );
  } else if (expected === null || typeof expected !== "object") {
    assertEquals(actual, expected, where);
  } else if (Array.isArray(expected)) {
    assert(Array.isArray(actual) && actual.length === expected.length, `${where}: ${JSON.stringify(actual)}`);
    expected.forEach((e, i) => assertFigures(actual[i], e, `${where}[${i}]`, rel));
  } else {
    assert(actual !== null && typeof actual === "object", `${where}: ${JSON.stringify(actual)}`);
    for (const [k, e] of Object.entries(expected)) {
      assertFigures((actual as Record<string, unknown>)[k], e, `${where}.${k}`, rel);
    }
  }
}
