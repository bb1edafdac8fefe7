/**
 * Claims as leases, with `claudius batch` as a subprocess and real claimants: a process of another
 * host name (a UTS namespace), of another machine's pid space (a pid namespace: only its lease
 * tells), SIGKILLed and left a zombie by a parent that does not reap, pid reuse, claim files that are
 * not claims, a holder whose claim is taken over. The namespaces need root (`unshare`): without it
 * those tests are ignored, and fail under CI.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { runCommand } from "../../src/lib/process.ts";
import { DirLock } from "../../src/batch/_claims.ts";
import { step, submit, writeBatch } from "../_support/batch.ts";
import { NO_TMPFS } from "../_support/tmpfs.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const inCI = Boolean(Deno.env.get("CI"));
const canUnshare = (await runCommand(["unshare", "--uts", "--pid", "--fork", "--mount-proc", "true"], {
  timeoutSeconds: 10,
}).catch(() => ({ exitCode: 1 }))).exitCode === 0;
if (!canUnshare) console.error("leases_test.ts: cannot unshare (needs root): namespace tests ignored");
const ns = { ignore: !canUnshare && !inCI };

/** Another host name, same machine: its pids are this machine's. */
const OTHER_HOST = ["unshare", "--uts", "sh", "-c", 'hostname nodeb && exec "$@"', "sh"];
/** Another host name and pid space: as another machine, only the lease tells whether it lives. */
const OTHER_MACHINE = [
  "unshare",
  "--uts",
  "--pid",
  "--kill-child",
  "--mount-proc",
  "sh",
  "-c",
  'hostname nodeb && exec "$@"',
  "sh",
];

