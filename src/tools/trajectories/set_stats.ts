/**
 * Whether a difference between two harnesses is more than noise: per set of runs, the success rate
 * over instances with its 95 % interval, pass@k and pass^k over repeated trials and the share of
 * instances whose trials disagree; per pair of sets, the paired difference with its interval, its test
 * and p-value, and the smallest difference the instances could detect. The formulas and when to use
 * which: `docs/statistics.md`. Pure: works on trial outcomes already read (see `trial_sets.ts`).
 *
 * Every figure is a number or `null` with the reason under `notes` (a field name, or `pass_at_k.3`),
 * never NaN.
 *
 * @module
 */
import {
  binomialTwoSidedP,
  MDE80_FACTOR,
  mean,
  passAtK,
  passHatK,
  sampleSd,
  tTwoSidedP,
  wilsonInterval,
  Z95,
} from "../../lib/statistics.ts";

/** One trial of one instance. */
export interface TrialOutcome {
  instanceId: string;
  /** The trial's name (`trial-3`; "" in a set of one trial). */
  trial: string;
  /** Whether it succeeded; null when it counts in no rate (see `excluded`). */
  success: boolean | null;
  /** Why it counts in no rate (an infrastructure ending, not ended, not evaluated). */
  excluded?: string;
}

/** What success means in a set: resolved by an evaluator's verdicts, else the run ended Submitted. */
export type Metric = "resolved" | "submitted";

/** The figures of one set of runs. */
export interface SetStats {
  metric: Metric;
  /** Instances with at least one scored trial. */
  instances: number;
  /** Trials in the set (the most any instance has). */
  trials: number;
  /** Scored trials, over every instance. */
  scored: number;
  /** Mean over instances of each instance's success fraction over its scored trials. */
  mean: number | null;
  /** 95 % interval of `mean`, clipped to [0, 1]. */
  ci95: [number, number] | null;
  /** `wilson` (one scored trial per instance) or `clustered-se` (mean +- 1.96 SE over instances). */
  ci95_method: "wilson" | "clustered-se" | null;
  /** pass@k for k = 1 .. trials, averaged over instances with at least k scored trials. */
  pass_at_k: Record<string, number | null>;
  /** pass^k (every one of k trials succeeds), as `pass_at_k`. */
  pass_hat_k: Record<string, number | null>;
  /** Share of the instances with two or more scored trials whose trials disagree. */
  flip_rate: number | null;
  /** Trials counted in no rate, as `id` (one trial) or `trial-k/id`, with `excluded_why`. */
  excluded: string[];
  excluded_why: Record<string, string>;
  /** Why a figure is null, or what a degenerate value means. */
  notes: Record<string, string>;
}

/** The paired difference B - A over the instances both sets scored. */
export interface Difference {
  /** Instances scored in both sets. */
  instances: number;
  /** Mean over those instances of B's success fraction minus A's. */
  estimate: number | null;
  /** estimate +- 1.96 * sd(d) / sqrt(n), clipped to [-1, 1]. */
  ci95: [number, number] | null;
  /** `mcnemar-exact` when every paired instance has one scored trial in each set, else `paired-t`. */
  test: "mcnemar-exact" | "paired-t" | null;
  p_value: number | null;
  /** McNemar: instances only A resolved, only B resolved. */
  discordant?: { a_only: number; b_only: number };
  /** Paired t: the statistic and its degrees of freedom. */
  t?: number;
  df?: number;
  notes: Record<string, string>;
}

/** The `stats` block of `claudius compare --json`. */
export interface PairStats {
  A: SetStats;
  B: SetStats;
  difference: Difference;
  /** 2.8016 * sd(d) / sqrt(n): the smallest difference these instances detect with 80 % power at alpha 0.05. */
  mde80: number | null;
  excluded: { A: string[]; B: string[] };
  /** The result in one line a reader can paste. */
  line: string;
}

/** Per instance: scored trials and successes. */
interface Tally {
  n: number;
  c: number;
}

function tallies(outcomes: readonly TrialOutcome[]): Map<string, Tally> {
  const by = new Map<string, Tally>();
  for (const o of outcomes) {
    if (o.success === null) continue;
    const t = by.get(o.instanceId) ?? { n: 0, c: 0 };
    t.n++;
    if (o.success) t.c++;
    by.set(o.instanceId, t);
  }
  return by;
}

const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** How an excluded trial is named: its id, behind its trial's name when there is one. */
export function outcomeName(o: Pick<TrialOutcome, "instanceId" | "trial">): string {
  return o.trial ? `${o.trial}/${o.instanceId}` : o.instanceId;
}

/**
 * The figures of one set.
 *
 * @example
 * ```ts
 * import { setStats } from "./set_stats.ts";
 * const s = setStats([
 *   { instanceId: "a", trial: "", success: true },
 *   { instanceId: "b", trial: "", success: false },
 * ], "submitted");
 * s.mean; // 0.5 (Wilson interval in s.ci95)
 * ```
 * @param outcomes every trial of every instance (excluded ones included, for the list)
 * @param metric what success means
 * @param trials the set's trials (default: the most scored trials an instance has, at least 1)
 */
