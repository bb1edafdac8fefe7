/**
 * `claudius batch` as a subprocess: resume after SIGKILL, shards, two docker engines, SIGINT.
 * The docker tests need an engine (ignored without one unless CI is set); the two-engine test also
 * needs the second engine of `.ci/docker_setup.sh` on $DOCKER2_HOST (default
 * unix:///var/run/docker2.sock).
 */
import { assert, assertEquals, assertMatch, assertThrows } from "../_support/assert.ts";
import { parseBatchArgs, parseDockerHost } from "../../src/cli/batch_flags.ts";
import { UsageError } from "../../src/cli/run_flags.ts";
import { runCommand } from "../../src/lib/process.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { step, submit, writeBatch } from "../_support/batch.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const TINY = "claudius-test-tiny:latest";
const HOST1 = Deno.env.get("DOCKER_HOST") || "unix:///var/run/docker.sock";
const HOST2 = Deno.env.get("DOCKER2_HOST") || "unix:///var/run/docker2.sock";
const inCI = Boolean(Deno.env.get("CI"));

async function sh(script: string, dockerHost?: string): Promise<{ code: number | null; out: string }> {
  const env = dockerHost ? { env: { ...Deno.env.toObject(), DOCKER_HOST: dockerHost } } : {};
  const r = await runCommand(["bash", "-c", script], { timeoutSeconds: 60, ...env });
  return { code: r.exitCode, out: r.output };
}

const engine = (await sh("docker info >/dev/null 2>&1", HOST1).catch(() => ({ code: 1 }))).code === 0;
const engine2 = engine && (await sh("docker info >/dev/null 2>&1", HOST2)).code === 0;
if (!engine2) {
  console.error(
    `cli_test.ts: no engine on ${engine ? HOST2 : HOST1}: docker batch tests ignored (set CI to fail)`,
  );
}

