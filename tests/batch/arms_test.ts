/**
 * Ablation batches (`claudius batch --arm NAME=SPEC`): runArms() in process and the CLI as a
 * subprocess, scripted instances in the local environment, real bash, real files.
 */
import { load } from "js-yaml";
import { assert, assertEquals, assertMatch, assertThrows } from "../_support/assert.ts";
import { parseArms, parseBatchArgs } from "../../src/cli/batch_flags.ts";
import { type BatchDeps, runArms } from "../../src/batch/run_batch.ts";
import { UsageError } from "../../src/cli/run_flags.ts";
import { ConfigError, exitMessage, Interrupted } from "../../src/core/errors.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { config, step, submit, writeBatch } from "../_support/batch.ts";
import { episodeFeatures } from "../../src/cli/features.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

function deps(lines: string[] = [], signal?: AbortSignal): BatchDeps {
  return {
    hostEnv: Deno.env.toObject(),
    features: episodeFeatures,
    cwd: Deno.cwd(),
    write: (t) => lines.push(t),
    live: false,
    log: (l) => lines.push(l),
    ...(signal ? { signal } : {}),
  };
}

/** Instances whose first command appends `$ARM:<id>` to `<dir>/order.log` (ARM set per arm). */
async function orderedBatch(ids: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "claudius-arms-" });
  const log = `${dir}/order.log`;
  const fx = await writeBatch(
    ids.map((id) => ({ id, replies: [step(`echo "$ARM:${id}" >> ${log}`), submit(`patch ${id}`)] })),
    dir,
  );
  const order = async () => (await Deno.readTextFile(log).catch(() => "")).trim().split("\n").filter(Boolean);
  return { dir, fx, log, order };
}

const arm = async (name: string, specs: string[], more: string[] = []) => ({
  name,
  config: await config([...specs, `environment.env.ARM=${name}`, ...more]),
});

Deno.test("parseArms() groups specs by arm in the order named; bad names are usage errors", () => {
  assertEquals(parseArms(["control=", "rich=daemon", "rich=agent.step_limit=[1,2]", "x=a.yaml"]), [
    { name: "control", specs: [] },
    { name: "rich", specs: ["daemon", "agent.step_limit=[1,2]"] },
    { name: "x", specs: ["a.yaml"] },
  ]);
  const flags = parseBatchArgs(["i.jsonl", "--arm", "a=", "--arm", "b=c.yaml"]);
  assertEquals(flags !== "help" && flags.arms, [{ name: "a", specs: [] }, { name: "b", specs: ["c.yaml"] }]);
  assertThrows(() => parseArms(["control"]), UsageError, "--arm needs NAME=SPEC");
  assertThrows(() => parseArms(["../up=x"]), UsageError, "got '../up=x'");
  assertThrows(() => parseArms(["=x"]), UsageError, "--arm needs NAME=SPEC");
});