export function setStats(outcomes: readonly TrialOutcome[], metric: Metric, trials?: number): SetStats {
  const by = tallies(outcomes);
  const all = [...by.values()];
  const k = Math.max(1, trials ?? 0, ...all.map((t) => t.n));
  const notes: Record<string, string> = {};
  const fractions = all.map((t) => t.c / t.n);
  const n = all.length;
  const excludedOnes = outcomes.filter((o) => o.success === null);
  const stats: SetStats = {
    metric,
    instances: n,
    trials: k,
    scored: all.reduce((s, t) => s + t.n, 0),
    mean: n ? mean(fractions) : null,
    ci95: null,
    ci95_method: null,
    pass_at_k: {},
    pass_hat_k: {},
    flip_rate: null,
    excluded: excludedOnes.map(outcomeName),
    excluded_why: Object.fromEntries(excludedOnes.map((o) => [outcomeName(o), o.excluded ?? "not scored"])),
    notes,
  };
  if (!n) {
    notes.mean = "no instance has a scored trial";
    notes.ci95 = notes.mean;
  } else if (all.every((t) => t.n === 1)) {
    stats.ci95 = wilsonInterval(all.reduce((s, t) => s + t.c, 0), n);
    stats.ci95_method = "wilson";
  } else if (n < 2) {
    stats.ci95_method = "clustered-se";
    notes.ci95 = "one instance: its spread over instances cannot be estimated";
  } else {
    const half = (Z95 * sampleSd(fractions)) / Math.sqrt(n);
    stats.ci95 = [clip(stats.mean! - half, 0, 1), clip(stats.mean! + half, 0, 1)];
    stats.ci95_method = "clustered-se";
    if (half === 0) {
      notes.ci95 = "every instance has the same success fraction: no spread, the interval is a point";
    }
  }
  for (let j = 1; j <= k; j++) {
    const enough = all.filter((t) => t.n >= j);
    if (!enough.length) {
      stats.pass_at_k[j] = stats.pass_hat_k[j] = null;
      notes[`pass_at_k.${j}`] = notes[`pass_hat_k.${j}`] = j === 1
        ? "no instance has a scored trial"
        : `no instance has ${j} scored trials`;
      continue;
    }
    stats.pass_at_k[j] = mean(enough.map((t) => passAtK(t.n, t.c, j)));
    stats.pass_hat_k[j] = mean(enough.map((t) => passHatK(t.n, t.c, j)));
  }
  const repeated = all.filter((t) => t.n >= 2);
  if (repeated.length) {
    stats.flip_rate = repeated.filter((t) => t.c > 0 && t.c < t.n).length / repeated.length;
  } else {
    notes.flip_rate = n ? "no instance has two scored trials" : "no instance has a scored trial";
  }
  return stats;
}

/**
 * Compare two sets: each set's figures, the paired difference B - A over the instances both scored,
 * its test and the smallest detectable difference, and the result in one line.
 *
 * @example
 * ```ts ignore
 * import { compareStats } from "./set_stats.ts";
 * const s = compareStats({ label: "control", outcomes: a, metric: "resolved" }, { label: "daemon", outcomes: b, metric: "resolved" });
 * console.log(s.line); // daemon - control = +0.12 [-0.03, +0.27], p = 0.11 (paired t, ...)
 * ```
 */
export function compareStats(
  a: { label: string; outcomes: readonly TrialOutcome[]; metric: Metric; trials?: number },
  b: { label: string; outcomes: readonly TrialOutcome[]; metric: Metric; trials?: number },
): PairStats {
  const A = setStats(a.outcomes, a.metric, a.trials);
  const B = setStats(b.outcomes, b.metric, b.trials);
  const { difference, mde80 } = pairedDifference(tallies(a.outcomes), tallies(b.outcomes));
  if (a.metric !== b.metric) {
    for (const key of ["estimate", "ci95", "p_value"] as const) difference[key] = null;
    difference.test = null;
    delete difference.discordant;
    delete difference.t;
    delete difference.df;
    difference.notes = {
      estimate:
        `${a.label} counts ${a.metric}, ${b.label} counts ${b.metric}: give both sets an evaluator's results ` +
        "(or neither) to compare them",
    };
  }
  const stats: PairStats = {
    A,
    B,
    difference,
    mde80: a.metric === b.metric ? mde80 : null,
    excluded: { A: A.excluded, B: B.excluded },
    line: "",
  };
  stats.line = pairLine(stats, a.label, b.label);
  return stats;
}

