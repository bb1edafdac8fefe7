/**
 * What the docker environment and `claudius reap` share about container engines: the CLI's
 * environment for an engine address, the engine's error in one line, a bounded probe that tells a
 * gone container from an engine that stopped answering, and the labels naming the machine and
 * process that own a container.
 *
 * @module
 */
import { runCommand } from "../../../lib/process.ts";

/** Seconds an engine has to answer a probe before it counts as frozen. */
export const ENGINE_PROBE_SECONDS = 10;

/**
 * The engine CLI's environment: undefined (inherit) unless an engine address is given, then the
 * host environment with `DOCKER_HOST` (read by docker) and `CONTAINER_HOST` (read by podman, which
 * then talks to that service) set, so a wrapper of either CLI reaches the same engine.
 */
export function engineEnv(
  hostEnv: Record<string, string>,
  dockerHost?: string,
): Record<string, string> | undefined {
  return dockerHost ? { ...hostEnv, DOCKER_HOST: dockerHost, CONTAINER_HOST: dockerHost } : undefined;
}

/** The CLI's own name (`docker`, `podman`), for messages: the executable's last path segment. */
export function cliName(executable: string): string {
  return executable.replace(/\/+$/, "").replace(/^.*\//, "") || executable;
}

/** True when the CLI is podman's (by name): its `rm -f` otherwise waits 10 s for a stop signal. */
export function isPodman(executable: string): boolean {
  return /podman/.test(cliName(executable));
}

/** `rm -f` arguments that remove a running container at once on either engine. */
export function removeArgs(executable: string): string[] {
  return isPodman(executable) ? ["rm", "-f", "-t", "0"] : ["rm", "-f"];
}

/** The engine address for messages: `dockerHost`, else the CLI's default engine. */
export function engineName(dockerHost?: string, executable = "docker"): string {
  return dockerHost || `the default ${cliName(executable)} engine`;
}

/**
 * The `claudius reap` command that removes a container this run left: `--executable` when the CLI
 * is not `docker`, `--docker-host` when an engine address is set.
 */
export function reapCommand(executable: string, dockerHost?: string): string {
  const exe = executable === "docker" ? "" : ` --executable ${executable}`;
  return `claudius reap${exe}${dockerHost ? ` --docker-host ${dockerHost}` : ""}`;
}

/**
 * The engine's error in one line: the first line saying "error" (the daemon's or podman's own),
 * else the first naming a failure, else the last line; never the CLI's usage hint (`Run 'docker run
 * --help' for more information`) nor docker's note before a pull (`Unable to find image ... locally`).
 *
 * @example
 * ```ts
 * engineError("docker: Cannot connect to the Docker daemon at unix:///x.sock. Is the docker daemon running?\n\nRun 'docker run --help' for more information\n");
 * // "Cannot connect to the Docker daemon at unix:///x.sock. Is the docker daemon running?"
 * ```
 */
export function engineError(output: string): string {
  const lines = output.split("\n").map((l) => l.trim())
    .filter((l) => l !== "" && !/^(Run|See) '.*--help'/.test(l));
  // Docker's progress note before a pull ("Unable to find image 'x' locally") is not the cause.
  const causes = lines.filter((l) => !/^Unable to find image .* locally$/.test(l));
  const line = causes.find((l) => /\berror\b/i.test(l)) ??
    causes.find((l) => /cannot|unable|denied|failed|no such|not found/i.test(l)) ??
    causes.at(-1) ?? lines.at(-1) ?? "no output";
  return line.replace(/^(docker|podman): /, "").replace(/^Error: /, "");
}

/** What the engine says about a container: running, gone, or why it could not tell. */
export type ContainerState =
  | { kind: "running" | "gone" }
  /** The engine did not answer within the probe's deadline (frozen or overloaded beyond use). */
  | { kind: "frozen" }
  /** The engine cannot be reached or failed (its error in one line). */
  | { kind: "unreachable"; error: string };

/**
 * Ask the engine whether container `id` runs, within `seconds`.
 * @param executable the container CLI
 * @param id container id or name
 * @param env the CLI's environment (see {@link engineEnv})
 */
export async function probeContainer(
  executable: string,
  id: string,
  env: Record<string, string> | undefined,
  seconds = ENGINE_PROBE_SECONDS,
): Promise<ContainerState> {
  const r = await runCommand([executable, "inspect", "-f", "{{.State.Running}}", id], {
    timeoutSeconds: seconds,
    ...(env ? { env } : {}),
  }).catch((e: Error) => ({ timedOut: false, exitCode: 127, output: e.message }));
  if (r.timedOut) return { kind: "frozen" };
  const out = r.output.trim();
  if (r.exitCode === 0) return { kind: out === "true" ? "running" : "gone" };
  if (/no such (object|container)/i.test(out)) return { kind: "gone" };
  return { kind: "unreachable", error: engineError(out) };
}

/**
 * Whether a command could not start because the container's working directory is gone (a command
 * removed it): the exec CLI's own failure (exit 126 or 127, the runtime saying it cannot chdir there),
 * confirmed by asking the container whether the directory is there.
 */
export async function cwdGone(
  executable: string,
  id: string,
  cwd: string,
  failed: { exitCode: number | null; output: string },
  env: Record<string, string> | undefined,
  seconds = ENGINE_PROBE_SECONDS,
): Promise<boolean> {
  if (failed.exitCode !== 126 && failed.exitCode !== 127) return false;
  if (!/chdir/i.test(failed.output) || !failed.output.includes(cwd)) return false;
  const r = await runCommand([executable, "exec", "-w", "/", id, "test", "-d", cwd], {
    timeoutSeconds: seconds,
    ...(env ? { env } : {}),
  }).catch(() => undefined);
  return r?.exitCode === 1;
}

/**
 * The `EnvironmentLost` text for a container that is not running: gone, or its engine frozen or
 * unreachable (naming the engine and why).
 */
export function lostReason(
  state: ContainerState,
  name: string,
  engine: string,
  seconds: number,
  executable = "docker",
): string {
  switch (state.kind) {
    case "frozen":
      return `${engine} stopped answering (no reply to \`${
        cliName(executable)
      } inspect\` within ${seconds} s); container ${name} is unreachable`;
    case "unreachable":
      return `Cannot reach ${engine}: ${state.error}; container ${name} is unreachable`;
    default:
      return `container ${name} is gone`;
  }
}

/**
 * `<cli> rm -f ref` within `seconds`: removed, already gone (docker says "No such container";
 * podman exits 0 and prints nothing), or failed, with the engine's reason.
 */
export async function removeContainer(
  executable: string,
  ref: string,
  env: Record<string, string> | undefined,
  seconds: number,
): Promise<{ result: "removed" | "gone" | "failed"; why?: string }> {
  try {
    const r = await runCommand([executable, ...removeArgs(executable), ref], {
      timeoutSeconds: seconds,
      ...(env ? { env } : {}),
    });
    if (r.exitCode === 0) return { result: r.output.trim() === "" ? "gone" : "removed" };
    if (/no such container/i.test(r.output)) return { result: "gone" };
    return { result: "failed", why: r.timedOut ? `no answer within ${seconds} s` : engineError(r.output) };
  } catch (e) {
    return { result: "failed", why: e instanceof Error ? e.message : String(e) };
  }
}

/** After `docker run -d` was killed, how long a late-created container is looked for. */
const LATE_CREATE_MS = 3000;

/**
 * Remove container `name` should the engine create it after its `docker run` client was killed
 * (polls `docker rm -f` for a few seconds; stops once something was removed).
 */
export async function removeLate(
  executable: string,
  name: string,
  env: Record<string, string> | undefined,
): Promise<void> {
  for (const until = Date.now() + LATE_CREATE_MS; Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 250));
    const r = await runCommand([executable, ...removeArgs(executable), name], {
      timeoutSeconds: 30,
      ...(env ? { env } : {}),
    })
      .catch(() => null);
    // Podman's `rm -f` of a missing name exits 0 and prints nothing; docker's says "No such container".
    if (r?.exitCode === 0 && r.output.trim() !== "" && !/no such container/i.test(r.output)) return;
  }
}

