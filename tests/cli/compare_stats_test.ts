/**
 * `claudius compare` and `claudius stats` as subprocesses over sets laid out as `claudius batch --trials`
 * writes them (`trial-<k>/<id>/<id>.traj.json`, each trial's verdicts in its `results.json`), and over
 * one-trial batches with `--results`: their `stats` figures are the ones scipy computed for the same
 * outcomes (tests/testdata/gen_stats_golden.py). Runs that ended on the infrastructure are in the
 * evaluator's results as failures, and must count in no rate all the same.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { assertFigures } from "../_support/numbers.ts";
import { writeSyntheticTrajectory } from "../_support/synthetic_trajectory.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

interface Case {
  name: string;
  A: [string, string, boolean | null][];
  B: [string, string, boolean | null][];
  expected: { A: Record<string, unknown>; B: Record<string, unknown>; difference: unknown; mde80: unknown };
}
const GOLDEN = JSON.parse(
  await Deno.readTextFile(new URL("../testdata/stats_golden.json", import.meta.url)),
) as { cases: Case[] };
const named = (prefix: string) => GOLDEN.cases.find((c) => c.name.startsWith(prefix))!;

async function claudius(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", MAIN, ...args], stdin: "null" })
    .output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

/** The infrastructure endings the fixtures use, in turn. */
const LOST = ["EnvironmentLost", "APIConnectionError", "Terminated"];

/**
 * Write a set's units as a batch would: a trajectory per (trial, instance), an excluded unit ending on the
 * infrastructure. `verdicts`: each trial's results.json (the infrastructure endings listed as unresolved, as
 * an evaluator scores an empty patch); `submitted`: success is the exit status instead.
 * @returns the results file of a one-trial set (for --results), "" for a set of trials
 */
async function writeSet(dir: string, units: Case["A"], how: "verdicts" | "submitted"): Promise<string> {
  const results = new Map<string, Record<string, boolean>>();
  let lost = 0;
  for (const [id, trial, success] of units) {
    const status = success === null
      ? LOST[lost++ % LOST.length]!
      : how === "submitted" && !success
      ? "LimitsExceeded"
      : "Submitted";
    const base = trial ? `${dir}/${trial}` : dir;
    await writeSyntheticTrajectory(`${base}/${id}/${id}.traj.json`, { steps: 2, status, instanceId: id });
    const r = results.get(base) ?? {};
    r[id] = success === true;
    results.set(base, r);
  }
  if (how === "submitted") return "";
  const one = units.every(([, trial]) => trial === "");
  for (const [base, r] of results) {
    const file = one ? `${dir}.results.json` : `${base}/results.json`;
    await Deno.writeTextFile(file, JSON.stringify(r));
    if (one) return file;
  }
  return "";
}

/** The figures scipy computed, with excluded lists sorted as the generator sorts them. */
function sortedStats(stats: Record<string, Record<string, unknown>>) {
  const sort = (s: Record<string, unknown>) => ({ ...s, excluded: [...(s.excluded as string[])].sort() });
  return { ...stats, A: sort(stats.A!), B: sort(stats.B!) };
}

