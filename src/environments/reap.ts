/**
 * `claudius reap`: remove the containers of claudius runs whose process is gone.
 *
 * @module
 */
import { runCommand } from "./_process.ts";
import { engineError } from "./docker.ts";

/**
 * Remove containers left behind by claudius runs that died: those labelled `claudius.pid` whose
 * process is gone (no `/proc/<pid>`, or it is no longer a claudius or deno process). Containers of
 * live runs are kept.
 *
 * @example
 * ```ts
 * const removed = await reapContainers("docker");
 * console.log(`removed ${removed.length} leftover container(s)`);
 * ```
 * @param executable the container CLI (`docker` or `podman`)
 * @param options `dockerHost` sets `DOCKER_HOST` for the engine CLI
 * @returns the names of the removed containers
 * @throws {Error} when the engine cannot list containers
 */
export async function reapContainers(
  executable: string,
  options: { dockerHost?: string } = {},
): Promise<string[]> {
  const env = options.dockerHost ? { ...Deno.env.toObject(), DOCKER_HOST: options.dockerHost } : undefined;
  const run = (args: string[]) =>
    runCommand([executable, ...args], { timeoutSeconds: 60, ...(env ? { env } : {}) });
  const list = await run([
    "ps",
    "-a",
    "--filter",
    "label=claudius.pid",
    "--format",
    '{{.Names}}\t{{.Label "claudius.pid"}}',
  ]);
  if (list.exitCode !== 0) throw new Error(`Cannot list containers: ${engineError(list.output)}`);
  const dead: string[] = [];
  for (const line of list.output.split("\n")) {
    const [name, pid] = line.trim().split("\t");
    if (name && pid && /^\d+$/.test(pid) && !(await isClaudiusProcess(Number(pid)))) dead.push(name);
  }
  if (dead.length === 0) return [];
  const rm = await run(["rm", "-f", ...dead]);
  if (rm.exitCode !== 0) throw new Error(`Cannot remove containers: ${engineError(rm.output)}`);
  return dead;
}

/**
 * Whether `pid` is a live process whose command line looks like claudius or deno. Read with `cat`:
 * Deno refuses reads under `/proc/<pid>/` without `--allow-all`, which the compiled binary lacks
 * (every live run then looked dead). When it cannot tell, the process counts as alive.
 */
async function isClaudiusProcess(pid: number): Promise<boolean> {
  try {
    const r = await runCommand(["cat", `/proc/${pid}/cmdline`], { timeoutSeconds: 10 });
    if (r.exitCode !== 0) return !/no such file/i.test(r.output);
    return /claudius|deno/.test(r.output);
  } catch {
    return true;
  }
}
