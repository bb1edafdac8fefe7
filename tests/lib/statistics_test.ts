/**
 * The statistics library against reference values scipy computed (tests/testdata/gen_stats_golden.py,
 * run once by hand; the numbers are kept in stats_golden.json, so the suite needs no Python).
 */
import { assert, assertEquals, assertThrows } from "../_support/assert.ts";
import {
  binomialTwoSidedP,
  incompleteBeta,
  logGamma,
  mean,
  passAtK,
  passHatK,
  sampleSd,
  tCdf,
  tTwoSidedP,
  wilsonInterval,
} from "../../src/lib/statistics.ts";

const GOLDEN = JSON.parse(
  await Deno.readTextFile(new URL("../testdata/stats_golden.json", import.meta.url)),
) as { functions: Record<string, unknown[][]> };
const table = <T extends unknown[]>(name: string) => GOLDEN.functions[name] as T[];

/** |a - b| within `rel` of b, or within `abs` (values near 0). */
function close(actual: number, expected: number, what: string, rel = 1e-12, abs = 1e-15): void {
  assert(Number.isFinite(actual), `${what}: ${actual}`);
  assert(
    Math.abs(actual - expected) <= Math.max(abs, rel * Math.abs(expected)),
    `${what}: ${actual}, scipy ${expected} (off by ${Math.abs(actual - expected)})`,
  );
}

Deno.test("logGamma() matches scipy.special.gammaln", () => {
  for (const [x, v] of table<[number, number]>("logGamma")) {
    close(logGamma(x), v, `logGamma(${x})`, 1e-13, 1e-14);
  }
});

Deno.test("incompleteBeta() matches scipy.special.betainc, near 0 and 1 and for large a", () => {
  const rows = table<[number, number, number, number]>("incompleteBeta");
  assert(rows.length >= 60);
  for (const [x, a, b, v] of rows) close(incompleteBeta(x, a, b), v, `I(${x}; ${a}, ${b})`, 1e-11, 1e-14);
  assertEquals([incompleteBeta(0, 2, 3), incompleteBeta(1, 2, 3)], [0, 1]);
});

Deno.test("tTwoSidedP() matches 2 * scipy.stats.t.sf(|t|, df), and tCdf() is its one-sided half", () => {
  for (const [t, df, p] of table<[number, number, number]>("tTwoSidedP")) {
    close(tTwoSidedP(t, df), p, `p(t=${t}, df=${df})`, 1e-11, 1e-15);
  }
  const [, , p] = table<[number, number, number]>("tTwoSidedP").find(([t, df]) => t === 3.5 && df === 9)!;
  close(tCdf(-3.5, 9), p / 2, "t(9) lower tail at -3.5", 1e-11);
  close(tCdf(3.5, 9), 1 - p / 2, "t(9) at 3.5", 1e-12);
  assertEquals([tTwoSidedP(0, 3), tTwoSidedP(Infinity, 3)], [1, 0]);
});

Deno.test("binomialTwoSidedP() matches scipy.stats.binomtest(k, n, 0.5), 1 for n = 0", () => {
  for (const [k, n, p] of table<[number, number, number]>("binomialTwoSidedP")) {
    close(binomialTwoSidedP(k, n), p, `binomtest(${k}, ${n})`, 1e-11, 1e-300);
  }
  assertEquals(binomialTwoSidedP(0, 0), 1);
  assertThrows(() => binomialTwoSidedP(3, 2), RangeError, "0 <= k <= n");
});

Deno.test("wilsonInterval() matches the Wilson score formula", () => {
  for (const [c, n, [lo, hi]] of table<[number, number, [number, number]]>("wilson")) {
    const [l, h] = wilsonInterval(c, n);
    close(l, lo, `wilson(${c}/${n}) lo`);
    close(h, hi, `wilson(${c}/${n}) hi`);
  }
  assertThrows(() => wilsonInterval(0, 0), RangeError, "n >= 1");
});

Deno.test("passAtK() and passHatK() match 1 - C(n-c,k)/C(n,k) and C(c,k)/C(n,k)", () => {
  for (const [n, c, k, v] of table<[number, number, number, number]>("passAtK")) {
    close(passAtK(n, c, k), v, `pass@${k} (${c}/${n})`);
  }
  for (const [n, c, k, v] of table<[number, number, number, number]>("passHatK")) {
    close(passHatK(n, c, k), v, `pass^${k} (${c}/${n})`);
  }
  assertThrows(() => passAtK(3, 1, 4), RangeError, "1 <= k <= n");
});

Deno.test("sampleSd() divides by n - 1 and is exactly 0 for equal values; mean() of none is 0", () => {
  close(sampleSd([2, 4, 4, 4, 5, 5, 7, 9]) ** 2, 32 / 7, "variance");
  assertEquals([sampleSd([1 / 3, 1 / 3, 1 / 3]), sampleSd([5])], [0, 0]);
  assertEquals(mean([]), 0);
});
