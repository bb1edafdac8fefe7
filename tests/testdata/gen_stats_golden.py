"""Generate stats_golden.json: reference values for claudius's statistics, computed independently with scipy.

What claudius computes in its own code (src/lib/statistics.ts, src/tools/trajectories/set_stats.ts) is
checked against these numbers by tests/lib/statistics_test.ts and tests/tools/trajectories/set_stats_test.ts:

- the functions: scipy.special.gammaln, scipy.special.betainc, scipy.stats.t (two-sided p), scipy.stats.binomtest
  (exact, two-sided, p = 1/2), the Wilson score interval written out from its formula, pass@k and pass^k from
  math.comb;
- whole comparisons: for each case, a list of (instance, trial, success | None) for sets A and B, and the figures:
  per-set mean of per-instance fractions, the Wilson interval (one scored trial per instance) or mean +- 1.96 SE
  with SE = std(ddof=1) / sqrt(n), pass@k / pass^k averaged over instances with >= k scored trials, the flip
  rate; the paired difference with scipy.stats.ttest_rel (paired t) or binomtest on the discordant pairs
  (McNemar exact), its interval and mde80 = 2.8016 * sd(d) / sqrt(n). Degenerate cases follow the rules
  documented in docs/statistics.md (null, or p = 1 when nothing differs).

Run by hand (numpy and scipy): python3 tests/testdata/gen_stats_golden.py
"""
import json
import math
import pathlib
import random
from fractions import Fraction

import numpy as np
import scipy
from scipy import special, stats

Z = 1.959963984540054  # scipy.stats.norm.ppf(0.975)
assert abs(stats.norm.ppf(0.975) - Z) < 1e-15
MDE = 2.8016
assert abs(stats.norm.ppf(0.975) + stats.norm.ppf(0.8) - MDE) < 1e-4


def wilson(c, n, z=Z):
    p = c / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [max(0.0, centre - half), min(1.0, centre + half)]


def pass_at_k(n, c, k):
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n, c, k):
    return math.comb(c, k) / math.comb(n, k)


