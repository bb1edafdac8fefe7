/**
 * compareStats() and setStats() against whole comparisons computed by scipy (tests/testdata/
 * gen_stats_golden.py: numpy means and standard deviations, ttest_rel, binomtest, the Wilson formula,
 * math.comb for pass@k): one-trial and many-trial sets, excluded trials, and the degenerate cases.
 */
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { assertFigures } from "../../_support/numbers.ts";
import {
  compareStats,
  formatP,
  setStats,
  type TrialOutcome,
} from "../../../src/tools/trajectories/set_stats.ts";

interface Case {
  name: string;
  A: [string, string, boolean | null][];
  B: [string, string, boolean | null][];
  trials: [number | null, number | null];
  expected: Record<string, unknown>;
}
const GOLDEN = JSON.parse(
  await Deno.readTextFile(new URL("../../testdata/stats_golden.json", import.meta.url)),
) as { cases: Case[] };

const outcomes = (units: Case["A"]): TrialOutcome[] =>
  units.map(([instanceId, trial, success]) => ({
    instanceId,
    trial,
    success,
    ...(success === null ? { excluded: "EnvironmentLost" } : {}),
  }));

for (const c of GOLDEN.cases) {
  Deno.test(`compareStats(): ${c.name}, as scipy computes it`, () => {
    const [ta, tb] = c.trials;
    const s = compareStats(
      { label: "A", outcomes: outcomes(c.A), metric: "resolved", ...(ta ? { trials: ta } : {}) },
      { label: "B", outcomes: outcomes(c.B), metric: "resolved", ...(tb ? { trials: tb } : {}) },
    );
    const sorted = {
      ...s,
      A: { ...s.A, excluded: [...s.A.excluded].sort() },
      B: { ...s.B, excluded: [...s.B.excluded].sort() },
    };
    assertFigures(sorted, c.expected, c.name);
    // Never NaN, anywhere; every null figure says why.
    const json = JSON.stringify(s);
    assert(!json.includes("NaN") && !/:\s*Infinity/.test(json), json);
    for (const [side, block] of [["A", s.A], ["B", s.B]] as const) {
      for (const key of ["mean", "ci95", "flip_rate"] as const) {
        if (block[key] === null) assert(block.notes[key], `${side}.${key} is null without a reason`);
      }
    }
    for (const key of ["estimate", "ci95", "p_value"] as const) {
      if (s.difference[key] === null) {
        assert(
          s.difference.notes[key] ?? s.difference.notes.estimate,
          `difference.${key} is null without a reason`,
        );
      }
    }
    assertMatch(s.line, /^B - A/);
  });
}

Deno.test("compareStats() line: the estimate, interval, p, test and sizes, in words", () => {
  const c = GOLDEN.cases.find((x) => x.name.startsWith("five trials by forty"))!;
  const s = compareStats(
    { label: "control", outcomes: outcomes(c.A), metric: "resolved" },
    { label: "daemon", outcomes: outcomes(c.B), metric: "resolved" },
  );
  assertEquals(
    s.line,
    "daemon - control = +0.05 [-0.01, +0.11], p = 0.086 (paired t, 40 instances x 5 trials): " +
      "not distinguishable; 80 % power needs a difference of 0.08.",
  );
  const m = GOLDEN.cases.find((x) => x.name.startsWith("three trials by ten"))!;
  assertEquals(
    compareStats(
      { label: "a", outcomes: outcomes(m.A), metric: "submitted" },
      { label: "b", outcomes: outcomes(m.B), metric: "submitted" },
    ).line,
    "b - a = +0.28 [+0.15, +0.42], p = 0.003 (paired t, 10 instances x 3 trials): " +
      "distinguishable at alpha 0.05: b is higher; 80 % power needs a difference of 0.20.",
  );
  const one = GOLDEN.cases.find((x) => x.name.startsWith("one trial, McNemar"))!;
  assertEquals(
    compareStats(
      { label: "a", outcomes: outcomes(one.A), metric: "resolved" },
      { label: "b", outcomes: outcomes(one.B), metric: "resolved" },
    ).line,
    "b - a = +0.25 [-0.10, +0.60], p = 0.38 (McNemar exact, 12 instances x 1 trial): " +
      "not distinguishable; 80 % power needs a difference of 0.50.",
  );
});

