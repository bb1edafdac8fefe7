/**
 * The benchmark modes of runBatch() in process (scripted instances, local environment, real bash, real
 * git and tar): the layout upstream's runners and evaluators read, their skip rules, and resuming a
 * directory written by either runner.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { type BatchOptions, runBatch } from "../../src/batch/run_batch.ts";
import { exitMessage, Interrupted } from "../../src/core/errors.ts";
import { runCommand } from "../../src/lib/process.ts";
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
    workers: 4,
    config: cfg,
    selection: {},
    redoExisting: false,
    dockerHosts: [],
    verbose: false,
    ...more,
  };
}

const deps = (dir: string, signal?: AbortSignal) => ({
  hostEnv: {},
  features: episodeFeatures,
  cwd: dir,
  write: () => {},
  live: false,
  log: () => {},
  ...(signal ? { signal } : {}),
});

async function sh(script: string): Promise<string> {
  const r = await runCommand(["bash", "-c", script], { timeoutSeconds: 30 });
  if (r.exitCode !== 0) throw new Error(`${script}: ${r.output}`);
  return r.output;
}

/** Exit statuses with their ids sorted (workers finish in any order). */
const sorted = (byStatus: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(byStatus).map(([k, ids]) => [k, [...ids].sort()]));

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/** Abort `controller` once `marker` exists and the trajectories of `ids` have ended. */
function interruptWhen(controller: AbortController, marker: string, out: string, ids: string[]): void {
  const poll = async () => {
    const ended = await Promise.all(ids.map(async (id) => {
      try {
        return (await readTrajectory(`${out}/${id}/${id}.traj.json`)).data.messages.at(-1)?.role === "exit";
      } catch {
        return false;
      }
    }));
    if (await exists(marker) && ended.every(Boolean)) {
      controller.abort(new Interrupted(exitMessage("Interrupted")));
    } else setTimeout(poll, 50);
  };
  poll();
}

/** Each instance works in its own git repository (`workdir`), as ProgramBench's /workspace is one. */
async function gitWorkdirs(dir: string, list: ScriptedInstance[]): Promise<ScriptedInstance[]> {
  return await Promise.all(list.map(async (inst) => {
    const workdir = `${dir}/work/${inst.id}`;
    await Deno.mkdir(workdir, { recursive: true });
    await sh(`cd ${workdir} && git init -q && echo doc > README.md`);
    return { ...inst, fields: { workdir, ...inst.fields } };
  }));
}

Deno.test("programbench mode: submission.tar.gz for finished instances only, identity preamble, no raw_output, no preds.json", async () => {
  const dir = await Deno.makeTempDir();
  const marker = `${dir}/int-started`;
  const list = await gitWorkdirs(dir, [
    { id: "p-ok", replies: [step("printf '#!/bin/sh\\n' > compile.sh && git config user.name"), submit("")] },
    { id: "p-limit", replies: [step("echo one > notes.txt"), step("true"), step("true"), submit("")] },
    { id: "p-int", replies: [step(`touch ${marker}; sleep 30`), submit("")] },
    { id: "p-fail", replies: [] },
    { id: "p-up", replies: [] },
  ]);
  const fx = await writeBatch(list, dir);
  await Deno.remove(`${fx.scripts}/p-fail.json`);
  // p-up was finished by upstream's runner: it has a submission (and no trajectory claudius wrote).
  await Deno.mkdir(`${fx.out}/p-up`, { recursive: true });
  await Deno.writeTextFile(`${fx.out}/p-up/submission.tar.gz`, "upstream's");
  const cfg = await config([...fx.specs, "environment.cwd={{instance.workdir}}", "agent.step_limit=2"]);
  const controller = new AbortController();
  interruptWhen(controller, marker, fx.out, ["p-ok", "p-limit", "p-fail"]);
  const s = await runBatch(
    options(fx.instances, fx.out, cfg, { mode: "programbench" }),
    deps(dir, controller.signal),
  );

  assertEquals(s.skipped, 1, "upstream's finished instance is skipped");
  assertEquals(s.byStatus, {
    Submitted: ["p-ok"],
    ConfigError: ["p-fail"],
    LimitsExceeded: ["p-limit"],
    Interrupted: ["p-int"],
  });
  assertEquals(s.unfinished.sort(), ["p-fail", "p-int"]);
  // Upstream's evaluator and skip rule: an instance is done when <out>/<id>/submission.tar.gz exists.
  const submitted = [];
  for await (const e of Deno.readDir(fx.out)) {
    if (e.isDirectory && await exists(`${fx.out}/${e.name}/submission.tar.gz`)) submitted.push(e.name);
  }
  assertEquals(submitted.sort(), ["p-limit", "p-ok", "p-up"]);
  assertEquals(s.predsPath, "");
  assert(!await exists(`${fx.out}/preds.json`), "ProgramBench's layout has no preds.json");
  assertMatch(await sh(`tar -tzf ${fx.out}/p-ok/submission.tar.gz`), /\.\/compile\.sh/);
  const { data } = await readTrajectory(`${fx.out}/p-ok/p-ok.traj.json`);
  assertEquals(data.instance_id, "p-ok");
  const tool = data.messages.find((m) => m.role === "tool")!;
  assertMatch(String(tool.content), /^<returncode>0<\/returncode>\n<output>\nmini-swe-agent\n<\/output>/);
  assert(data.messages.every((m) => !("raw_output" in (m.extra ?? {}))), "no raw_output in the trajectory");
  assertEquals(tool.extra?.returncode, 0);
  assertEquals((await sh(`git -C ${dir}/work/p-ok config user.email`)).trim(), "mini-swe-agent@proton.me");

  // A rerun does the unfinished ones only; a redone instance first loses any old submission.
  await Deno.writeTextFile(`${fx.scripts}/p-fail.json`, JSON.stringify([submit("")]));
  await Deno.writeTextFile(`${fx.scripts}/p-int.json`, JSON.stringify([submit("")]));
  const before = (await Deno.stat(`${fx.out}/p-ok/submission.tar.gz`)).mtime;
  const again = await runBatch(options(fx.instances, fx.out, cfg, { mode: "programbench" }), deps(dir));
  assertEquals([again.skipped, sorted(again.byStatus)], [3, { Submitted: ["p-fail", "p-int"] }]);
  assertEquals((await Deno.stat(`${fx.out}/p-ok/submission.tar.gz`)).mtime, before);
  assert(await exists(`${fx.out}/p-int/submission.tar.gz`));
});