Deno.test("runArms() runs each instance under every arm, instance by instance, into sibling batch directories", async () => {
  const ids = ["i1", "i2", "i3"];
  const { fx, order } = await orderedBatch(ids);
  const arms = [await arm("control", fx.specs), await arm("capped", fx.specs, ["agent.step_limit=1"])];
  const common = {
    instancesPath: fx.instances,
    outDir: fx.out,
    workers: 1,
    selection: {},
    redoExisting: false,
    dockerHosts: [],
    verbose: false,
  };
  const lines: string[] = [];
  const done = await runArms({ ...common, arms }, deps(lines));
  assertEquals(await order(), [
    "control:i1",
    "capped:i1",
    "control:i2",
    "capped:i2",
    "control:i3",
    "capped:i3",
  ]);
  assertEquals(done.arms.map((a) => [a.name, a.outDir]), [["control", `${fx.out}/control`], [
    "capped",
    `${fx.out}/capped`,
  ]]);
  const [control, capped] = done.arms.map((a) => a.summary);
  assertEquals(control!.byStatus, { Submitted: ids });
  assertEquals(capped!.byStatus, { LimitsExceeded: ids });
  // Each arm's directory is a batch output directory of its own.
  for (
    const [name, status, patch] of [["control", "Submitted", "patch i1"], ["capped", "LimitsExceeded", ""]]
  ) {
    const { data } = await readTrajectory(`${fx.out}/${name}/i1/i1.traj.json`);
    assertEquals([data.instance_id, data.info.exit_status], ["i1", status]);
    const preds = JSON.parse(await Deno.readTextFile(`${fx.out}/${name}/preds.json`));
    assertEquals(Object.keys(preds), ids);
    assertEquals(preds.i1.model_patch, patch);
    const files = [...Deno.readDirSync(`${fx.out}/${name}`)].map((e) => e.name);
    const summary = files.find((f) => f.startsWith("exit_statuses_"))!;
    assertEquals(
      load(await Deno.readTextFile(`${fx.out}/${name}/${summary}`)),
      { instances_by_exit_status: { [status!]: ids } },
    );
    // The local environment of each arm works under its own directory.
    assert(files.includes("i1"));
    assertEquals((await Deno.stat(`${fx.out}/${name}/i1/workspace`)).isDirectory, true);
  }
  assertMatch(lines.join(""), /arm control: 3 of 3 instances selected, 0 already finished, 3 to run/);

  // A rerun skips per arm: only the one trajectory removed is redone.
  await Deno.remove(`${fx.out}/capped/i2/i2.traj.json`);
  const again = await runArms({ ...common, arms }, deps());
  assertEquals(again.arms.map((a) => [a.summary.skipped, a.summary.byStatus]), [[3, {}], [2, {
    LimitsExceeded: ["i2"],
  }]]);
  assertEquals((await order()).slice(6), ["capped:i2"]);
});

Deno.test("runArms() on a signal starts nothing more in any arm; a rerun finishes what is left", async () => {
  const ids = ["i1", "i2"];
  const { fx, order } = await orderedBatch(ids);
  const arms = [await arm("a", fx.specs), await arm("b", fx.specs)];
  const common = {
    instancesPath: fx.instances,
    outDir: fx.out,
    workers: 1,
    selection: {},
    redoExisting: false,
    dockerHosts: [],
    verbose: false,
  };
  const stop = new AbortController();
  const lines: string[] = [];
  const d = deps(lines, stop.signal);
  // Stop as the second episode (i1 under arm b) starts.
  d.write = (t) => {
    lines.push(t);
    if (t.includes("start b/i1")) stop.abort(new Interrupted(exitMessage("Interrupted")));
  };
  const first = await runArms({ ...common, arms }, d);
  assertEquals(first.arms.map((a) => a.summary.interrupted), [true, true]);
  assertEquals(
    first.arms.map(({ summary: s }) => [s.byStatus, s.unfinished, s.notStarted]),
    [[{ Submitted: ["i1"] }, [], ["i2"]], [{ Interrupted: ["i1"] }, ["i1"], ["i2"]]],
  );
  const again = await runArms({ ...common, arms }, deps());
  assertEquals(again.arms.map(({ summary: s }) => [s.skipped, s.byStatus]), [
    [1, { Submitted: ["i2"] }],
    [0, { Submitted: ["i1", "i2"] }],
  ]);
  assertEquals(await order(), ["a:i1", "b:i1", "a:i2", "b:i2"]);
});

Deno.test("runArms() refuses two local arms sharing a configured working directory", async () => {
  const { fx } = await orderedBatch(["i1"]);
  const shared = `environment.cwd=${fx.dir}/ws/{{ instance_id }}`;
  const arms = [await arm("a", [...fx.specs, shared]), await arm("b", [...fx.specs, shared])];
  const error = await runArms({
    instancesPath: fx.instances,
    outDir: fx.out,
    workers: 1,
    selection: {},
    redoExisting: false,
    dockerHosts: [],
    verbose: false,
    arms,
  }, deps()).then(() => null, (e) => e);
  assert(error instanceof ConfigError, String(error));
  assertMatch(error.message, new RegExp(`Arms 'a' and 'b' both work in environment.cwd '${fx.dir}/ws/i1'`));
});