function spawn(args: string[], cwd: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, "batch", ...args],
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
  return { code: out.code, signal: out.signal, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

/** Ids whose trajectory ends with an exit message. */
async function ended(out: string, ids: string[]): Promise<Set<string>> {
  const done = new Set<string>();
  for (const id of ids) {
    try {
      const { data } = await readTrajectory(`${out}/${id}/${id}.traj.json`);
      if (data.messages.at(-1)?.role === "exit") done.add(id);
    } catch { /* not yet written */ }
  }
  return done;
}

async function containers(pid: number, host: string): Promise<string[]> {
  const r = await sh(`docker ps -aq --filter label=claudius.pid=${pid}`, host);
  return r.out.split("\n").filter((l) => l.trim() !== "");
}

async function until(what: string, cond: () => Promise<boolean>, seconds = 60): Promise<void> {
  const end = Date.now() + seconds * 1000;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`Cannot wait any longer for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("parseBatchArgs() reads the batch flags and rejects bad ones", () => {
  const f = parseBatchArgs([
    "x.jsonl",
    "-w",
    "8",
    "--shuffle",
    "--shard",
    "2/4",
    "--docker-host",
    "ssh://u@h=3",
    "--docker-host",
    "unix:///s",
  ]);
  assert(f !== "help");
  assertEquals([f.instances, f.workers, f.shuffleSeed, f.shard, f.output, f.mode], [
    "x.jsonl",
    8,
    42,
    {
      index: 2,
      count: 4,
    },
    undefined,
    "plain",
  ]);
  const pb = parseBatchArgs(["tasks", "--mode", "programbench", "--instance", "3", "-o", "out"]);
  assert(pb !== "help");
  assertEquals([pb.mode, pb.instance, pb.output], ["programbench", "3", "out"]);
  assertThrows(
    () => parseBatchArgs(["a", "--mode", "swe"]),
    UsageError,
    "--mode must be one of plain, programbench, swebench",
  );
  assertEquals(f.dockerHosts, [{ host: "ssh://u@h", capacity: 3 }, { host: "unix:///s" }]);
  assertEquals(parseBatchArgs(["-h"]), "help");
  assertThrows(() => parseBatchArgs([]), UsageError, "INSTANCES");
  assertThrows(() => parseBatchArgs(["a", "b"]), UsageError, "unexpected argument 'b'");
  assertThrows(() => parseBatchArgs(["a", "-w", "0"]), UsageError, "--workers");
  assertThrows(() => parseBatchArgs(["a", "--seed", "3"]), UsageError, "--seed needs --shuffle");
  assertThrows(() => parseBatchArgs(["a", "--slice", "x"]), UsageError, "--slice");
  assertThrows(() => parseBatchArgs(["a", "--filter", "("]), UsageError, "--filter");
  assertThrows(() => parseDockerHost("h=0"), UsageError, "slots");
  assertThrows(() => parseDockerHost("unix:///s=abc"), UsageError, "got 'abc'");
  assertEquals(parseDockerHost("tcp://10.0.0.2:2376"), { host: "tcp://10.0.0.2:2376" });
  // -w 1e9 spent 38 s and 1.4 GB making worker slots, then failed ("Invalid array length").
  assertThrows(() => parseBatchArgs(["a", "-w", "1e9"]), UsageError, "from 1 to 1024, got '1e9'");
  assertThrows(() => parseDockerHost("h=100000"), UsageError, "from 1 to 1024, got 100000");
  const most = parseBatchArgs(["a", "-w", "1024", "--docker-host", "h=1024"]);
  assert(most !== "help");
  assertEquals([most.workers, most.dockerHosts], [1024, [{ host: "h", capacity: 1024 }]]);
});

Deno.test("claudius batch resumes after SIGKILL: nothing lost, finished ones not redone", async () => {
  const ids = Array.from({ length: 12 }, (_, k) => `task-${String(k).padStart(2, "0")}`);
  const dir = await Deno.makeTempDir();
  const log = `${dir}/runs.log`;
  const fx = await writeBatch(
    ids.map((id) => ({ id, replies: [step(`echo ${id} >> ${log}; sleep 0.4`), submit(id)] })),
    dir,
  );
  const args = [fx.instances, "-o", fx.out, "-w", "3", ...fx.specs.flatMap((s) => ["-c", s])];
  const first = spawn(args, dir);
  const logged = async () => new Set((await Deno.readTextFile(log).catch(() => "")).trim().split("\n"));
  await until("3 finished instances and more in flight", async () => {
    const done = await ended(fx.out, ids);
    return done.size >= 3 && (await logged()).size > done.size;
  });
  first.kill("SIGKILL");
  await finish(first);
  const before = await ended(fx.out, ids);
  const started = new Set((await Deno.readTextFile(log)).trim().split("\n"));
  assert(started.size > before.size, "some instance was in flight at the kill");

  const second = await finish(spawn(args, dir));
  assertEquals(second.code, 0, second.stderr);
  assertMatch(second.stdout, new RegExp(`${before.size} skipped as finished`));
  const runs = (await Deno.readTextFile(log)).trim().split("\n");
  for (const id of ids) {
    const n = runs.filter((r) => r === id).length;
    assert(n >= 1, `${id} ran`);
    if (before.has(id)) assertEquals(n, 1, `${id} finished before the kill and was not redone`);
  }
  const preds = JSON.parse(await Deno.readTextFile(`${fx.out}/preds.json`));
  assertEquals(Object.keys(preds).sort(), ids);
  for (const id of ids) {
    assertEquals(preds[id].model_patch, id);
    const { data, repaired } = await readTrajectory(`${fx.out}/${id}/${id}.traj.json`);
    assertEquals([repaired, data.info.exit_status, data.messages.length], [false, "Submitted", 6]);
  }
});

Deno.test("claudius batch: two processes on one output directory run each instance once and keep every prediction", async () => {
  const ids = Array.from({ length: 8 }, (_, k) => `job-${k}`);
  const dir = await Deno.makeTempDir();
  const log = `${dir}/runs.log`;
  const fx = await writeBatch(
    ids.map((id) => ({ id, replies: [step(`echo ${id} >> ${log}; sleep 0.3`), submit(id)] })),
    dir,
  );
  const args = [fx.instances, "-o", fx.out, "-w", "2", ...fx.specs.flatMap((s) => ["-c", s])];
  const [a, b] = await Promise.all([finish(spawn(args, dir)), finish(spawn(args, dir))]);
  assertEquals([a.code, b.code], [0, 0], a.stderr + b.stderr);
  const runs = (await Deno.readTextFile(log)).trim().split("\n").sort();
  assertEquals(runs, ids, "every instance ran exactly once");
  const preds = JSON.parse(await Deno.readTextFile(`${fx.out}/preds.json`));
  assertEquals(Object.keys(preds).sort(), ids);
  for (const id of ids) {
    assertEquals(preds[id].model_patch, id);
    assertEquals(
      (await readTrajectory(`${fx.out}/${id}/${id}.traj.json`)).data.info.exit_status,
      "Submitted",
    );
  }
  // One exit-status file per invocation, each printed by its own process, between them every id once.
  const files = [a, b].map((r) => /exit statuses: (.*)/.exec(r.stdout)![1]!);
  assert(files[0] !== files[1], files.join(" "));
  const listed: string[] = [];
  for (const f of files) {
    const text = await Deno.readTextFile(f);
    listed.push(...[...text.matchAll(/- (job-\d)/g)].map((m) => m[1]!));
  }
  assertEquals(listed.sort(), ids);
  assertEquals([...Deno.readDirSync(`${fx.out}/.claims`)], [], "claims are given back");
  // A rerun with nothing to do writes no exit-status file, and names none.
  const rerun = await finish(spawn(args, dir));
  assertEquals(rerun.code, 0, rerun.stderr);
  assertMatch(rerun.stdout, /8 skipped as finished/);
  assert(!/exit statuses:/.test(rerun.stdout), rerun.stdout);
  assertEquals([...Deno.readDirSync(fx.out)].filter((e) => e.name.startsWith("exit_statuses")).length, 2);
});

Deno.test("claudius batch --shard i/n: shards are disjoint and their union is the whole batch", async () => {
  const ids = Array.from({ length: 10 }, (_, k) => `s${k}`);
  const dir = await Deno.makeTempDir();
  const fx = await writeBatch(ids.map((id) => ({ id, replies: [submit(id)] })), dir);
  const shards = await Promise.all(
    [1, 2, 3].map((i) =>
      finish(
        spawn([
          fx.instances,
          "-o",
          `${dir}/out${i}`,
          "--shuffle",
          "--shard",
          `${i}/3`,
          ...fx.specs.flatMap((s) => ["-c", s]),
        ], dir),
      )
    ),
  );
  const keys: string[][] = [];
  for (const [k, r] of shards.entries()) {
    assertEquals(r.code, 0, r.stderr);
    keys.push(Object.keys(JSON.parse(await Deno.readTextFile(`${dir}/out${k + 1}/preds.json`))));
  }
  assertEquals(keys.map((k) => k.length), [4, 3, 3]);
  assertEquals(keys.flat().sort(), ids);
});

Deno.test({
  name: "claudius batch --docker-host spreads containers over two engines and leaves none behind",
  ignore: !engine2 && !inCI,
  fn: async () => {
    const ids = ["d0", "d1", "d2", "d3"];
    const dir = await Deno.makeTempDir();
    const fx = await writeBatch(ids.map((id) => ({ id, replies: [step("sleep 1.5"), submit(id)] })), dir);
    const child = spawn([
      fx.instances,
      "-o",
      fx.out,
      "-w",
      "4",
      "--env",
      "docker",
      "--image",
      TINY,
      "--docker-host",
      HOST1,
      "--docker-host",
      HOST2,
      ...fx.specs.flatMap((s) => ["-c", s]),
    ], dir);
    const seen = [0, 0];
    const watch = until("containers on both engines", async () => {
      seen[0] = Math.max(seen[0]!, (await containers(child.pid, HOST1)).length);
      seen[1] = Math.max(seen[1]!, (await containers(child.pid, HOST2)).length);
      return seen[0]! >= 2 && seen[1]! >= 2;
    }).catch((e) => e);
    const r = await finish(child);
    const waited = await watch;
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertEquals(waited, undefined, `containers seen per engine: ${seen}`);
    assertEquals([await containers(child.pid, HOST1), await containers(child.pid, HOST2)], [[], []]);
    const preds = JSON.parse(await Deno.readTextFile(`${fx.out}/preds.json`));
    assertEquals(Object.keys(preds).sort(), ids);
  },
});

for (const signals of [1, 2]) {
  Deno.test({
    name: `claudius batch: ${
      signals === 1 ? "SIGINT ends running episodes" : "a second SIGINT stops at once"
    }, no container left`,
    ignore: !engine && !inCI,
    fn: async () => {
      const ids = ["i0", "i1", "i2", "i3", "i4"];
      const dir = await Deno.makeTempDir();
      const fx = await writeBatch(ids.map((id) => ({ id, replies: [step("sleep 60"), submit(id)] })), dir);
      const child = spawn([
        fx.instances,
        "-o",
        fx.out,
        "-w",
        "3",
        "--env",
        "docker",
        "--image",
        TINY,
        ...fx.specs.flatMap((s) => ["-c", s]),
      ], dir);
      await until("3 running containers", async () => (await containers(child.pid, HOST1)).length >= 3);
      // The first action (sleep 60) runs once the first model reply is in: give it a moment.
      await new Promise((r) => setTimeout(r, 1500));
      const t0 = Date.now();
      child.kill("SIGINT");
      if (signals === 2) {
        await new Promise((r) => setTimeout(r, 100));
        child.kill("SIGINT");
      }
      const r = await finish(child);
      assert(Date.now() - t0 < 30_000, "stopped promptly");
      if (signals === 2) assertMatch(r.stderr, /SIGINT again/);
      assertEquals(r.code, 130, r.stdout + r.stderr);
      assertEquals(await containers(child.pid, HOST1), []);
      if (signals === 1) {
        for (const id of ids.slice(0, 3)) {
          const { data } = await readTrajectory(`${fx.out}/${id}/${id}.traj.json`);
          assertEquals(data.info.exit_status, "Interrupted");
        }
        assertEquals(
          await Deno.stat(`${fx.out}/i4`).catch(() => null),
          null,
          "no instance started after the signal",
        );
      }
    },
  });
}

for (const [signal, code, status] of [["SIGHUP", 129, "Hangup"], ["SIGQUIT", 131, "Quit"]] as const) {
  Deno.test(`claudius batch on ${signal} ends running episodes as ${status}, kills their commands, exits ${code}`, async () => {
    const ids = ["h0", "h1", "h2"];
    const dir = await Deno.makeTempDir();
    const fx = await writeBatch(
      ids.map((id) => ({
        id,
        replies: [
          step(`(sleep 2; touch ${dir}/late-${id}) & touch ${dir}/started-${id}; sleep 30`),
          submit(id),
        ],
      })),
      dir,
    );
    const child = spawn([fx.instances, "-o", fx.out, "-w", "2", ...fx.specs.flatMap((s) => ["-c", s])], dir);
    const started = () => [...Deno.readDirSync(dir)].filter((e) => e.name.startsWith("started-")).length;
    await until("2 running commands", () => Promise.resolve(started() === 2));
    child.kill(signal);
    const r = await finish(child);
    assertEquals([r.code, r.signal], [code, null], r.stdout + r.stderr);
    const running = ids.filter((id) => existsSync(`${dir}/started-${id}`));
    assertEquals(running.length, 2);
    for (const id of running) {
      const { data } = await readTrajectory(`${fx.out}/${id}/${id}.traj.json`);
      assertEquals(data.info.exit_status, status);
    }
    assertEquals(JSON.parse(await Deno.readTextFile(`${fx.out}/preds.json`)), {});
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assertEquals(
      [...Deno.readDirSync(dir)].filter((e) => e.name.startsWith("late-")),
      [],
      "a command outlived",
    );
  });
}

function existsSync(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("claudius batch with a pipe at <out>/.claudius.lock: refused in one line naming it, exit 2 (it hung for good)", async () => {
  const fx = await writeBatch([{ id: "a", replies: [submit("p")] }]);
  await Deno.mkdir(fx.out, { recursive: true });
  assert((await new Deno.Command("mkfifo", { args: [`${fx.out}/.claudius.lock`] }).output()).success);
  const child = spawn([fx.instances, "-o", fx.out, ...fx.specs.flatMap((s) => ["-c", s])], fx.dir);
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000); // the old code heard no SIGTERM
  const r = await finish(child);
  clearTimeout(timer);
  assertEquals([r.code, r.signal], [2, null], r.stderr);
  assertEquals(
    r.stderr,
    `error: Cannot lock ${fx.out}: ${fx.out}/.claudius.lock is a pipe, device or socket, not a file; remove it ` +
      "and run again\n",
  );
});