function pairedDifference(
  a: Map<string, Tally>,
  b: Map<string, Tally>,
): { difference: Difference; mde80: number | null } {
  const ids = [...a.keys()].filter((id) => b.has(id));
  const pairs = ids.map((id) => [a.get(id)!, b.get(id)!] as const);
  // One division of whole numbers per instance, so that equal differences are equal doubles: 3/5 - 2/5
  // and 1/5 - 0 as two fractions' doubles differ in the last bit, a spread of 1e-17 that made the t test's
  // p 1e-16 where the differences have no spread at all.
  const d = pairs.map(([x, y]) => (y.c * x.n - x.c * y.n) / (x.n * y.n));
  const n = d.length;
  const notes: Record<string, string> = {};
  const out: Difference = { instances: n, estimate: null, ci95: null, test: null, p_value: null, notes };
  if (!n) {
    notes.estimate = "no instance is scored in both sets";
    return { difference: out, mde80: null };
  }
  out.estimate = mean(d);
  const sd = sampleSd(d);
  const mcnemar = pairs.every(([x, y]) => x.n === 1 && y.n === 1);
  out.test = mcnemar ? "mcnemar-exact" : "paired-t";
  let mde80: number | null = null;
  if (n < 2) {
    notes.ci95 = notes.mde80 = "one paired instance: the spread of the differences cannot be estimated";
  } else {
    const se = sd / Math.sqrt(n);
    out.ci95 = [clip(out.estimate - Z95 * se, -1, 1), clip(out.estimate + Z95 * se, -1, 1)];
    mde80 = MDE80_FACTOR * se;
    if (sd === 0) {
      const same = out.estimate === 0
        ? "no paired instance differs between the sets"
        : `every paired instance differs by the same ${signed(out.estimate)}`;
      notes.ci95 =
        notes.mde80 =
          `${same}: no spread to estimate the noise from (run more instances or trials)`;
    }
  }
  if (mcnemar) {
    const aOnly = pairs.filter(([x, y]) => x.c === 1 && y.c === 0).length;
    const bOnly = pairs.filter(([x, y]) => x.c === 0 && y.c === 1).length;
    out.discordant = { a_only: aOnly, b_only: bOnly };
    out.p_value = binomialTwoSidedP(Math.min(aOnly, bOnly), aOnly + bOnly);
    if (aOnly + bOnly === 0) notes.p_value = "no discordant pair: the sets agree on every instance";
  } else if (n < 2) {
    notes.p_value = "one paired instance: no t-test";
  } else if (sd === 0) {
    if (out.estimate === 0) {
      out.p_value = 1;
      notes.p_value = "every paired instance has the same fraction in both sets";
    } else {
      notes.p_value = `every paired instance differs by ${
        signed(out.estimate)
      }: no spread, the t-test is undefined`;
    }
  } else {
    out.df = n - 1;
    out.t = out.estimate / (sd / Math.sqrt(n));
    out.p_value = tTwoSidedP(out.t, out.df);
  }
  return { difference: out, mde80 };
}

/** `+0.12`, `-0.03`, `0.00`. */
function signed(x: number): string {
  const s = x.toFixed(2);
  return Number(s) > 0 ? `+${s}` : Number(s) < 0 ? s : "0.00";
}

/**
 * `p = 0.11`, `p = 0.053`, `p = 0.004`, `p < 0.001`: three decimals below 0.1, so that the figure shown is
 * on the same side of alpha = 0.05 as p (two decimals showed 0.0498 and 0.0528 alike as `p = 0.05`, one
 * "distinguishable", the other not); `p < 0.05` where even three would round up to 0.050.
 */
export function formatP(p: number): string {
  if (p < 0.001) return "p < 0.001";
  if (p >= 0.1) return `p = ${p.toFixed(2)}`;
  const shown = p.toFixed(3);
  return p < 0.05 && Number(shown) >= 0.05 ? "p < 0.05" : `p = ${shown}`;
}

/** `[0.31, 0.76]` (or signed for a difference). */
export function formatInterval(ci: readonly [number, number], sign = false): string {
  const f = (x: number) => (sign ? signed(x) : x.toFixed(2));
  return `[${f(ci[0])}, ${f(ci[1])}]`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * `daemon - control = +0.12 [-0.03, +0.27], p = 0.11 (paired t, 40 instances x 5 trials):
 * not distinguishable; 80 % power needs a difference of 0.15.`
 */
function pairLine(s: PairStats, la: string, lb: string): string {
  const d = s.difference;
  const head = `${lb} - ${la}`;
  if (d.estimate === null) return `${head}: no difference to estimate (${Object.values(d.notes)[0] ?? ""})`;
  const trials = s.A.trials === s.B.trials
    ? plural(s.A.trials, "trial")
    : `${s.A.trials} and ${s.B.trials} trials`;
  const test = d.test === "mcnemar-exact" ? "McNemar exact" : "paired t";
  const p = d.p_value === null ? "p n/a" : formatP(d.p_value);
  const ci = d.ci95 ? ` ${formatInterval(d.ci95, true)}` : "";
  const where = `(${test}, ${plural(d.instances, "instance")} x ${trials})`;
  const verdict = d.p_value === null
    ? `no test (${d.notes.p_value})`
    : d.p_value < 0.05
    ? `distinguishable at alpha 0.05: ${d.estimate > 0 ? lb : la} is higher`
    : "not distinguishable";
  const power = s.mde80 === null || s.mde80 === 0
    ? ""
    : `; 80 % power needs a difference of ${s.mde80.toFixed(2)}`;
  return `${head} = ${signed(d.estimate)}${ci}, ${p} ${where}: ${verdict}${power}.`;
}
