/**
 * `--trials K`: every instance K times, trial k a batch directory of its own (`<out>/trial-<k>/`, with arms
 * `<out>/<arm>/trial-<k>/`), run trial by trial and, within a trial, instance by instance under every arm;
 * K = 1 keeps the plain layout; a shard takes its share of the (trial, instance) units; a batch killed
 * halfway finishes on a rerun without running a finished unit again. Real bash, the scripted model.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../_support/assert.ts";
import { ConfigError } from "../../src/core/errors.ts";
import { type BatchDeps, runArms, runBatch } from "../../src/batch/run_batch.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { config, step, submit, writeBatch } from "../_support/batch.ts";
import { episodeFeatures } from "../../src/cli/features.ts";
import { trialInstances } from "../../src/batch/_trials.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

function deps(lines: string[] = []): BatchDeps {
  return {
    hostEnv: Deno.env.toObject(),
    features: episodeFeatures,
    cwd: Deno.cwd(),
    write: (t) => lines.push(...t.split("\n").filter(Boolean)),
    live: false,
    log: (l) => lines.push(l),
  };
}

const base = { workers: 1, selection: {}, redoExisting: false, dockerHosts: [], verbose: false };

/** Every file and directory under `dir`, relative, sorted (claims and exit-status times left out). */
async function tree(dir: string, at = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}${at}`)) {
    const path = `${at}/${e.name}`;
    out.push(path.replace(/exit_statuses_\d+/, "exit_statuses_T"));
    if (e.isDirectory && e.name !== ".claims") out.push(...await tree(dir, path));
  }
  return out.sort();
}

Deno.test("runArms() with trials 3: trial k in <out>/trial-<k>/ as a batch layout of its own, run trial by trial", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("A")] }, { id: "b", replies: [submit("B")] }]);
  const lines: string[] = [];
  const cfg = await config(fx.specs);
  const done = await runArms(
    { ...base, instancesPath: fx.instances, outDir: fx.out, trials: 3, arms: [{ name: "", config: cfg }] },
    deps(lines),
  );
  assertEquals(
    done.arms.map((a) => [a.name, a.trial, a.outDir]),
    [1, 2, 3].map((k) => ["", k, `${fx.out}/trial-${k}`]),
  );
  for (const k of [1, 2, 3]) {
    const dir = `${fx.out}/trial-${k}`;
    assertEquals(Object.keys(JSON.parse(await Deno.readTextFile(`${dir}/preds.json`))).sort(), ["a", "b"]);
    const { data } = await readTrajectory(`${dir}/a/a.traj.json`);
    assertEquals(data.info.exit_status, "Submitted");
  }
  assertEquals((await tree(fx.out)).filter((p) => !p.includes("/", 1)), ["/trial-1", "/trial-2", "/trial-3"]);
  const starts = lines.filter((l) => l.includes("] start ")).map((l) => l.replace(/^.*start /, ""));
  assertEquals(starts, ["trial-1/a", "trial-1/b", "trial-2/a", "trial-2/b", "trial-3/a", "trial-3/b"]);
  assert(
    lines.some((l) =>
      l ===
        `claudius batch: trial 2: 2 of 2 instances selected, 0 already finished, 2 to run -> ${fx.out}/trial-2`
    ),
    lines.join("\n"),
  );

  // A rerun finds every trial finished; a larger K adds the trials that are missing.
  const more = await runArms(
    { ...base, instancesPath: fx.instances, outDir: fx.out, trials: 4, arms: [{ name: "", config: cfg }] },
    deps(),
  );
  assertEquals(more.arms.map((a) => [a.summary.skipped, Object.values(a.summary.byStatus).flat().length]), [
    [2, 0],
    [2, 0],
    [2, 0],
    [0, 2],
  ]);
});

Deno.test("runArms() with one trial keeps the plain layout, file for file, as runBatch() writes it", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("A")] }, {
    id: "b",
    replies: [step("true"), submit("B")],
  }]);
  const cfg = await config(fx.specs);
  await runBatch({ ...base, instancesPath: fx.instances, outDir: `${fx.dir}/plain`, config: cfg }, deps());
  await runArms(
    {
      ...base,
      instancesPath: fx.instances,
      outDir: `${fx.dir}/one`,
      trials: 1,
      arms: [{ name: "", config: cfg }],
    },
    deps(),
  );
  assertEquals(await tree(`${fx.dir}/one`), await tree(`${fx.dir}/plain`));
  assertEquals(
    await Deno.readTextFile(`${fx.dir}/one/preds.json`),
    await Deno.readTextFile(`${fx.dir}/plain/preds.json`),
  );
});

Deno.test("runArms() with arms and trials: <out>/<arm>/trial-<k>/, each instance under every arm in turn, trial by trial", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("A")] }, { id: "b", replies: [submit("B")] }]);
  const lines: string[] = [];
  const [x, y] = [await config(fx.specs), await config([...fx.specs, "agent.step_limit=5"])];
  const done = await runArms(
    {
      ...base,
      instancesPath: fx.instances,
      outDir: fx.out,
      trials: 2,
      arms: [{ name: "x", config: x }, { name: "y", config: y }],
    },
    deps(lines),
  );
  assertEquals(done.arms.map((a) => `${a.name}:${a.trial}`), ["x:1", "x:2", "y:1", "y:2"]);
  for (const dir of ["x/trial-1", "x/trial-2", "y/trial-1", "y/trial-2"]) {
    const { data } = await readTrajectory(`${fx.out}/${dir}/b/b.traj.json`);
    assertEquals(data.info.exit_status, "Submitted", dir);
  }
  const { data } = await readTrajectory(`${fx.out}/y/trial-2/a/a.traj.json`);
  assertEquals((data.info.config as { agent: { step_limit: number } }).agent.step_limit, 5);
  const starts = lines.filter((l) => l.includes("] start ")).map((l) => l.replace(/^.*start /, ""));
  assertEquals(starts, [
    "x/trial-1/a",
    "y/trial-1/a",
    "x/trial-1/b",
    "y/trial-1/b",
    "x/trial-2/a",
    "y/trial-2/a",
    "x/trial-2/b",
    "y/trial-2/b",
  ]);
});

Deno.test("trialInstances(): shards split the (trial, instance) units, disjoint and whole", () => {
  const ids = ["a", "b", "c"].map((instance_id) => ({ instance_id }));
  const shares = [1, 2].map((index) =>
    trialInstances(ids, 3, { index, count: 2 }).flatMap((list, t) =>
      list.map((i) => `${t + 1}/${i.instance_id}`)
    )
  );
  assertEquals(shares, [["1/a", "1/c", "2/b", "3/a", "3/c"], ["1/b", "2/a", "2/c", "3/b"]]);
  assertEquals(trialInstances(ids, 2).map((l) => l.length), [3, 3]);
});

Deno.test("runArms() with trials and --shard I/N: the shards share one output, each unit run by one of them", async () => {
  const fx = await writeBatch(["a", "b", "c"].map((id) => ({ id, replies: [submit(id)] })));
  const cfg = await config(fx.specs);
  const ran: string[][] = [];
  for (const index of [1, 2]) {
    const done = await runArms({
      ...base,
      instancesPath: fx.instances,
      outDir: fx.out,
      trials: 3,
      selection: { shard: { index, count: 2 } },
      arms: [{ name: "", config: cfg }],
    }, deps());
    ran.push(
      done.arms.flatMap((a) => Object.values(a.summary.byStatus).flat().map((id) => `${a.trial}/${id}`)),
    );
  }
  assertEquals(ran, [["1/a", "1/c", "2/b", "3/a", "3/c"], ["1/b", "2/a", "2/c", "3/b"]]);
  for (const k of [1, 2, 3]) {
    assertEquals(Object.keys(JSON.parse(await Deno.readTextFile(`${fx.out}/trial-${k}/preds.json`))).sort(), [
      "a",
      "b",
      "c",
    ]);
  }
});

Deno.test("runArms() refuses trials where a batch of one trial lives, and one trial where trials live", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("A")] }]);
  const cfg = await config(fx.specs);
  const run = (trials: number) =>
    runArms({
      ...base,
      instancesPath: fx.instances,
      outDir: fx.out,
      trials,
      arms: [{ name: "", config: cfg }],
    }, deps());
  await run(1);
  await assertRejects(() => run(2), ConfigError, "holds a batch of one trial");
  await Deno.remove(fx.out, { recursive: true });
  await run(2);
  await assertRejects(() => run(1), ConfigError, "rerun them with --trials 2");
});

/** Run `claudius ARGS...` in `cwd`. */
function spawn(args: string[], cwd: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
}

async function finish(child: Deno.ChildProcess) {
  const out = await child.output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

Deno.test("claudius batch --arm --trials killed halfway: the rerun runs only the unfinished units, and nothing unfinished is counted", async () => {
  const ids = ["i1", "i2", "i3", "i4"];
  const dir = await Deno.makeTempDir();
  const log = `${dir}/runs.log`;
  // Each unit logs its working directory (<out>/<arm>/trial-<k>/<id>/workspace) as it runs.
  const fx = await writeBatch(
    ids.map((id) => ({ id, replies: [step(`pwd >> ${log}; sleep 0.4`), submit(id)] })),
    dir,
  );
  const args = [
    "batch",
    fx.instances,
    "-o",
    fx.out,
    "-w",
    "2",
    "--trials",
    "3",
    "--arm",
    "x=",
    "--arm",
    "y=",
    ...fx.specs.flatMap((s) => ["-c", s]),
  ];
  const units = ["x", "y"].flatMap((arm) =>
    [1, 2, 3].flatMap((k) => ids.map((id) => `${arm}/trial-${k}/${id}`))
  );
  const ended = async () => {
    const done: string[] = [];
    for (const u of units) {
      const id = u.slice(u.lastIndexOf("/") + 1);
      const last = await readTrajectory(`${fx.out}/${u}/${id}.traj.json`).then(
        (t) => t.data.messages.at(-1),
        () => undefined,
      );
      if (last?.role === "exit") done.push(u);
    }
    return done;
  };
  const logged = async () =>
    (await Deno.readTextFile(log).catch(() => "")).trim().split("\n").filter(Boolean);
  const first = spawn(args, dir);
  for (const end = Date.now() + 60_000;;) {
    const done = await ended();
    if (done.length >= 6 && (await logged()).length > done.length) break;
    if (Date.now() > end) throw new Error("Cannot wait any longer for six finished units and more in flight");
    await new Promise((r) => setTimeout(r, 50));
  }
  first.kill("SIGKILL");
  await finish(first);
  const before = await ended();
  const unit = (pwd: string) => pwd.slice(fx.out.length + 1).replace(/\/workspace$/, "");
  const inFlight = (await logged()).map(unit).filter((u) => !before.includes(u));
  assert(inFlight.length > 0, "some unit was in flight at the kill");
  assert(before.length < units.length, "the kill came before the end");

  // Nothing reported done that is not: a unit the kill cut off counts in no rate, it is listed.
  const cmp = await finish(spawn(["compare", `${fx.out}/x`, `${fx.out}/y`, "--json"], dir));
  assertEquals(cmp.code, 0, cmp.stderr);
  const { stats } = JSON.parse(cmp.stdout);
  const excluded = [
    ...stats.excluded.A.map((e: string) => `x/${e}`),
    ...stats.excluded.B.map((e: string) => `y/${e}`),
  ];
  for (const u of inFlight) {
    assert(excluded.includes(u), `${u} was cut off and is listed as excluded: ${excluded}`);
  }
  assertEquals(stats.A.scored + stats.B.scored, before.length);
  for (const u of excluded) {
    assertEquals(stats.A.excluded_why[u.slice(2)] ?? stats.B.excluded_why[u.slice(2)], "not ended");
  }

  const second = await finish(spawn(args, dir));
  assertEquals(second.code, 0, second.stderr);
  const skipped = [...second.stdout.matchAll(/(\d+) skipped as finished/g)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
  assertEquals(skipped, before.length, second.stdout);
  // Nothing paid twice: a unit finished before the kill ran once; every unit ran.
  const runs = (await logged()).map(unit);
  for (const u of units) {
    const n = runs.filter((r) => r === u).length;
    assert(n >= 1, `${u} ran`);
    if (before.includes(u)) assertEquals(n, 1, `${u} finished before the kill and was not run again`);
  }
  assertEquals((await ended()).length, units.length);
  const after = JSON.parse(
    (await finish(spawn(["compare", `${fx.out}/x`, `${fx.out}/y`, "--json"], dir))).stdout,
  );
  assertEquals([after.stats.A.scored, after.stats.B.scored, after.stats.excluded], [12, 12, {
    A: [],
    B: [],
  }]);
  assertMatch(after.stats.line, /^y - x = 0\.00 .*\(paired t, 4 instances x 3 trials\)/);
  await Deno.remove(dir, { recursive: true });
});
