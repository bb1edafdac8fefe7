/**
 * The few distributions and estimators the comparison of two harnesses needs, written here (no
 * statistics package): the Student t test's p-value through the regularized incomplete beta function
 * (a continued fraction evaluated by the modified Lentz method, as in Numerical Recipes, 3rd ed.,
 * section 6.4), the exact two-sided binomial test at 1/2 (McNemar's exact test), the Wilson score
 * interval, and the unbiased pass@k (Chen et al. 2021) and pass^k (Yao et al. 2024) estimators.
 * Every function returns a number for every valid input (never NaN for finite arguments in range)
 * and throws a RangeError for an argument out of its domain.
 *
 * @module
 */

/** The normal quantile z(0.975): half the width of a 95 % interval in standard errors. */
export const Z95 = 1.959963984540054;

/** z(0.975) + z(0.8): the smallest detectable difference at alpha 0.05 and 80 % power, in standard errors. */
export const MDE80_FACTOR = 2.8016;

// Lanczos approximation, g = 7, nine coefficients (relative error below 1e-15 for x > 0).
const LANCZOS = [
  0.99999999999980993,
  676.5203681218851,
  -1259.1392167224028,
  771.32342877765313,
  -176.61502916214059,
  12.507343278686905,
  -0.13857109526572012,
  9.9843695780195716e-6,
  1.5056327351493116e-7,
];

/**
 * The natural logarithm of the gamma function, for x > 0.
 *
 * @example
 * ```ts
 * import { logGamma } from "./statistics.ts";
 * Math.exp(logGamma(5)); // 24 (to 1e-13)
 * ```
 * @throws {RangeError} when x is not a positive finite number
 */
export function logGamma(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) throw new RangeError(`Cannot take logGamma(${x}): x must be > 0`);
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x); // reflection
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The continued fraction of I_x(a, b), by the modified Lentz method (Numerical Recipes' betacf). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300, eps = 1e-15;
  const qab = a + b, qap = a + 1, qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < eps) return h;
  }
  return h; // converged as far as doubles go (the fraction needs O(sqrt(max(a, b))) terms)
}

/**
 * The regularized incomplete beta function I_x(a, b) = B(x; a, b) / B(a, b).
 *
 * @example
 * ```ts
 * import { incompleteBeta } from "./statistics.ts";
 * incompleteBeta(0.5, 2, 2); // 0.5
 * ```
 * @throws {RangeError} when a or b is not positive or x is outside [0, 1]
 */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0) || !(b > 0) || !Number.isFinite(a) || !Number.isFinite(b)) {
    throw new RangeError(`Cannot take the incomplete beta with a = ${a}, b = ${b}: both must be > 0`);
  }
  if (!(x >= 0 && x <= 1)) {
    throw new RangeError(`Cannot take the incomplete beta at x = ${x}: x is in [0, 1]`);
  }
  if (x === 0 || x === 1) return x;
  const front = Math.exp(
    logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x),
  );
  // The fraction converges fast below the mean; above it, use the symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
  return x < (a + 1) / (a + b + 2)
    ? (front * betaFraction(a, b, x)) / a
    : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/**
 * The two-sided p-value of Student's t statistic with `df` degrees of freedom: P(|T| >= |t|), computed
 * as I_{df/(df+t^2)}(df/2, 1/2) (no 1 - cdf cancellation for large |t|).
 *
 * @example
 * ```ts
 * import { tTwoSidedP } from "./statistics.ts";
 * tTwoSidedP(2.2281388519649385, 10); // 0.05 (the 97.5 % quantile of t(10))
 * ```
 * @throws {RangeError} when df is not positive or t is NaN
 */
export function tTwoSidedP(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`Cannot take a t p-value with df = ${df}: df must be > 0`);
  if (Number.isNaN(t)) throw new RangeError("Cannot take a t p-value of NaN");
  if (!Number.isFinite(t)) return 0;
  return Math.min(1, incompleteBeta(df / (df + t * t), df / 2, 0.5));
}