/** Who owns a container: the machine (host name, machine id, boot) and process that started it. */
export interface Owner {
  /** Host name (a container running claudius has its own). */
  host: string;
  /** `/etc/machine-id`, else the boot id (so never empty on Linux). */
  machine: string;
  /** `/proc/sys/kernel/random/boot_id`: a different one means the owner rebooted since. */
  boot: string;
}

/** The `--label` names of a container's owner, and of the owning process's id. */
export const OWNER_LABELS = {
  pid: "claudius.pid",
  host: "claudius.host",
  machine: "claudius.machine",
  boot: "claudius.boot",
} as const;

let thisMachine: Promise<Owner> | null = null;

/**
 * This machine's {@link Owner} (read once per process). Read with `cat`: Deno refuses reads under
 * `/proc` without `--allow-all`, which the compiled binary lacks.
 */
export function machineOwner(): Promise<Owner> {
  thisMachine ??= (async () => {
    const r = await runCommand(
      [
        "sh",
        "-c",
        'echo "$(cat /etc/machine-id 2>/dev/null)"; echo "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)"',
      ],
      { timeoutSeconds: 10 },
    ).catch(() => ({ output: "" }));
    const [machine = "", boot = ""] = r.output.split("\n").map((l) => l.trim());
    return { host: Deno.hostname(), machine: machine || boot, boot };
  })();
  return thisMachine;
}

/** `docker run` arguments labelling a container with its owner and the process `pid`. */
export function ownerLabelArgs(owner: Owner, pid: number): string[] {
  return [
    ...["--label", `${OWNER_LABELS.pid}=${pid}`, "--label", `${OWNER_LABELS.host}=${owner.host}`],
    ...[
      "--label",
      `${OWNER_LABELS.machine}=${owner.machine}`,
      "--label",
      `${OWNER_LABELS.boot}=${owner.boot}`,
    ],
  ];
}

/** A running command's engine watch (see {@link watchEngine}). */
export interface EngineWatch {
  /** Stop probing (the command ended). */
  stop(): void;
  /** What the probe found when it aborted the command; undefined while all is well. */
  lost: ContainerState | undefined;
}

/**
 * While a command runs past `seconds`, probe its container that often; when a probe finds the
 * container gone or its engine frozen or unreachable, abort the command through `abort`. A command
 * shorter than `seconds` costs one timer.
 * @param probe what the engine says about the container (bounded by `seconds` itself)
 */
export function watchEngine(
  probe: () => Promise<ContainerState>,
  seconds: number,
  abort: AbortController,
): EngineWatch {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const watch: EngineWatch = {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
    lost: undefined,
  };
  const tick = async () => {
    const state = await probe();
    if (stopped) return;
    if (state.kind === "running") timer = setTimeout(tick, seconds * 1000);
    else {
      watch.lost = state;
      abort.abort();
    }
  };
  timer = setTimeout(tick, seconds * 1000);
  return watch;
}

/** An error's message (anything else as a string). */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** `bytes` random bytes as lowercase hex (container and sandbox names). */
export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}