Deno.test("swebench mode: done = in preds.json (upstream's rule), a failed start gets an empty patch, interrupted ones none", async () => {
  const dir = await Deno.makeTempDir();
  const marker = `${dir}/int-started`;
  const work = (id: string) => ({ workdir: `${dir}/work/${id}` });
  const fx = await writeBatch([
    { id: "s-ok", replies: [submit("PATCH")], fields: work("s-ok") },
    { id: "s-fail", replies: [submit("never")], fields: { workdir: `${dir}/a-file/work` } },
    { id: "s-int", replies: [step(`touch ${marker}; sleep 30`), submit("late")], fields: work("s-int") },
    { id: "s-up", replies: [submit("never")], fields: work("s-up") },
    { id: "s-nomodel", replies: [], fields: work("s-nomodel") },
  ], dir);
  // A model that cannot be built fails outside upstream's try block: no entry, redone on a rerun.
  await Deno.remove(`${fx.scripts}/s-nomodel.json`);
  await Deno.writeTextFile(`${dir}/a-file`, "not a directory: s-fail's working directory cannot be made");
  // s-up was done by upstream's runner: its id is in preds.json (no trajectory).
  await Deno.mkdir(fx.out, { recursive: true });
  const upstream = { model_name_or_path: "m", instance_id: "s-up", model_patch: "UP" };
  await Deno.writeTextFile(`${fx.out}/preds.json`, JSON.stringify({ "s-up": upstream }));
  const cfg = await config([...fx.specs, "environment.cwd={{instance.workdir}}", "run.create_cwd=true"]);
  const controller = new AbortController();
  interruptWhen(controller, marker, fx.out, ["s-ok", "s-fail", "s-nomodel"]);
  const s = await runBatch(
    options(fx.instances, fx.out, cfg, { mode: "swebench" }),
    deps(dir, controller.signal),
  );
  assertEquals(s.skipped, 1);
  assertEquals(sorted(s.byStatus), {
    Submitted: ["s-ok"],
    ConfigError: ["s-fail", "s-nomodel"],
    Interrupted: ["s-int"],
  });
  assertEquals(
    s.unfinished.sort(),
    ["s-int", "s-nomodel"],
    "a failed start counts as done, as upstream counts it",
  );
  const preds = JSON.parse(await Deno.readTextFile(`${fx.out}/preds.json`));
  assertEquals(Object.keys(preds).sort(), ["s-fail", "s-ok", "s-up"], "upstream's skip rule: these are done");
  assertEquals([preds["s-ok"].model_patch, preds["s-fail"].model_patch, preds["s-up"]], [
    "PATCH",
    "",
    upstream,
  ]);

  await Deno.writeTextFile(`${fx.scripts}/s-int.json`, JSON.stringify([submit("late")]));
  await Deno.writeTextFile(`${fx.scripts}/s-nomodel.json`, JSON.stringify([submit("model")]));
  const again = await runBatch(
    options(fx.instances, fx.out, cfg, { mode: "swebench", workers: 1 }),
    deps(dir),
  );
  assertEquals([again.skipped, again.byStatus], [3, { Submitted: ["s-int", "s-nomodel"] }]);
  // --instance reruns one instance whatever it left: by id, or by index into the sorted ids.
  const one = await runBatch(
    options(fx.instances, fx.out, cfg, { mode: "swebench", selection: { instance: "3" } }),
    deps(dir),
  );
  assertEquals(one.byStatus, { Submitted: ["s-ok"] });
});

Deno.test("swebench mode reads an exported parquet dataset", async () => {
  const dir = await Deno.makeTempDir();
  const fx = await writeBatch([
    { id: "acme__widget-1", replies: [submit("one")] },
    { id: "acme__widget-2", replies: [submit("two")] },
  ], dir);
  const dataset = new URL("../testdata/batch/swebench.parquet", import.meta.url).pathname;
  const cfg = await config(fx.specs);
  const s = await runBatch(options(dataset, fx.out, cfg, { mode: "swebench" }), deps(dir));
  assertEquals(sorted(s.byStatus), { Submitted: ["acme__widget-1", "acme__widget-2"] });
  const { data } = await readTrajectory(`${fx.out}/acme__widget-1/acme__widget-1.traj.json`);
  assertMatch(String(data.messages[1]!.content), /Widgets crash on naïve input/);
});
