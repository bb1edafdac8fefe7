/**
 * `claudius batch` (a subprocess) when a signal from outside reaches the command's process before
 * claudius (Slurm's scancel signals every process of the job; Ctrl-C the terminal's whole group): the
 * run ends stopped (`Terminated`, redone by a rerun), not with a next model call over the cut-off
 * command's output (with the scripted model: an `Error` the rerun would count as finished).
 */
import { assertEquals } from "../_support/assert.ts";
import { runCommand } from "../../src/lib/process.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { step, writeBatch } from "../_support/batch.ts";
import { cli, ENGINES, eventually, inCI, TINY } from "../_support/engines.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];

async function pids(pattern: string): Promise<number[]> {
  const r = await runCommand(["pgrep", "-f", pattern], { timeoutSeconds: 10 });
  return r.output.split("\n").filter((l) => /^\d+$/.test(l.trim())).map(Number);
}

/**
 * Run one instance whose only reply sleeps; signal `victim` (a pgrep pattern; `group`: its process
 * group, as Slurm signals every process), then claudius.
 */
async function signalledFirst(env: string, victim: (marker: string) => string, group = false): Promise<void> {
  const marker = `claudius-sig-${crypto.randomUUID().slice(0, 8)}`;
  const fx = await writeBatch([{ id: "a", replies: [step(`echo begun; sleep 30; : ${marker}`)] }]);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...PERMS,
      MAIN,
      "batch",
      fx.instances,
      "-o",
      fx.out,
      "--env",
      env,
      ...fx.specs.flatMap((s) => ["-c", s]),
    ]
      .concat(env === "local" ? [] : ["-c", `environment.image=${TINY}`]),
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const output = child.output();
  let found: number[] = [];
  if (!(await eventually(async () => (found = await pids(victim(marker))).length > 0, 60_000))) {
    child.kill("SIGKILL");
    throw new Error(
      `no process matching ${victim(marker)}: ${new TextDecoder().decode((await output).stderr)}`,
    );
  }
  for (const pid of found) Deno.kill(group ? -pid : pid, "SIGTERM");
  await new Promise((r) => setTimeout(r, 200));
  child.kill("SIGTERM");
  const out = await output;
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 143, text);
  const { data } = await readTrajectory(`${fx.out}/a/a.traj.json`);
  assertEquals(data.messages.at(-1)?.extra?.exit_status, "Terminated", text);
  await Deno.remove(fx.dir, { recursive: true });
}

Deno.test("claudius batch --env local: the command's process group killed by a signal just before claudius ends Terminated", async () => {
  await signalledFirst("local", (m) => `^bash -c .*${m}`, true);
});

for (const e of ENGINES) {
  Deno.test({
    name:
      `claudius batch --env ${e.name}: its exec CLI killed by a signal just before claudius ends Terminated`,
    ignore: !inCI && !e.available,
    fn: async () => {
      if ((await cli(e, ["image", "inspect", TINY])).code !== 0) throw new Error(`${TINY} is missing`);
      await signalledFirst(e.name, (m) => `^${e.name} exec .*${m}`);
    },
  });
}
