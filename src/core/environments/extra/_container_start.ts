/**
 * `docker run -d` as the docker environment runs it (an abort grants it a grace period to return
 * the container's id), and the one-line reason when it did not start a container.
 *
 * @module
 */
import { runCommand, type RunResult } from "../../../lib/process.ts";
import { type ContainerState, engineError, isPodman, type Owner, ownerLabelArgs } from "./_engine.ts";
import type { DockerEnvironmentConfig } from "../_keys.ts";

/** What the container is labelled with and how long it lives. */
export interface RunLabels {
  /** The run's id (`claudius.run`). */
  runId: string;
  /** This machine's identity (`claudius.host`, `.machine`, `.boot`). */
  owner: Owner;
  /** `sleep`'s argument: the container's lifetime. */
  lifetime: string;
}

/**
 * The `docker run -d` argv of a container named `name`: labelled with the run and its owner
 * (`reapContainers` reads them), kept alive by `sleep <lifetime>`.
 */
export function runArgv(c: DockerEnvironmentConfig, name: string, labels: RunLabels): string[] {
  return [
    c.executable,
    ...["run", "-d", "--name", name],
    ...["--label", `claudius.run=${labels.runId}`, ...ownerLabelArgs(labels.owner, Deno.pid)],
    ...["--label", `claudius.created=${Math.floor(Date.now() / 1000)}`],
    // Docker creates a missing working directory; podman refuses to start: the probe makes it.
    ...(isPodman(c.executable) ? [] : ["-w", c.cwd]),
    ...[...c.run_args, c.image, "sleep", labels.lifetime],
  ];
}

/** After an abort, how long `docker run -d` may still take to return the container's id. */
const START_ABORT_GRACE_MS = 5000;

/**
 * Run `docker run -d ...` (`argv`) within `timeoutSeconds`. Killing it mid-request can leave the
 * engine to create the container after the caller's `rm -f`: on an abort of `signal` the client
 * gets {@link START_ABORT_GRACE_MS} to return the id; `closed` kills it at once.
 * @throws {Deno.errors.NotFound} the CLI does not exist
 */
export async function runStart(
  argv: string[],
  timeoutSeconds: number,
  env: Record<string, string> | undefined,
  closed: AbortSignal,
  signal?: AbortSignal,
): Promise<RunResult> {
  const late = new AbortController();
  let grace: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => (grace = setTimeout(() => late.abort(), START_ABORT_GRACE_MS));
  const onClose = () => late.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  closed.addEventListener("abort", onClose, { once: true });
  try {
    return await runCommand(argv, { timeoutSeconds, ...(env ? { env } : {}), signal: late.signal });
  } finally {
    clearTimeout(grace);
    signal?.removeEventListener("abort", onAbort);
    closed.removeEventListener("abort", onClose);
  }
}

/**
 * Why `docker run -d` started no container, in one line: the engine's own error, or that it did
 * not answer (within `pull_timeout`, and a probe within `probeSeconds` told frozen from slow).
 * @param engine what a probe after the failure found (null: none was made)
 */
export function startFailure(
  r: RunResult,
  engine: ContainerState | null,
  pullTimeout: number,
  probeSeconds: number,
): string {
  if (!r.timedOut) return engineError(r.output);
  if (engine?.kind === "frozen") {
    return `the engine does not answer (not within ${pullTimeout} s, pull_timeout, nor a probe within ${probeSeconds} s)`;
  }
  if (engine?.kind === "unreachable") return engine.error;
  return `no answer within ${pullTimeout} s (pull_timeout)`;
}