/**
 * Student's t cumulative distribution function P(T <= t) with `df` degrees of freedom.
 *
 * @example
 * ```ts
 * import { tCdf } from "./statistics.ts";
 * tCdf(0, 5); // 0.5
 * ```
 * @throws {RangeError} when df is not positive or t is NaN
 */
export function tCdf(t: number, df: number): number {
  const tail = tTwoSidedP(t, df) / 2;
  return t >= 0 ? 1 - tail : tail;
}

/** ln C(n, k). */
function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/**
 * The exact two-sided binomial test of `k` successes in `n` trials at p = 1/2: the probability of an
 * outcome at least as far from n/2 as `k` (scipy's `binomtest(k, n, 0.5)`; McNemar's exact test when
 * k and n - k are the two kinds of discordant pairs). 1 when n = 0 (the one possible outcome).
 *
 * @example
 * ```ts
 * import { binomialTwoSidedP } from "./statistics.ts";
 * binomialTwoSidedP(1, 10); // 0.021484375 (22 / 1024)
 * ```
 * @throws {RangeError} when n is not a whole number >= 0 or k is not one in [0, n]
 */
export function binomialTwoSidedP(k: number, n: number): number {
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(k) || k < 0 || k > n) {
    throw new RangeError(`Cannot test ${k} of ${n}: need whole numbers 0 <= k <= n`);
  }
  const low = Math.min(k, n - k);
  if (2 * low === n) return 1;
  let tail = 0;
  for (let i = 0; i <= low; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

/**
 * The Wilson score interval of a proportion (`successes` of `n`), with z = {@link Z95} by default.
 *
 * @example
 * ```ts
 * import { wilsonInterval } from "./statistics.ts";
 * wilsonInterval(0, 10); // [0, 0.2775...]
 * ```
 * @throws {RangeError} when n < 1 or successes is outside [0, n]
 */
export function wilsonInterval(successes: number, n: number, z = Z95): [number, number] {
  if (!(n >= 1) || !(successes >= 0 && successes <= n)) {
    throw new RangeError(
      `Cannot take a Wilson interval of ${successes} in ${n}: need 0 <= successes <= n, n >= 1`,
    );
  }
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

function checkCounts(n: number, c: number, k: number): void {
  if (
    !Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || c < 0 || c > n || k < 1 || k > n
  ) {
    throw new RangeError(
      `Cannot estimate over k = ${k} of n = ${n} trials with c = ${c}: need 0 <= c <= n, 1 <= k <= n`,
    );
  }
}

/**
 * The unbiased pass@k estimator of Chen et al. (2021): 1 - C(n-c, k) / C(n, k), the chance that at
 * least one of k trials drawn without replacement from n, c of them successes, succeeds. Computed as
 * their product form, stable for large n.
 *
 * @example
 * ```ts
 * import { passAtK } from "./statistics.ts";
 * passAtK(5, 2, 2); // 0.7 (1 - C(3,2)/C(5,2))
 * ```
 * @throws {RangeError} unless 0 <= c <= n and 1 <= k <= n (whole numbers)
 */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/**
 * The pass^k estimator of Yao et al. (2024, tau-bench): C(c, k) / C(n, k), the chance that all of k
 * trials drawn without replacement from n, c of them successes, succeed.
 *
 * @example
 * ```ts
 * import { passHatK } from "./statistics.ts";
 * passHatK(5, 3, 2); // 0.3 (C(3,2)/C(5,2))
 * ```
 * @throws {RangeError} unless 0 <= c <= n and 1 <= k <= n (whole numbers)
 */
export function passHatK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return Math.max(0, all);
}

/**
 * The arithmetic mean; 0 for no values.
 *
 * @example
 * ```ts
 * import { mean } from "./statistics.ts";
 * mean([1, 2, 6]); // 3
 * ```
 */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

/**
 * The sample standard deviation (divisor n - 1); 0 for fewer than two values.
 *
 * @example
 * ```ts
 * import { sampleSd } from "./statistics.ts";
 * sampleSd([1, 2, 3]); // 1
 * ```
 */
export function sampleSd(values: readonly number[]): number {
  // Equal values have no spread: exactly 0, not the rounding error of their mean.
  if (values.length < 2 || values.every((v) => v === values[0])) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1));
}
