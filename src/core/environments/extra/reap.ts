/**
 * `claudius reap`: remove the containers of claudius runs whose process is gone.
 *
 * @module
 */
import { runCommand } from "../../../lib/process.ts";
import { engineEnv, engineError, machineOwner, type Owner, OWNER_LABELS, removeArgs } from "./_engine.ts";

export type { Owner };

/** How {@link reapContainers} reaches the engine and what it may remove. */
export interface ReapOptions {
  /** Engine address (`DOCKER_HOST` of the engine CLI); undefined: the CLI's default. */
  dockerHost?: string;
  /** The host environment the engine CLI runs with when `dockerHost` is set. */
  hostEnv?: Record<string, string>;
  /**
   * Also remove the containers of runs on other machines (and of claudius versions that did not
   * label their machine), live or not: their processes cannot be checked from here.
   */
  allHosts?: boolean;
  /** This machine (default: read from `/etc/machine-id`, the boot id and the host name). */
  owner?: Owner;
}

/** What {@link reapContainers} did. */
export interface ReapReport {
  /** Names of the containers removed. */
  removed: string[];
  /** Names of the containers kept because another machine (or an unknown one) owns them. */
  otherHosts: string[];
}

/**
 * Remove containers left behind by claudius runs that died. A container belongs to this machine
 * when its `claudius.host` and `claudius.machine` labels are this machine's; its run is dead when
 * `claudius.boot` names an earlier boot, or the process `claudius.pid` is gone (no `/proc/<pid>`, or
 * no longer a claudius or deno process). Containers of live runs are kept, and so are those of other
 * machines unless `allHosts`: a process table says nothing about another machine's runs.
 *
 * @example
 * ```ts
 * import { reapContainers } from "./reap.ts";
 * const { removed } = await reapContainers("docker");
 * console.log(`removed ${removed.length} leftover container(s)`);
 * ```
 * @param executable the container CLI (`docker` or `podman`)
 * @param options engine address, other machines, this machine's identity
 * @returns the containers removed and those kept as other machines'
 * @throws {Error} when the engine cannot list or remove containers
 */
export async function reapContainers(executable: string, options: ReapOptions = {}): Promise<ReapReport> {
  const env = engineEnv(options.hostEnv ?? {}, options.dockerHost);
  const run = (args: string[]) =>
    runCommand([executable, ...args], { timeoutSeconds: 60, ...(env ? { env } : {}) });
  const ids = await run(["ps", "-a", "-q", "--filter", `label=${OWNER_LABELS.pid}`]);
  if (ids.exitCode !== 0) throw new Error(`Cannot list containers: ${engineError(ids.output)}`);
  const report: ReapReport = { removed: [], otherHosts: [] };
  const found = ids.output.split("\n").map((l) => l.trim()).filter((l) => /^[0-9a-f]+$/.test(l));
  if (found.length === 0) return report;
  // `inspect`'s template reads the same on docker and podman (`ps --format` does not: podman has
  // no `.Label`); a container removed meanwhile makes it fail for that one only.
  const labels = [OWNER_LABELS.pid, OWNER_LABELS.host, OWNER_LABELS.machine, OWNER_LABELS.boot];
  const format = ["{{.Name}}", ...labels.map((l) => `{{index .Config.Labels "${l}"}}`)].join("\t");
  const list = await run(["inspect", "--format", format, ...found]);
  const me = options.owner ?? await machineOwner();
  for (const line of list.output.split("\n")) {
    const [name = "", pid, host = "", machine = "", boot = ""] = line.split("\t").map((f) => f.trim());
    if (list.exitCode !== 0 && !pid) continue;
    if (!name || !pid || !/^\d+$/.test(pid)) continue;
    const bare = name.replace(/^\//, "");
    if (host !== me.host || machine !== me.machine) {
      (options.allHosts ? report.removed : report.otherHosts).push(bare);
    } else if (boot !== me.boot || !(await isClaudiusProcess(Number(pid)))) {
      report.removed.push(bare);
    }
  }
  if (report.removed.length === 0) return report;
  const rm = await run([...removeArgs(executable), ...report.removed]);
  if (rm.exitCode !== 0) throw new Error(`Cannot remove containers: ${engineError(rm.output)}`);
  return report;
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
