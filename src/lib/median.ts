/**
 * The median of a list of numbers, as the reports and comparisons print it.
 *
 * @module
 */

/**
 * The median of `values`: the middle one, or the mean of the two middle ones; 0 when empty.
 * @example
 * ```ts
 * import { median } from "./median.ts";
 * median([3, 1, 2]); // 2
 * median([4, 1, 2, 3]); // 2.5
 * ```
 */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const upper = s[s.length >> 1];
  if (upper === undefined) return 0;
  const lower = s[(s.length - 1) >> 1] ?? upper;
  return s.length % 2 ? upper : (lower + upper) / 2;
}