Deno.test("claudius batch --arm: a scripted two-arm ablation end to end", async () => {
  const ids = ["i1", "i2"];
  const { dir, fx, order } = await orderedBatch(ids);
  const run = async (...extra: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "batch",
        fx.instances,
        "-o",
        fx.out,
        ...fx.specs.flatMap((s) => ["-c", s]),
        "--arm",
        "control=environment.env.ARM=control",
        "--arm",
        "capped=environment.env.ARM=capped",
        "--arm",
        "capped=agent.step_limit=1",
        ...extra,
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const d = new TextDecoder();
    return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
  };
  const r = await run("-w", "2");
  assertEquals(r.code, 0, r.stderr);
  assertMatch(
    r.stdout,
    /^arm control:\n {2}claudius batch: 2 instance\(s\) run in [^\n]*\n {4}Submitted: 2\n/m,
  );
  assertMatch(
    r.stdout,
    /^arm capped:\n[^]* {4}LimitsExceeded: 2\n {2}predictions: .*\/out\/capped\/preds\.json$/m,
  );
  assertEquals((await order()).sort(), ["capped:i1", "capped:i2", "control:i1", "control:i2"]);
  const again = await run();
  assertEquals(again.code, 0, again.stderr);
  assertMatch(again.stdout, /arm capped:\n {2}claudius batch: 0 instance\(s\) run .*, 2 skipped as finished/);
  const bad = await run("--arm", "broken=agent.nope=1", "--strict-config");
  assertEquals(bad.code, 2);
  assertMatch(bad.stderr, /^error: arm broken: Unknown config key 'agent\.nope'/);
});

Deno.test("claudius batch --arm control= --arm daemon=daemon, then claudius compare reads the two arms", async () => {
  const ids = ["i1", "i2", "i3"];
  const dir = await Deno.makeTempDir({ prefix: "claudius-arms-" });
  // The daemon arm's verification gate refuses the first submission; the control takes it.
  const fx = await writeBatch(
    ids.map((id) => ({
      id,
      replies: [step(`echo ${id} > f.txt`), submit(`first ${id}`), submit(`second ${id}`)],
    })),
    dir,
  );
  const cli = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, ...args],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const d = new TextDecoder();
    return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
  };
  const specs = fx.specs.flatMap((s) => ["-c", s]);
  const r = await cli(
    "batch",
    fx.instances,
    "-o",
    fx.out,
    "-w",
    "2",
    ...specs,
    "--arm",
    "control=",
    "--arm",
    "daemon=daemon",
  );
  assertEquals(r.code, 0, r.stderr);
  for (const [arm, patch] of [["control", "first"], ["daemon", "second"]]) {
    const preds = JSON.parse(await Deno.readTextFile(`${fx.out}/${arm}/preds.json`));
    assertEquals(ids.map((id) => preds[id].model_patch), ids.map((id) => `${patch} ${id}`));
  }
  const { data } = await readTrajectory(`${fx.out}/daemon/i1/i1.traj.json`);
  assert(
    "mechanisms" in (data.info.config as Record<string, unknown>),
    "the daemon arm ran with its switches",
  );
  const { data: control } = await readTrajectory(`${fx.out}/control/i1/i1.traj.json`);
  assert(!("mechanisms" in (control.info.config as Record<string, unknown>)), "the control ran without");
  const compared = await cli("compare", `${fx.out}/control`, `${fx.out}/daemon`, "--json");
  assertEquals(compared.code, 0, compared.stderr);
  const report = JSON.parse(compared.stdout);
  assertEquals(report.common, 3);
  assertEquals(report.duplicates, []);
});
