/**
 * Background processes that left the command's process group and session (`setsid`, a daemon's
 * double fork) die with the run too, under the local environment and under bubblewrap: at close(),
 * and when claudius itself is SIGKILLed (its guard).
 */
import { assertEquals } from "../../_support/assert.ts";
import { LocalEnvironment } from "../../../src/core/environments/local.ts";
import { BubblewrapEnvironment } from "../../../src/core/environments/extra/bubblewrap.ts";
import type { Environment } from "../../../src/core/types.ts";

const HOST = Deno.env.toObject();
const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

async function sh(script: string): Promise<string> {
  const out = await new Deno.Command("bash", { args: ["-c", script] }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Alive: exists and is no zombie. */
const alive = async (pid: string) =>
  (await sh(`ps -o stat= -p ${pid} | grep -qv Z && echo yes || echo no`)).trim();

async function stillAlive(pids: string[]): Promise<string[]> {
  let left = pids;
  for (let i = 0; i < 100 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
    left = (await Promise.all(pids.map(async (p) => (await alive(p)) === "yes" ? [p] : []))).flat();
  }
  if (left.length) await sh(`kill -KILL ${left.join(" ")} 2>/dev/null`);
  return left;
}

/** Commands that leave processes in sessions of their own; each prints the pid to watch. */
const ESCAPES = [
  "setsid sleep 381 >/dev/null 2>&1 < /dev/null & sleep 0.2; pgrep -n -f 'sleep 381'",
  // A daemon's double fork: its own session, its parent gone.
  "setsid sh -c 'sleep 382 >/dev/null 2>&1 & echo $! > d.pid' < /dev/null; sleep 0.2; cat d.pid",
];

const environments: [string, (cwd: string) => Environment][] = [
  ["local", (cwd) => new LocalEnvironment({ cwd, timeout: 10 }, HOST)],
  ["bubblewrap", (cwd) => new BubblewrapEnvironment({ cwd, timeout: 10 }, { hostEnv: HOST })],
];

for (const [name, make] of environments) {
  Deno.test(`${name}: close() ends background processes that made a session of their own (setsid)`, async () => {
    const cwd = await Deno.realPath(await Deno.makeTempDir());
    const env = make(cwd);
    await env.start();
    // The mark they are found by, in every command's environment (upstream's commands see no such variable).
    const mark = await env.execute({ command: "printenv CLAUDIUS_RUN_MARK" });
    assertEquals([mark.returncode, /^[0-9a-f-]{8,}\n$/.test(mark.output)], [0, true], mark.output);
    const pids: string[] = [];
    for (const command of ESCAPES) {
      const out = await env.execute({ command });
      assertEquals(out.returncode, 0, out.output);
      pids.push(out.output.trim().split("\n").at(-1)!);
    }
    for (const pid of pids) assertEquals(await alive(pid), "yes", `${pid} runs between steps`);
    await env.close();
    assertEquals(await stillAlive(pids), [], "setsid processes outlived the environment");
  });
}

for (const name of ["local", "bubblewrap"]) {
  Deno.test(`claudius SIGKILLed leaves no setsid process of its commands running (${name})`, async () => {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    await Deno.mkdir(`${dir}/ws`);
    const command =
      "setsid sleep 383 >/dev/null 2>&1 < /dev/null & sleep 0.2; pgrep -n -f 'sleep 383' > bg.pid; " +
      "sleep 384";
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "-t", "t", "--model-class", "scripted", "--env", name]
        .concat([
          "-c",
          `model.replies=[{"commands":[${JSON.stringify(command)}]}]`,
          "--cwd",
          "ws",
          "-o",
          "t.json",
        ]),
      cwd: dir,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const pidFile = `${dir}/ws/bg.pid`;
    for (let i = 0; i < 500 && !(await Deno.readTextFile(pidFile).catch(() => "")).trim(); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300)); // the guard learns of the command's group
    child.kill("SIGKILL");
    await child.status;
    const pid = (await Deno.readTextFile(pidFile)).trim();
    assertEquals(await stillAlive([pid]), [], "a setsid process outlived its claudius");
  });
}
