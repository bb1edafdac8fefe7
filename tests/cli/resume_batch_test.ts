/**
 * `claudius resume` and `claudius batch` compose: a resumed batch instance counts as done for the
 * batch (its prediction recorded, nothing paid again), a resume running while the batch reruns keeps
 * its instance (the batch leaves it and its working directory alone), and two resumes of one
 * trajectory never both run. Subprocesses, the scripted model, real bash.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { step, submit, writeBatch } from "../_support/batch.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

interface Cli {
  child: Deno.ChildProcess;
  done: Promise<{ code: number; stderr: string }>;
}

function cli(args: string[], cwd: string, env: Record<string, string> = {}): Cli {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd,
    env: { NO_COLOR: "1", CLAUDIUS_LEASE_SECONDS: "2", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const done = child.output().then((o) => ({
    code: o.code,
    stderr: new TextDecoder().decode(o.stdout) + new TextDecoder().decode(o.stderr),
  }));
  return { child, done };
}

async function waitFor(what: string, cond: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`Cannot wait any longer for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/**
 * A batch of one instance whose first command blocks while `<dir>/block` exists: the batch is
 * stopped there (SIGINT: the instance is unfinished), leaving a trajectory to resume.
 */
async function interruptedBatch(signal: Deno.Signal = "SIGINT") {
  const dir = await Deno.makeTempDir({ prefix: "claudius-resume-batch-" });
  const block = `${dir}/block`;
  const started = `${dir}/started`;
  const fx = await writeBatch([{
    id: "i1",
    replies: [
      step(
        `echo x >> ${dir}/runs.log; echo made > made.txt; touch ${started}; ` +
          `while [ -e ${block} ]; do sleep 0.05; done`,
      ),
      submit("the-patch"),
    ],
  }], dir);
  await Deno.writeTextFile(block, "");
  const batchArgs = ["batch", fx.instances, "-o", fx.out, ...fx.specs.flatMap((s) => ["-c", s])];
  const first = cli(batchArgs, dir);
  await waitFor("the instance's command", () => exists(started));
  first.child.kill(signal);
  const { code } = await first.done;
  assertEquals(code, signal === "SIGINT" ? 130 : 137);
  await Deno.remove(started);
  return { dir, fx, block, started, batchArgs, traj: `${fx.out}/i1/i1.traj.json` };
}

Deno.test("a resumed batch instance is done for the batch: the rerun records its prediction and runs nothing", async () => {
  const b = await interruptedBatch();
  await Deno.remove(b.block);
  const resumed = await cli(["resume", b.traj], b.dir).done;
  assertEquals(resumed.code, 0, resumed.stderr);
  assert(await exists(`${b.fx.out}/i1/i1.resume1.traj.json`));
  const again = await cli(b.batchArgs, b.dir).done;
  assertEquals(again.code, 0, again.stderr);
  assertMatch(again.stderr, /1 already finished, 0 to run/);
  const preds = JSON.parse(await Deno.readTextFile(`${b.fx.out}/preds.json`));
  assertEquals(preds.i1.model_patch, "the-patch");
});

Deno.test("a batch instance killed before its first prediction, then resumed: its prediction is in preds.json at once", async () => {
  const b = await interruptedBatch("SIGKILL");
  await Deno.remove(b.block);
  // Before: no preds.json yet, so the resume recorded nothing until a batch rerun.
  const resumed = await cli(["resume", b.traj], b.dir).done;
  assertEquals(resumed.code, 0, resumed.stderr);
  const preds = JSON.parse(await Deno.readTextFile(`${b.fx.out}/preds.json`));
  assertEquals(preds.i1?.model_patch, "the-patch");
});

Deno.test("a resume running while the batch reruns keeps its instance: the batch leaves it and its workspace alone", async () => {
  const b = await interruptedBatch();
  const resume = cli(["resume", b.traj], b.dir);
  await waitFor("the resumed command", () => exists(b.started));
  const workspace = `${b.fx.out}/i1/workspace`;
  const batch = cli(b.batchArgs, b.dir);
  // The batch sees the resume's claim and waits for it; the resume's working directory stays as it is.
  await new Promise((r) => setTimeout(r, 1500));
  assert(await exists(`${workspace}/made.txt`), "the batch emptied the resume's working directory");
  await Deno.remove(b.block);
  assertEquals((await resume.done).code, 0);
  const rerun = await batch.done;
  assertEquals(rerun.code, 0, rerun.stderr);
  const preds = JSON.parse(await Deno.readTextFile(`${b.fx.out}/preds.json`));
  assertEquals(preds.i1?.model_patch, "the-patch", rerun.stderr);
  assert(!(await exists(`${b.fx.out}/i1/i1.resume2.traj.json`)));
  // The first run's command, then the resume's run of its cut-short step: the batch ran nothing.
  assertEquals((await Deno.readTextFile(`${b.dir}/runs.log`)).trim().split("\n").length, 2);
});

Deno.test("two claudius resume of one trajectory: the second is refused while the first runs", async () => {
  const b = await interruptedBatch();
  const first = cli(["resume", b.traj, "-o", `${b.dir}/first.traj.json`], b.dir);
  await waitFor("the first resume's command", () => exists(b.started));
  const ran = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error("the second resume ran beside the first")), 20_000)
  );
  const second = await Promise.race([
    cli(["resume", b.traj, "-o", `${b.dir}/second.traj.json`], b.dir).done,
    ran,
  ]);
  assertEquals(second.code, 2, second.stderr);
  assertMatch(second.stderr, /a running claudius is still writing it or resuming it/);
  assert(!(await exists(`${b.dir}/second.traj.json`)));
  await Deno.remove(b.block);
  assertEquals((await first.done).code, 0);
});