function spawn(args: string[], cwd: string, opts: { prefix?: string[]; env?: Record<string, string> } = {}) {
  const prefix = opts.prefix ?? [];
  const argv = [...prefix, Deno.execPath(), "run", ...PERMS, MAIN, "batch", ...args];
  return new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd,
    env: { NO_COLOR: "1", ...opts.env },
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

async function until(what: string, cond: () => Promise<boolean>, seconds = 60): Promise<void> {
  const end = Date.now() + seconds * 1000;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`Cannot wait any longer for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A batch of `ids` whose first step logs `<id> <unix time>` and then sleeps `<dir>/slow` seconds
 * while that file exists.
 */
async function slowBatch(ids: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "claudius-leases-" });
  const log = `${dir}/runs.log`;
  const command = (id: string) =>
    `echo "${id} $(date +%s.%N)" >> ${log}; if [ -e ${dir}/slow ]; then sleep "$(cat ${dir}/slow)"; fi`;
  const fx = await writeBatch(ids.map((id) => ({ id, replies: [step(command(id)), submit(id)] })), dir);
  const runs = async (id: string) =>
    (await Deno.readTextFile(log).catch(() => "")).split("\n").filter((l) => l.split(" ")[0] === id)
      .map((l) => Number(l.split(" ")[1]));
  const args = [fx.instances, "-o", fx.out, ...fx.specs.flatMap((s) => ["-c", s])];
  return { ...fx, log, runs, args };
}

async function preds(out: string): Promise<Record<string, { model_patch: string }>> {
  return JSON.parse(await Deno.readTextFile(`${out}/preds.json`));
}

async function exitStatus(out: string, id: string): Promise<unknown> {
  return (await readTrajectory(`${out}/${id}/${id}.traj.json`)).data.info.exit_status;
}

/** This machine's boot id and this process's pid namespace, as claims record them. */
async function pidSpace(): Promise<{ boot_id: string; pid_ns: string }> {
  const r = await runCommand(
    ["sh", "-c", `cat /proc/sys/kernel/random/boot_id; readlink /proc/${Deno.pid}/ns/pid`],
    { timeoutSeconds: 10 },
  );
  const [boot_id = "", pid_ns = ""] = r.output.trim().split("\n");
  return { boot_id, pid_ns };
}

function claimText(fields: Record<string, unknown>, leaseSeconds = 600): string {
  const now = Date.now();
  return JSON.stringify({
    pid: 4242,
    host: "nodeb",
    started: new Date(now).toISOString(),
    pid_start: "1",
    boot_id: "another-machine",
    pid_ns: "pid:[1]",
    token: crypto.randomUUID(),
    renewed: new Date(now).toISOString(),
    expires: new Date(now + leaseSeconds * 1000).toISOString(),
    ...fields,
  });
}

Deno.test({
  name: "claudius batch takes over a claim written under another host name by a process that is gone",
  ...ns,
  fn: async () => {
    const fx = await slowBatch(["a"]);
    await Deno.writeTextFile(`${fx.dir}/slow`, "60");
    const first = spawn(fx.args, fx.dir, { prefix: OTHER_HOST });
    await until("the first batch running a", async () => (await fx.runs("a")).length === 1);
    const claim = JSON.parse(await Deno.readTextFile(`${fx.out}/.claims/a.json`));
    assertEquals(claim.host, "nodeb");
    first.kill("SIGKILL");
    await finish(first);
    await Deno.remove(`${fx.dir}/slow`);
    const r = await finish(spawn(fx.args, fx.dir));
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assert(!/running in another process/.test(r.stdout), r.stdout);
    assertEquals((await fx.runs("a")).length, 2);
    assertEquals((await preds(fx.out)).a?.model_patch, "a");
    assertEquals(await exitStatus(fx.out, "a"), "Submitted");
  },
});

Deno.test("claudius batch takes over the claim of a SIGKILLed claimant left a zombie by a parent that does not reap", async () => {
  const fx = await slowBatch(["z"]);
  await Deno.writeTextFile(`${fx.dir}/slow`, "60");
  const pidFile = `${fx.dir}/claimant.pid`;
  // The parent starts the batch, then becomes a `sleep` that never waits for it.
  const parent = spawn(fx.args, fx.dir, {
    prefix: ["sh", "-c", `"$@" & echo $! > ${pidFile}; exec sleep 120`, "sh"],
  });
  try {
    await until("the claimant running z", async () => (await fx.runs("z")).length === 1);
    const pid = Number(await Deno.readTextFile(pidFile));
    Deno.kill(pid, "SIGKILL");
    await until("the claimant a zombie", async () => {
      const r = await runCommand(["cat", `/proc/${pid}/stat`], { timeoutSeconds: 10 });
      return / Z /.test(r.output);
    });
    await Deno.remove(`${fx.dir}/slow`);
    const r = await finish(spawn(fx.args, fx.dir));
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assert(!/running in another process/.test(r.stdout), r.stdout);
    assertEquals((await fx.runs("z")).length, 2);
    assertEquals((await preds(fx.out)).z?.model_patch, "z");
  } finally {
    parent.kill("SIGKILL");
    await finish(parent);
  }
});

Deno.test("claudius batch takes over a claim naming a live pid whose start time differs (pid reuse)", async () => {
  const fx = await slowBatch(["same-host", "renamed-host"]);
  const live = new Deno.Command("sleep", { args: ["60"], stdin: "null", stdout: "null" }).spawn();
  try {
    await Deno.mkdir(`${fx.out}/.claims`, { recursive: true });
    const here = await pidSpace();
    // The pid runs, but it is not the process that claimed: that one started at tick 1.
    for (const [id, host] of [["same-host", Deno.hostname()], ["renamed-host", "nodeb"]]) {
      await Deno.writeTextFile(
        `${fx.out}/.claims/${id}.json`,
        claimText({ ...here, pid: live.pid, host, pid_start: "1" }),
      );
    }
    const r = await finish(spawn(fx.args, fx.dir));
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertEquals(Object.keys(await preds(fx.out)).sort(), ["renamed-host", "same-host"]);
  } finally {
    live.kill("SIGKILL");
    await live.status;
  }
});

Deno.test("claudius batch treats claim files that are not claims as holding nothing", async () => {
  const bad: Record<string, string> = {
    null: "null",
    array: "[]",
    empty: "{}",
    number: "42",
    string: '"claimed"',
    torn: '{"pid": 12, "host": "no',
    nopid: claimText({ pid: undefined }),
    textpid: claimText({ pid: "12" }),
    badtime: claimText({ expires: "soon" }),
    notoken: claimText({ token: "" }),
  };
  const fx = await slowBatch(Object.keys(bad));
  await Deno.mkdir(`${fx.out}/.claims`, { recursive: true });
  for (const [id, text] of Object.entries(bad)) {
    await Deno.writeTextFile(`${fx.out}/.claims/${id}.json`, text);
  }
  const r = await finish(spawn(fx.args, fx.dir));
  assertEquals(r.code, 0, r.stdout + r.stderr);
  assert(!/undefined/.test(r.stdout + r.stderr), r.stdout + r.stderr);
  assertEquals(Object.keys(await preds(fx.out)).sort(), Object.keys(bad).sort());
  assertEquals([...Deno.readDirSync(`${fx.out}/.claims`)], [], "claims are given back");
});

Deno.test({
  name: "claudius batch takes over another machine's claim once its lease expired, not before, and exits 0",
  ...ns,
  fn: async () => {
    const fx = await slowBatch(["m"]);
    await Deno.writeTextFile(`${fx.dir}/slow`, "60");
    const first = spawn(fx.args, fx.dir, { prefix: OTHER_MACHINE, env: { CLAUDIUS_LEASE_SECONDS: "3" } });
    await until("the other machine running m", async () => (await fx.runs("m")).length === 1);
    first.kill("SIGKILL"); // unshare --kill-child: its batch dies with it
    await finish(first);
    const claim = JSON.parse(await Deno.readTextFile(`${fx.out}/.claims/m.json`));
    assertEquals([claim.host, claim.pid], ["nodeb", 1]);
    await Deno.remove(`${fx.dir}/slow`);
    const r = await finish(spawn(fx.args, fx.dir));
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertMatch(r.stdout, /m: claimed by another process \(pid 1 on nodeb\)/);
    const [, second] = await fx.runs("m");
    assert(second !== undefined && second * 1000 >= Date.parse(claim.expires), "taken over after its expiry");
    assertEquals((await preds(fx.out)).m?.model_patch, "m");
  },
});

Deno.test({
  name: "claudius batch leaves an instance to another machine that renews its lease, and it runs once",
  ...ns,
  fn: async () => {
    const fx = await slowBatch(["r"]);
    await Deno.writeTextFile(`${fx.dir}/slow`, "5");
    const env = { CLAUDIUS_LEASE_SECONDS: "2" };
    const holder = spawn(fx.args, fx.dir, { prefix: OTHER_MACHINE, env });
    await until("the other machine running r", async () => (await fx.runs("r")).length === 1);
    const r = await finish(spawn(fx.args, fx.dir, { env }));
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertMatch(r.stdout, /r: running in another process \(pid 1 on nodeb, claim .*r\.json\)/);
    assertMatch(r.stdout, /left to other processes running them: r \(pid 1 on nodeb\)/);
    const h = await finish(holder);
    assertEquals(h.code, 0, h.stdout + h.stderr);
    assertEquals((await fx.runs("r")).length, 1, "run once");
    assertEquals((await preds(fx.out)).r?.model_patch, "r");
  },
});

Deno.test("claudius batch stops an instance whose claim was taken over, records nothing of it, and runs it after that lease", async () => {
  const fx = await slowBatch(["t"]);
  await Deno.writeTextFile(`${fx.dir}/slow`, "8");
  const batch = spawn(fx.args, fx.dir, { env: { CLAUDIUS_LEASE_SECONDS: "2" } });
  await until("the batch running t", async () => (await fx.runs("t")).length === 1);
  await Deno.remove(`${fx.dir}/slow`);
  // Another machine takes the claim over (under the directory's lock, as a batch would).
  const lock = await DirLock.open(fx.out);
  await lock.with(() => Deno.writeTextFile(`${fx.out}/.claims/t.json`, claimText({ host: "nodec" }, 3)));
  lock.close();
  const r = await finish(batch);
  assertEquals(r.code, 0, r.stdout + r.stderr);
  assertMatch(r.stdout, /t: Stopped: the claim .*t\.json was taken over by pid 4242 on nodec while this ran/);
  const [first, second] = await fx.runs("t");
  assert(first !== undefined && second !== undefined && second - first < 6, "stopped, then run again");
  assertEquals((await preds(fx.out)).t?.model_patch, "t");
  assertEquals(await exitStatus(fx.out, "t"), "Submitted");
  const statuses = await Deno.readTextFile(/exit statuses: (.*)/.exec(r.stdout)![1]!);
  assert(!/LeaseLost/.test(statuses), statuses);
});

Deno.test("claudius batch stopped while it waits on another machine's claim names the instance left", async () => {
  const fx = await slowBatch(["w"]);
  await Deno.mkdir(`${fx.out}/.claims`, { recursive: true });
  await Deno.writeTextFile(`${fx.out}/.claims/w.json`, claimText({}));
  const batch = spawn(fx.args, fx.dir);
  const out = batch.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/looked at again at the end/.test(text)) {
    const { value, done } = await out.read();
    if (done) break;
    text += value;
  }
  batch.kill("SIGINT");
  for (let c = await out.read(); !c.done; c = await out.read()) text += c.value;
  const status = await batch.status;
  await batch.stderr.cancel();
  assertEquals(status.code, 130, text);
  assertMatch(text, /not started: 1 \(the batch was stopped; rerun to continue\): w/);
  assertEquals((await fx.runs("w")).length, 0);
});

Deno.test("claudius batch frozen past its lease (SIGSTOP) undoes nothing the process that took over finished, and pays nothing again", async () => {
  const fx = await slowBatch(["f"]);
  await Deno.writeTextFile(`${fx.dir}/slow`, "3");
  const env = { CLAUDIUS_LEASE_SECONDS: "2" };
  const a = spawn(fx.args, fx.dir, { env });
  await until("A running f", async () => (await fx.runs("f")).length === 1);
  a.kill("SIGSTOP");
  try {
    // A's lease runs out while it is stopped; B takes f over and finishes it.
    await new Promise((r) => setTimeout(r, 2500));
    await Deno.remove(`${fx.dir}/slow`);
    const b = await finish(spawn(fx.args, fx.dir, { env }));
    assertEquals(b.code, 0, b.stdout + b.stderr);
    assertEquals((await fx.runs("f")).length, 2, "B ran f");
    const finished = await Deno.readTextFile(`${fx.out}/f/f.traj.json`);
    const predsBefore = await Deno.readTextFile(`${fx.out}/preds.json`);
    assertEquals(await exitStatus(fx.out, "f"), "Submitted");
    a.kill("SIGCONT");
    const r = await finish(a);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertMatch(r.stdout, /f: Stopped: the claim .*f\.json (was removed|was taken over)/);
    assertEquals((await fx.runs("f")).length, 2, "A ran f no further, nor again");
    assertEquals(await Deno.readTextFile(`${fx.out}/f/f.traj.json`), finished, "B's trajectory is kept");
    assertEquals(await Deno.readTextFile(`${fx.out}/preds.json`), predsBefore);
    assertEquals([...Deno.readDirSync(`${fx.out}/.claims`)], [], "claims are given back");
  } finally {
    try {
      a.kill("SIGCONT");
    } catch {
      // Ended already.
    }
  }
});

Deno.test({
  name: "claudius batch that cannot renew its claims (read-only) stops the instance at once and says why",
  ignore: NO_TMPFS,
  fn: async () => {
    const fx = await slowBatch(["ro"]);
    await Deno.writeTextFile(`${fx.dir}/slow`, "30");
    const claims = `${fx.out}/.claims`;
    await Deno.mkdir(claims, { recursive: true });
    const mount = await runCommand(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", claims], {
      timeoutSeconds: 10,
    });
    assertEquals(mount.exitCode, 0, mount.output);
    try {
      const started = Date.now();
      const batch = spawn(fx.args, fx.dir, { env: { CLAUDIUS_LEASE_SECONDS: "2" } });
      await until("the batch running ro", async () => (await fx.runs("ro")).length === 1);
      const ro = await runCommand(["mount", "-o", "remount,ro", claims], { timeoutSeconds: 10 });
      assertEquals(ro.exitCode, 0, ro.output);
      const r = await finish(batch);
      assert(Date.now() - started < 15_000, `stopped at once, not after the 30 s step: ${r.stdout}`);
      assertMatch(r.stdout, /ro: Stopped: cannot renew the claim .*ro\.json: Read-only file system/);
      assertEquals((await fx.runs("ro")).length, 1);
    } finally {
      await runCommand(["umount", claims], { timeoutSeconds: 10 });
    }
  },
});

Deno.test("claudius batch whose claim is taken over by a machine whose clock is ahead says its clock lags", async () => {
  const fx = await slowBatch(["c"]);
  await Deno.writeTextFile(`${fx.dir}/slow`, "8");
  const batch = spawn(fx.args, fx.dir, { env: { CLAUDIUS_LEASE_SECONDS: "2" } });
  await until("the batch running c", async () => (await fx.runs("c")).length === 1);
  await Deno.remove(`${fx.dir}/slow`);
  // nodec's clock is 90 s ahead: by it, this batch's claim had long expired.
  const ahead = Date.now() + 90_000;
  const lock = await DirLock.open(fx.out);
  await lock.with(() =>
    Deno.writeTextFile(
      `${fx.out}/.claims/c.json`,
      claimText({
        host: "nodec",
        renewed: new Date(ahead).toISOString(),
        expires: new Date(ahead + 3000).toISOString(),
      }),
    )
  );
  lock.close();
  const r = await finish(batch);
  assertEquals(r.code, 0, r.stdout + r.stderr);
  assertMatch(
    r.stdout,
    /c: Stopped: the claim .*c\.json was taken over by pid 4242 on nodec, whose clock is 9\d s ahead of this one's \(a machine whose clock lags/,
  );
});
