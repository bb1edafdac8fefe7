/**
 * DockerEnvironment.execute() when the engine's CLI itself is ended by a signal from outside (Slurm's
 * scancel signals every process of a job; Ctrl-C reaches the terminal's whole group): `docker exec`
 * and `podman exec` then exit 0 with nothing more, which must not read as a command that succeeded.
 * Real engines (tests/_support/engines.ts), both under Docker and Podman.
 */
import { assert, assertEquals } from "../../_support/assert.ts";
import { DockerEnvironment } from "../../../src/core/environments/extra/docker.ts";
import { runCommand } from "../../../src/lib/process.ts";
import { cli, engineTest, eventually, TINY } from "../../_support/engines.ts";

const runId = `t${Date.now().toString(36)}`;

/** Pids of the `<engine> exec` clients running in container `id` (claudius's children). */
async function execClients(engine: string, id: string): Promise<number[]> {
  const r = await runCommand(["pgrep", "-f", `^${engine} exec .*${id} sh -c`], { timeoutSeconds: 10 });
  return r.output.split("\n").filter((l) => /^\d+$/.test(l.trim())).map(Number);
}

engineTest(
  "execute() whose exec CLI a signal ends reports no success and kills the command inside",
  async (e) => {
    const env = new DockerEnvironment({ image: TINY }, { hostEnv: {}, runId }, e.name);
    try {
      await env.start();
      // What the wrapper adds is never part of an output.
      const plain = await env.execute({ command: "printf 'no newline'" });
      assertEquals([plain.output, plain.returncode], ["no newline", 0]);
      const failed = await env.execute({ command: "echo out; exit 3" });
      assertEquals([failed.output, failed.returncode], ["out\n", 3]);

      const running = env.execute({ command: "echo begun; sleep 30; echo finished" });
      let pids: number[] = [];
      assert(
        await eventually(async () => (pids = await execClients(e.name, env.containerId)).length > 0, 10_000),
      );
      await new Promise((r) => setTimeout(r, 300));
      for (const pid of pids) Deno.kill(pid, "SIGTERM");
      const r = await running;
      assert(r.returncode !== 0, JSON.stringify(r));
      assert(!r.output.includes("finished"), JSON.stringify(r));
      assertEquals(
        r.exception_info,
        `An error occurred while executing the command: \`${e.name} exec\` ended before the command did`,
      );
      // Nothing of it goes on in the container.
      const ps = await cli(e, ["exec", env.containerId, "sh", "-c", "ps -o args 2>/dev/null || ls /proc"]);
      assert(!ps.out.includes("sleep 30"), ps.out);
    } finally {
      await env.close();
    }
  },
);