Deno.test("compareStats() degenerate lines say why instead of a number", () => {
  const named = (prefix: string) => GOLDEN.cases.find((x) => x.name.startsWith(prefix))!;
  const line = (c: Case) =>
    compareStats({ label: "a", outcomes: outcomes(c.A), metric: "resolved" }, {
      label: "b",
      outcomes: outcomes(c.B),
      metric: "resolved",
    }).line;
  assertEquals(
    line(named("zero variance: every instance gains")),
    "b - a = +0.50 [+0.50, +0.50], p n/a (paired t, 2 instances x 2 trials): no test (every paired " +
      "instance differs by +0.50: no spread, the t-test is undefined).",
  );
  assertEquals(
    line(named("no instance in common")),
    "b - a: no difference to estimate (no instance is scored in both sets)",
  );
  assertMatch(line(named("one trial, no discordant pair")), /p = 1\.00 .*: not distinguishable\.$/);
});

Deno.test("compareStats() will not subtract a resolved rate from a submitted one", () => {
  const a = outcomes([["x", "", true], ["y", "", false]]);
  const s = compareStats({ label: "a", outcomes: a, metric: "resolved" }, {
    label: "b",
    outcomes: a,
    metric: "submitted",
  });
  assertEquals([s.difference.estimate, s.difference.p_value, s.mde80], [null, null, null]);
  assertMatch(s.difference.notes.estimate!, /a counts resolved, b counts submitted/);
});

Deno.test("setStats() lists excluded trials with their reason and counts them in no rate", () => {
  const s = setStats([
    { instanceId: "a", trial: "trial-1", success: true },
    { instanceId: "a", trial: "trial-2", success: null, excluded: "EnvironmentLost" },
    { instanceId: "b", trial: "trial-1", success: false },
    { instanceId: "b", trial: "trial-2", success: null, excluded: "APIConnectionError" },
  ], "submitted");
  assertEquals([s.instances, s.scored, s.mean, s.ci95_method], [2, 2, 0.5, "wilson"]);
  assertEquals(s.excluded_why, { "trial-2/a": "EnvironmentLost", "trial-2/b": "APIConnectionError" });
  assertEquals(s.flip_rate, null);
  assertEquals(s.notes.flip_rate, "no instance has two scored trials");
});

Deno.test("formatP(): the p shown is on the same side of alpha 0.05 as p, so the line's words never contradict it", () => {
  assertEquals(
    [0.5, 0.11, 0.0528, 0.0502, 0.0498, 0.04951, 0.012, 0.0031, 0.0009].map(formatP),
    [
      "p = 0.50",
      "p = 0.11",
      "p = 0.053",
      "p = 0.050",
      "p < 0.05",
      "p < 0.05",
      "p = 0.012",
      "p = 0.003",
      "p < 0.001",
    ],
  );
  for (let p = 0.0001; p < 0.2; p += 0.00007) {
    const shown = formatP(p);
    const below = shown.startsWith("p <") || Number(shown.slice(4)) < 0.05;
    assertEquals(below, p < 0.05, `${p} shown as ${shown}`);
  }
});

Deno.test("setStats() with nothing scored says so once for every figure, in words (not '1 scored trials')", () => {
  const s = setStats(
    [{ instanceId: "a", trial: "trial-1", success: null, excluded: "EnvironmentLost" }],
    "submitted",
    2,
  );
  assertEquals(s.notes, {
    mean: "no instance has a scored trial",
    ci95: "no instance has a scored trial",
    "pass_at_k.1": "no instance has a scored trial",
    "pass_hat_k.1": "no instance has a scored trial",
    "pass_at_k.2": "no instance has 2 scored trials",
    "pass_hat_k.2": "no instance has 2 scored trials",
    flip_rate: "no instance has a scored trial",
  });
});