Deno.test("claudius compare --json over trial directories: each set's figures, the paired t test and mde80 as scipy computes them", async () => {
  const dir = await Deno.makeTempDir();
  const c = named("three trials by ten instances");
  await writeSet(`${dir}/control`, c.A, "verdicts");
  await writeSet(`${dir}/daemon`, c.B, "verdicts");
  const r = await claudius("compare", `${dir}/control`, `${dir}/daemon`, "--json");
  assertEquals(r.code, 0, r.stderr);
  const { stats, a } = JSON.parse(r.stdout);
  assertFigures(sortedStats(stats), c.expected, c.name);
  assertEquals([stats.A.metric, stats.A.trials, stats.difference.test], ["resolved", 3, "paired-t"]);
  // Infrastructure endings are listed with their reason, though the results call them unresolved.
  assertEquals(stats.excluded.A.sort(), ["trial-1/i07", "trial-2/i03", "trial-3/i07"]);
  assertEquals(Object.values(stats.A.excluded_why).sort(), [
    "APIConnectionError",
    "EnvironmentLost",
    "Terminated",
  ]);
  assertEquals(stats.excluded.B, ["trial-3/i00"]);
  // The per-run table counts every trajectory of every trial.
  assertEquals([a.instances, a.resolved, a.evaluated], [30, c.A.filter(([, , ok]) => ok).length, 30]);
  assertMatch(
    stats.line,
    /^daemon - control = \+0\.28 \[\+0\.15, \+0\.42\], p = 0\.003 \(paired t, 10 instances x 3 trials\): distinguishable/,
  );

  const text = await claudius("compare", `${dir}/control`, `${dir}/daemon`);
  assertEquals(text.code, 0, text.stderr);
  assert(text.stdout.includes(`\n${stats.line}\n`), text.stdout);
  assertMatch(text.stdout, /^pass@1\.\.3 +\S+ \S+ \S+ +\S+ \S+ \S+$/m);
  assertMatch(text.stdout, /^excluded from control \(in no rate; a rerun runs them again\): trial-1\/i07/m);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("claudius compare --results over one-trial batches: Wilson intervals and McNemar's exact test as scipy computes them", async () => {
  const dir = await Deno.makeTempDir();
  const c = named("one trial, McNemar");
  const ra = await writeSet(`${dir}/a`, c.A, "verdicts");
  const rb = await writeSet(`${dir}/b`, c.B, "verdicts");
  const r = await claudius("compare", `${dir}/a`, `${dir}/b`, "--results", ra, "--results", rb, "--json");
  assertEquals(r.code, 0, r.stderr);
  const { stats } = JSON.parse(r.stdout);
  assertFigures(sortedStats(stats), c.expected, c.name);
  assertEquals([stats.A.ci95_method, stats.difference.test], ["wilson", "mcnemar-exact"]);
  assertEquals(stats.difference.discordant, { a_only: 1, b_only: 4 });
  // --results is one trial's verdicts: a set of trials takes them from its directories.
  const t = named("three trials by ten instances");
  await writeSet(`${dir}/trials`, t.A, "verdicts");
  const bad = await claudius("compare", `${dir}/trials`, `${dir}/b`, "--results", ra, "--results", rb);
  assertEquals(bad.code, 2, bad.stderr);
  assertMatch(
    bad.stderr,
    /--results .* has 3 trials: put each trial's verdicts in its directory as results\.json/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("claudius stats SET: the set's block (submitted without results), the infrastructure endings left out and listed", async () => {
  const dir = await Deno.makeTempDir();
  const c = named("three trials by ten instances");
  await writeSet(`${dir}/set`, c.A, "submitted");
  const r = await claudius("stats", `${dir}/set`, "--json");
  assertEquals(r.code, 0, r.stderr);
  const { stats, trajectories } = JSON.parse(r.stdout);
  assertEquals(trajectories.length, 30);
  const { excluded, ...expected } = c.expected.A;
  assertFigures(stats, expected, c.name);
  assertEquals([stats.metric, [...stats.excluded].sort()], ["submitted", [...(excluded as string[])].sort()]);
  assertEquals(
    trajectories.filter((t: { excluded?: string }) => t.excluded).map((t: { excluded: string }) => t.excluded)
      .sort(),
    ["APIConnectionError", "EnvironmentLost", "Terminated"],
  );
  const text = await claudius("stats", `${dir}/set`);
  assertMatch(text.stdout, /^Success rate: submitted \(no evaluator's results\)$/m);
  assertMatch(text.stdout, /^instances x trials +10 x 3 \(27 scored\)$/m);
  assertMatch(
    text.stdout,
    new RegExp(`^mean \\[95 % CI\\] +${(c.expected.A.mean as number).toFixed(2)} \\[`, "m"),
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("claudius stats and compare with nothing to estimate give null and the reason, never NaN", async () => {
  const dir = await Deno.makeTempDir();
  const c = named("every trial excluded");
  await writeSet(`${dir}/a`, c.A, "submitted");
  await writeSet(`${dir}/b`, c.B, "submitted");
  const r = await claudius("compare", `${dir}/a`, `${dir}/b`, "--json");
  assertEquals(r.code, 0, r.stderr);
  assert(!r.stdout.includes("NaN"), r.stdout);
  const { stats } = JSON.parse(r.stdout);
  assertEquals([stats.A.mean, stats.A.ci95, stats.difference.estimate, stats.mde80], [
    null,
    null,
    null,
    null,
  ]);
  assertEquals(stats.A.notes.mean, "no instance has a scored trial");
  assertEquals(stats.line, "b - a: no difference to estimate (no instance is scored in both sets)");
  const text = await claudius("stats", `${dir}/a`);
  assertMatch(text.stdout, /^mean \[95 % CI\] +-$/m);
  assertMatch(text.stdout, /^note: mean, ci95: no instance has a scored trial$/m);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("claudius stats: --results scores a set of one trial; several PATHs are the trials of one set, named by PATH", async () => {
  const dir = await Deno.makeTempDir();
  const c = named("one trial, McNemar");
  const ra = await writeSet(`${dir}/a`, c.A, "verdicts");
  const one = JSON.parse((await claudius("stats", `${dir}/a`, "--results", ra, "--json")).stdout).stats;
  assertFigures(one, { ...c.expected.A, excluded: [] }, "stats --results");
  assertEquals([one.metric, one.ci95_method], ["resolved", "wilson"]);
  const t = named("three trials by ten instances");
  await writeSet(`${dir}/t`, t.A, "submitted");
  const paths = [1, 2, 3].map((k) => `${dir}/t/trial-${k}`);
  const r = await claudius("stats", ...paths, "--json");
  assertEquals(r.code, 0, r.stderr);
  const { stats } = JSON.parse(r.stdout);
  const { excluded, ...expected } = t.expected.A;
  assertFigures(stats, expected, "three PATHs as three trials");
  assertEquals(
    [...stats.excluded].sort(),
    (excluded as string[]).map((e) => `${dir}/t/${e}`).sort(),
  );
  await Deno.remove(dir, { recursive: true });
});