def functions():
    out = {"logGamma": [], "incompleteBeta": [], "tTwoSidedP": [], "binomialTwoSidedP": [], "wilson": [],
           "passAtK": [], "passHatK": []}
    for x in [0.1, 0.5, 1, 1.5, 2, 3.7, 10, 25.5, 100, 1234.5]:
        out["logGamma"].append([x, float(special.gammaln(x))])
    for a, b in [(0.5, 0.5), (1, 1), (2, 3), (0.5, 10), (10, 0.5), (50, 50), (2.5, 0.5), (200, 0.5), (1000, 3)]:
        for x in [1e-6, 0.01, 0.2, 0.5, 0.77, 0.99, 0.999999]:
            out["incompleteBeta"].append([x, a, b, float(special.betainc(a, b, x))])
    for df in [1, 2, 3, 5, 9, 10, 29, 39, 100, 1000]:
        for t in [0, 0.1, 0.7, 1.0, 1.96, 2.2281388519649385, 3.5, 8, 30, -2.5]:
            out["tTwoSidedP"].append([t, df, float(2 * stats.t.sf(abs(t), df))])
    for n in [1, 2, 5, 6, 10, 17, 40, 101, 500]:
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            if 0 <= k <= n:
                out["binomialTwoSidedP"].append([k, n, float(stats.binomtest(k, n, 0.5).pvalue)])
    for c, n in [(0, 1), (1, 1), (0, 10), (3, 10), (10, 10), (7, 40), (120, 500)]:
        out["wilson"].append([c, n, wilson(c, n)])
    for n in [1, 3, 5, 10, 20]:
        for c in sorted({0, 1, n // 2, n - 1, n}):
            for k in sorted({1, 2, n // 2, n}):
                if 1 <= k <= n and 0 <= c <= n:
                    out["passAtK"].append([n, c, k, pass_at_k(n, c, k)])
                    out["passHatK"].append([n, c, k, pass_hat_k(n, c, k)])
    return out


def set_figures(units, trials=None):
    """units: [(instance, trial, success or None)] -> the set's figures."""
    by = {}
    for inst, _trial, s in units:
        if s is None:
            continue
        n, c = by.get(inst, (0, 0))
        by[inst] = (n + 1, c + (1 if s else 0))
    tallies = [by[i] for i in sorted(by)]
    n = len(tallies)
    k = max([1, trials or 0] + [t[0] for t in tallies])
    fr = np.array([c / m for m, c in tallies], dtype=float)
    out = {"instances": n, "trials": k, "scored": int(sum(t[0] for t in tallies)),
           "mean": float(fr.mean()) if n else None, "ci95": None, "ci95_method": None,
           "pass_at_k": {}, "pass_hat_k": {}, "flip_rate": None,
           "excluded": sorted(f"{t}/{i}" if t else i for i, t, s in units if s is None)}
    if n and all(m == 1 for m, _ in tallies):
        out["ci95"] = wilson(int(sum(c for _, c in tallies)), n)
        out["ci95_method"] = "wilson"
    elif n >= 2:
        half = Z * float(np.std(fr, ddof=1)) / math.sqrt(n)
        out["ci95"] = [max(0.0, out["mean"] - half), min(1.0, out["mean"] + half)]
        out["ci95_method"] = "clustered-se"
    elif n == 1:
        out["ci95_method"] = "clustered-se"
    for j in range(1, k + 1):
        enough = [(m, c) for m, c in tallies if m >= j]
        out["pass_at_k"][str(j)] = float(np.mean([pass_at_k(m, c, j) for m, c in enough])) if enough else None
        out["pass_hat_k"][str(j)] = float(np.mean([pass_hat_k(m, c, j) for m, c in enough])) if enough else None
    rep = [(m, c) for m, c in tallies if m >= 2]
    if rep:
        out["flip_rate"] = sum(1 for m, c in rep if 0 < c < m) / len(rep)
    return out, by


def difference(a, b):
    ids = sorted(set(a) & set(b))
    out = {"instances": len(ids), "estimate": None, "ci95": None, "test": None, "p_value": None}
    if not ids:
        return out, None
    fa = np.array([a[i][1] / a[i][0] for i in ids])
    fb = np.array([b[i][1] / b[i][0] for i in ids])
    d = fb - fa
    # Whether the differences have no spread, decided on exact fractions: 3/5 - 2/5 and 1/5 - 0 are the same
    # difference, though their doubles differ in the last bit.
    same = len({Fraction(b[i][1], b[i][0]) - Fraction(a[i][1], a[i][0]) for i in ids}) == 1
    n = len(ids)
    out["estimate"] = float(d.mean())
    mcnemar = all(a[i][0] == 1 and b[i][0] == 1 for i in ids)
    out["test"] = "mcnemar-exact" if mcnemar else "paired-t"
    mde = None
    if n >= 2:
        sd = 0.0 if same else float(np.std(d, ddof=1))
        se = sd / math.sqrt(n)
        out["ci95"] = [max(-1.0, out["estimate"] - Z * se), min(1.0, out["estimate"] + Z * se)]
        mde = MDE * se
    if mcnemar:
        a_only = sum(1 for i in ids if a[i][1] == 1 and b[i][1] == 0)
        b_only = sum(1 for i in ids if a[i][1] == 0 and b[i][1] == 1)
        out["discordant"] = {"a_only": a_only, "b_only": b_only}
        out["p_value"] = 1.0 if a_only + b_only == 0 else float(stats.binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue)
    elif n >= 2:
        if same:
            out["p_value"] = 1.0 if d[0] == 0 else None
        else:
            r = stats.ttest_rel(fb, fa)
            out["p_value"] = float(r.pvalue)
            out["t"] = float(r.statistic)
            out["df"] = n - 1
    return out, mde


def grid(instances, trials, p, rng, excluded=()):
    units = []
    for t in range(1, trials + 1):
        for i in range(instances):
            inst = f"i{i:02d}"
            name = f"trial-{t}" if trials > 1 else ""
            key = f"{name}/{inst}" if name else inst
            units.append((inst, name, None if key in excluded else rng.random() < p[i]))
    return units


def cases():
    rng = random.Random(26)
    easy = [rng.random() for _ in range(40)]
    out = []

    def add(name, a, b, trials_a=None, trials_b=None):
        fa, ta = set_figures(a, trials_a)
        fb, tb = set_figures(b, trials_b)
        diff, mde = difference(ta, tb)
        out.append({"name": name, "A": [list(u) for u in a], "B": [list(u) for u in b],
                    "trials": [trials_a, trials_b],
                    "expected": {"A": fa, "B": fb, "difference": diff, "mde80": mde}})

    one = lambda ids_ok: [(f"i{i:02d}", "", bool(ok)) for i, ok in enumerate(ids_ok)]
    add("one trial, McNemar with discordant pairs",
        one([1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0]), one([1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1]))
    add("one trial, no discordant pair", one([1, 0, 1, 0, 1]), one([1, 0, 1, 0, 1]))
    add("one trial, every instance resolved in both", one([1, 1, 1]), one([1, 1, 1]))
    add("one trial, one instance", one([0]), one([1]))
    add("five trials by forty instances, paired t",
        grid(40, 5, easy, rng), grid(40, 5, [min(1, x + 0.12) for x in easy], rng))
    add("three trials by ten instances with infrastructure endings excluded",
        grid(10, 3, easy[:10], rng, excluded={"trial-2/i03", "trial-1/i07", "trial-3/i07"}),
        grid(10, 3, [min(1, x + 0.3) for x in easy[:10]], rng, excluded={"trial-3/i00"}))
    add("five trials against one trial, paired t on fractions",
        grid(8, 5, easy[:8], rng), grid(8, 1, easy[:8], rng))
    add("an instance with every trial excluded is in no rate",
        [("a", "trial-1", True), ("a", "trial-2", False), ("b", "trial-1", None), ("b", "trial-2", None),
         ("c", "trial-1", True), ("c", "trial-2", True)],
        [("a", "trial-1", True), ("a", "trial-2", True), ("b", "trial-1", True), ("b", "trial-2", False),
         ("c", "trial-1", False), ("c", "trial-2", True)])
    add("zero variance: every instance gains the same",
        [("a", "trial-1", False), ("a", "trial-2", True), ("b", "trial-1", False), ("b", "trial-2", True)],
        [("a", "trial-1", True), ("a", "trial-2", True), ("b", "trial-1", True), ("b", "trial-2", True)])
    add("zero variance: no instance changes",
        [("a", "trial-1", False), ("a", "trial-2", True), ("b", "trial-1", True), ("b", "trial-2", True)],
        [("a", "trial-1", True), ("a", "trial-2", False), ("b", "trial-1", True), ("b", "trial-2", True)])
    trials = lambda inst, outcomes: [(inst, f"trial-{t + 1}", ok == "1") for t, ok in enumerate(outcomes)]
    add("zero variance in floats: 3/5 - 2/5 and 1/5 - 0 are the same difference",
        trials("a", "11000") + trials("b", "00000"), trials("a", "11100") + trials("b", "10000"))
    add("zero variance in floats: 6/10 - 7/10 and 1/10 - 2/10",
        trials("a", "1111111000") + trials("b", "1100000000"), trials("a", "1111110000") + trials("b", "1000000000"))
    add("no instance in common", one([1, 0]), [("x", "", True), ("y", "", False)])
    add("every trial excluded", [("a", "", None), ("b", "", None)], one([1, 0]))
    add("uneven trials: pass@k only over instances with k scored trials",
        [("a", "trial-1", True), ("a", "trial-2", False), ("a", "trial-3", True), ("b", "trial-1", False),
         ("b", "trial-2", None), ("b", "trial-3", None), ("c", "trial-1", True), ("c", "trial-2", True),
         ("c", "trial-3", None)],
        [("a", "trial-1", True), ("a", "trial-2", True), ("a", "trial-3", True), ("b", "trial-1", True),
         ("b", "trial-2", False), ("b", "trial-3", False), ("c", "trial-1", True), ("c", "trial-2", True),
         ("c", "trial-3", True)], 3, 3)
    return out


def main():
    here = pathlib.Path(__file__).parent
    data = {
        "generator": f"tests/testdata/gen_stats_golden.py (numpy {np.__version__}, scipy {scipy.__version__})",
        "functions": functions(),
        "cases": cases(),
    }
    (here / "stats_golden.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
