/**
 * runBatch() in process: scripted instances in the local environment, real bash, real files.
 */
import { load } from "js-yaml";
import { assert, assertEquals, assertMatch, assertRejects } from "../_support/assert.ts";
import { ConfigError } from "../../src/core/errors.ts";
import { type BatchDeps, type BatchOptions, runBatch, workerSlots } from "../../src/batch/run_batch.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { config, type ScriptedInstance, step, submit, writeBatch } from "../_support/batch.ts";
import { episodeFeatures } from "../../src/cli/features.ts";

function options(
  instances: string,
  out: string,
  cfg: BatchOptions["config"],
  more: Partial<BatchOptions> = {},
) {
  return {
    instancesPath: instances,
    outDir: out,
    workers: 1,
    config: cfg,
    selection: {},
    redoExisting: false,
    dockerHosts: [],
    verbose: false,
    ...more,
  };
}

function deps(lines: string[] = []): BatchDeps {
  return {
    hostEnv: Deno.env.toObject(),
    features: episodeFeatures,
    cwd: Deno.cwd(),
    write: (t) => lines.push(t),
    live: false,
    log: (l) => lines.push(l),
  };
}

/** Instances that count how many of them run at once (into `<dir>/peak/<id>`). */
async function concurrentBatch(n: number) {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/running`);
  await Deno.mkdir(`${dir}/peak`);
  const list: ScriptedInstance[] = Array.from({ length: n }, (_, k) => {
    const id = `inst-${k}`;
    return {
      id,
      replies: [
        step(
          `touch ${dir}/running/${id}; sleep 0.3; ls ${dir}/running | wc -l > ${dir}/peak/${id}; rm ${dir}/running/${id}`,
        ),
        submit(`patch of ${id}`),
      ],
    };
  });
  return { dir, fx: await writeBatch(list, dir) };
}

async function peak(dir: string): Promise<number> {
  let max = 0;
  for await (const e of Deno.readDir(`${dir}/peak`)) {
    max = Math.max(max, Number(await Deno.readTextFile(`${dir}/peak/${e.name}`)));
  }
  return max;
}

for (const workers of [1, 4]) {
  Deno.test(`runBatch() runs every instance with ${workers} worker(s): trajectories, preds.json, exit statuses`, async () => {
    const { dir, fx } = await concurrentBatch(8);
    const lines: string[] = [];
    const s = await runBatch(options(fx.instances, fx.out, await config(fx.specs), { workers }), deps(lines));
    assertEquals(s.byStatus.Submitted?.length, 8, lines.join(""));
    assertEquals(s.unfinished, []);
    assertEquals(s.interrupted, false);
    const p = await peak(dir);
    if (workers === 1) assertEquals(p, 1);
    else assert(p >= 2 && p <= 4, `peak concurrency ${p}`);
    const preds = JSON.parse(await Deno.readTextFile(`${fx.out}/preds.json`));
    assertEquals(Object.keys(preds).sort(), Array.from({ length: 8 }, (_, k) => `inst-${k}`).sort());
    assertEquals(preds["inst-3"], {
      model_name_or_path: "scripted",
      instance_id: "inst-3",
      model_patch: "patch of inst-3",
    });
    const { data } = await readTrajectory(`${fx.out}/inst-3/inst-3.traj.json`);
    assertEquals(data.instance_id, "inst-3");
    assertEquals(Object.keys(data).slice(0, 2), ["trajectory_format", "instance_id"]);
    assertEquals(data.info.exit_status, "Submitted");
    const yaml = await Deno.readTextFile(s.statusesPath!);
    assertMatch(s.statusesPath!, /\/exit_statuses_\d+\.yaml$/);
    assertMatch(yaml, /^instances_by_exit_status:\n {4}Submitted:\n {4}- inst-/);
    assertEquals(lines.filter((l) => / start inst-/.test(l)).length, 8);
  });
}

Deno.test("runBatch() records failures, keeps going, and a rerun redoes only the unfinished", async () => {
  const fx = await writeBatch([
    { id: "ok", replies: [submit("P")] },
    { id: "limits", replies: [step("true"), step("true"), step("true"), step("true"), submit("never")] },
    { id: "format", replies: [{ content: "no action" }, { content: "still none" }, { content: "nope" }] },
    { id: "noscript", replies: [] },
  ]);
  await Deno.remove(`${fx.scripts}/noscript.json`);
  const cfg = await config([...fx.specs, "agent.step_limit=3"]);
  const s = await runBatch(options(fx.instances, fx.out, cfg, { workers: 2 }), deps());
  assertEquals(Object.keys(s.byStatus).sort(), [
    "ConfigError",
    "LimitsExceeded",
    "RepeatedFormatError",
    "Submitted",
  ]);
  assertEquals(s.unfinished, ["noscript"]);
  const preds = JSON.parse(await Deno.readTextFile(s.predsPath));
  assertEquals(Object.keys(preds).sort(), ["format", "limits", "ok"]);
  assertEquals([preds.ok.model_patch, preds.limits.model_patch, preds.format.model_patch], ["P", "", ""]);
  const summary = load(await Deno.readTextFile(s.statusesPath!)) as {
    instances_by_exit_status: Record<string, string[]>;
  };
  assertEquals(summary.instances_by_exit_status.ConfigError, ["noscript"]);
  assertEquals(summary.instances_by_exit_status.Submitted, ["ok"]);
  const failed = await readTrajectory(`${fx.out}/noscript/noscript.traj.json`);
  assertEquals(failed.data.messages.length, 1);
  assertMatch(String(failed.data.messages[0]!.content), /noscript\.json/);

  await Deno.writeTextFile(`${fx.scripts}/noscript.json`, JSON.stringify([submit("late")]));
  const okBefore = (await Deno.stat(`${fx.out}/ok/ok.traj.json`)).mtime;
  const again = await runBatch(options(fx.instances, fx.out, cfg), deps());
  assertEquals(again.skipped, 3);
  assertEquals(again.byStatus, { Submitted: ["noscript"] });
  assertEquals((await Deno.stat(`${fx.out}/ok/ok.traj.json`)).mtime, okBefore);
  assertEquals(Object.keys(JSON.parse(await Deno.readTextFile(again.predsPath))).sort(), [
    "format",
    "limits",
    "noscript",
    "ok",
  ]);

  const redo = await runBatch(
    options(fx.instances, fx.out, cfg, { redoExisting: true, selection: { filter: "ok" } }),
    deps(),
  );
  assertEquals(redo.byStatus, { Submitted: ["ok"] });
});

Deno.test("runBatch() leaves an instance whose startup command failed unfinished, out of preds.json, and retries it", async () => {
  const fx = await writeBatch([
    { id: "good", replies: [submit("G")], fields: { ready: "yes" } },
    { id: "bad", replies: [submit("B")], fields: { ready: "no" } },
  ]);
  const startup = "run.env_startup_command=echo checking {{ instance_id }}; test {{ instance.ready }} = yes";
  const s = await runBatch(options(fx.instances, fx.out, await config([...fx.specs, startup])), deps());
  assertEquals(s.byStatus, { Submitted: ["good"], RuntimeError: ["bad"] });
  assertEquals(s.unfinished, ["bad"]);
  assertEquals(Object.keys(JSON.parse(await Deno.readTextFile(s.predsPath))), ["good"]);
  const { data } = await readTrajectory(`${fx.out}/bad/bad.traj.json`);
  assertEquals(data.info.exit_status, "RuntimeError");
  assertEquals(
    data.messages.at(-1)?.content,
    "Error executing startup command: {'output': 'checking bad\\n', 'returncode': 1, 'exception_info': ''}",
  );

  const again = await runBatch(options(fx.instances, fx.out, await config(fx.specs)), deps());
  assertEquals([again.skipped, again.byStatus], [1, { Submitted: ["bad"] }]);
  assertEquals(Object.keys(JSON.parse(await Deno.readTextFile(again.predsPath))).sort(), ["bad", "good"]);
});

Deno.test("runBatch() keeps the API key out of its progress lines: a failing startup command printed it", async () => {
  const key = "sk-batch-secret-0123456789abcdef";
  const fx = await writeBatch([{ id: "leaky", replies: [submit("L")] }]);
  const startup =
    'run.env_startup_command=echo "$OPENAI_API_KEY" | tr a-z A-Z; env | grep OPENAI_API_KEY; exit 3';
  const lines: string[] = [];
  const s = await runBatch(options(fx.instances, fx.out, await config([...fx.specs, startup])), {
    ...deps(lines),
    hostEnv: { ...Deno.env.toObject(), OPENAI_API_KEY: key },
  });
  assertEquals(s.byStatus, { RuntimeError: ["leaky"] });
  const shown = lines.join("");
  assertMatch(shown, /leaky.*RuntimeError.*\[REDACTED\]/);
  assert(!shown.includes(key) && !shown.includes(key.toUpperCase()), shown);
});

Deno.test("runBatch() counts an environment that never started as unfinished (engine unreachable)", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("x")] }]);
  const cfg = await config([
    ...fx.specs,
    "environment.environment_class=docker",
    "environment.image=claudius-test-tiny:latest",
  ]);
  const s = await runBatch(
    options(fx.instances, fx.out, cfg, { dockerHosts: [{ host: "unix:///nonexistent/claudius.sock" }] }),
    deps(),
  );
  assertEquals(s.unfinished, ["a"]);
  assertEquals(Object.keys(JSON.parse(await Deno.readTextFile(s.predsPath))), []);
  const { data } = await readTrajectory(`${fx.out}/a/a.traj.json`);
  assertEquals(data.messages.length, 1);
  assertMatch(String(data.messages[0]!.content), /Cannot start container/);
});

Deno.test("runBatch() refuses an output directory that is a file, naming -o, before running anything", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("x")] }]);
  const cfg = await config(fx.specs);
  const file = `${fx.out}.txt`;
  await Deno.writeTextFile(file, "keep me");
  const e = await assertRejects(() => runBatch(options(fx.instances, file, cfg), deps()), ConfigError);
  assertMatch(e.message, /^Cannot use -o '.*\.txt' as the output directory: it is a file/);
  assertEquals(await Deno.readTextFile(file), "keep me");
});

Deno.test("runBatch() refuses an absolute run.atif_path, which every instance would overwrite", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("x")] }, { id: "b", replies: [submit("y")] }]);
  const cfg = await config([...fx.specs, `run.atif_path=${fx.out}.atif.json`]);
  const e = await assertRejects(() => runBatch(options(fx.instances, fx.out, cfg), deps()), ConfigError);
  assertMatch(e.message, /^Cannot use run\.atif_path '.*' in a batch: every instance would write it/);
  assertEquals(await Deno.stat(fx.out).then(() => true, () => false), false, "nothing was run");
});

Deno.test("runBatch() stops starting instances and interrupts running ones when its signal aborts", async () => {
  const fx = await writeBatch(
    Array.from({ length: 6 }, (_, k) => ({ id: `s${k}`, replies: [step("sleep 30"), submit("x")] })),
  );
  const controller = new AbortController();
  const { Interrupted, exitMessage } = await import("../../src/core/errors.ts");
  setTimeout(() => controller.abort(new Interrupted(exitMessage("Interrupted"))), 700);
  const t0 = Date.now();
  const s = await runBatch(options(fx.instances, fx.out, await config(fx.specs), { workers: 2 }), {
    ...deps(),
    signal: controller.signal,
  });
  assert(Date.now() - t0 < 10_000, "interrupted episodes end promptly");
  assertEquals(s.interrupted, true);
  assertEquals(s.byStatus.Interrupted?.length, 2);
  assertEquals(s.notStarted.length, 4);
  const { data } = await readTrajectory(
    `${fx.out}/${s.byStatus.Interrupted![0]}/${s.byStatus.Interrupted![0]}.traj.json`,
  );
  assertEquals(data.info.exit_status, "Interrupted");
});

Deno.test("workerSlots() splits -w round robin over hosts, or uses each host's capacity", () => {
  assertEquals(workerSlots(3, []), [undefined, undefined, undefined]);
  assertEquals(workerSlots(5, [{ host: "a" }, { host: "b" }]), ["a", "b", "a", "b", "a"]);
  assertEquals(workerSlots(1, [{ host: "a", capacity: 1 }, { host: "b", capacity: 3 }]), [
    "a",
    "b",
    "b",
    "b",
  ]);
  assertEquals(workerSlots(2, [{ host: "a", capacity: 2 }, { host: "b" }]), ["a", "b", "a", "b"]);
});

Deno.test("runBatch() runs again an instance the provider failed after the retries (APIConnectionError), as an unfinished one", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("A")] }, { id: "b", replies: [submit("B")] }]);
  const cfg = await config(fx.specs);
  await runBatch(options(fx.instances, fx.out, cfg), deps());
  // As a run whose model calls failed to connect after the retries leaves it.
  const path = `${fx.out}/b/b.traj.json`;
  const traj = JSON.parse(await Deno.readTextFile(path));
  const exit = traj.messages.at(-1);
  exit.extra.exit_status = traj.info.exit_status = "APIConnectionError";
  exit.content = "Cannot reach the model";
  await Deno.writeTextFile(path, JSON.stringify(traj));
  const again = await runBatch(options(fx.instances, fx.out, cfg), deps());
  assertEquals([again.skipped, again.byStatus], [1, { Submitted: ["b"] }]);
});
