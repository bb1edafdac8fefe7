/**
 * The argv pieces of the docker environment: the default isolation, the exec wrapper and the
 * in-container kill, how long the container lives, and how variables reach `docker exec` without
 * their values on its argv.
 *
 * @module
 */
import { commandViaStdin } from "../../../lib/process.ts";
import { randomHex } from "./_engine.ts";

/**
 * Runs in the container in place of the interpreter: the interpreter's stdout and stderr go to one
 * pipe (order kept), in a subshell that execs it, so that a signal ending the command prints no
 * "Killed" line. `$0` carries the exec's marker so that {@link KILL_SCRIPT} can find it. The
 * container engine makes every exec'd process a session and group leader. Once the command has
 * ended it prints {@link execTrailer}: `docker exec` and `podman exec` exit 0, with nothing more,
 * when a signal ends the CLI itself (Slurm signals every process of a job), so without the trailer a
 * command cut off so would read as one that succeeded.
 */
export const EXEC_WRAPPER =
  'exec 3>&1 >/dev/null 2>&1; (exec "$@" >&3 2>&3 3>&-); s=$?; printf \'\\n%s %s\\n\' "$0" "$s" >&3; exit "$s"';

/** The line {@link EXEC_WRAPPER} ends its output with (after a newline of its own): `$0` and the code. */
export function execTrailer(argv0: string, code: number): string {
  return `\n${argv0} ${code}\n`;
}

/**
 * The `docker exec` of one command (`-i` when it goes on stdin), wrapped in {@link EXEC_WRAPPER}
 * under a fresh marker; `head` is the exec up to the container (upstream's argv starts so).
 */
export function execArgv(
  c: { executable: string; cwd: string; interpreter: readonly string[] },
  id: string,
  vars: { args: readonly string[]; shown: readonly string[] },
  command: string,
): { argv: string[]; head: string[]; marker: string; argv0: string } {
  const head = [c.executable, "exec", "-w", c.cwd, ...vars.shown, id];
  const sent = [c.executable, "exec", "-w", c.cwd, ...vars.args, id];
  const marker = randomHex(8);
  const stdin = commandViaStdin(command) ? ["-i"] : []; // runCommand sends a long one on stdin
  const argv0 = `claudius-x${marker}`;
  const wrapped = ["sh", "-c", EXEC_WRAPPER, argv0, ...c.interpreter, command];
  return { argv: [...sent.slice(0, 2), ...stdin, ...sent.slice(2), ...wrapped], head, marker, argv0 };
}

/**
 * An exec's output without {@link execTrailer}, and whether the wrapper printed it (the command ended:
 * without it, a signal ended the CLI first).
 */
export function untrailed(
  output: string,
  argv0: string,
  code: number | null,
): { output: string; ended: boolean } {
  const trailer = code === null ? undefined : execTrailer(argv0, code);
  const ended = trailer !== undefined && output.endsWith(trailer);
  return { output: ended ? output.slice(0, -trailer.length) : output, ended };
}

/** Kills, inside the container, the process group of the exec whose marker suffix is `$1`. */
export const KILL_SCRIPT = 'm="claudius-x$1"; for d in /proc/[0-9]*; do ' +
  'case " $(tr "\\0" " " < "$d/cmdline" 2>/dev/null)" in *" $m "*) ' +
  'p="${d#/proc/}"; kill -KILL -"$p" "$p" 2>/dev/null;; esac; done; true';

/** What a container outlives its run's wall-time limit by (start, the last step, artifacts). */
export const LIFETIME_MARGIN_SECONDS = 600;

const UNIT_SECONDS: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86400 };

/**
 * The `sleep` argument keeping the container alive: `container_timeout`, or the run's wall-time
 * limit plus {@link LIFETIME_MARGIN_SECONDS} when that is longer (a 6 h run in a 2 h container
 * would end `EnvironmentLost`). A `container_timeout` that is not one `sleep` duration (`2h`,
 * `90m`, `3600`) is kept as given.
 *
 * @example
 * ```ts
 * containerLifetime("2h", 21600); // "22200s"
 * containerLifetime("7h", 21600); // "7h"
 * containerLifetime("2h", 0);     // "2h"
 * ```
 * @param containerTimeout `environment.container_timeout`
 * @param runSeconds the run's wall-time limit (0: none)
 */
export function containerLifetime(containerTimeout: string, runSeconds: number): string {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(containerTimeout.trim());
  if (!m || !(runSeconds > 0)) return containerTimeout;
  const given = Number(m[1]) * UNIT_SECONDS[m[2]!]!;
  const needed = Math.ceil(runSeconds) + LIFETIME_MARGIN_SECONDS;
  return needed > given ? `${needed}s` : containerTimeout;
}

/**
 * Names the engine CLI (or a shell script standing in for it) reads itself: set in its environment
 * they would change what it does (`HOME`: its config, `PATH`: its helpers, `BASH_ENV`: a wrapper
 * script's start-up), so such a variable's value goes on the argv instead.
 */
const CLI_READS =
  /^(PATH|HOME|TMPDIR|SHELL|BASH_ENV|ENV|IFS|SHELLOPTS|BASHOPTS|PS4|CDPATH|USER|LOGNAME|LANG|LANGUAGE|TZ|TERM)$|^(DOCKER_|CONTAINER|PODMAN_|BUILDAH_|XDG_|LD_|DYLD_|GO|SSL_|LC_|BASH_FUNC_|REGISTRY_)|_PROXY$|_proxy$/;

/**
 * `docker exec` variables: `-e NAME` for each forwarded host variable that is set and each `env`
 * entry (`env` beats `forward_env`), docker and podman reading the value from their own environment,
 * so no value is on an argv that `ps` shows. A name the CLI's environment sets otherwise (`reserved`:
 * `DOCKER_HOST` with `--docker-host`) or that the CLI reads itself ({@link CLI_READS}: `PATH`,
 * `HOME`, ...) keeps its value on the argv.
 * @returns the arguments, the values the CLI's environment must hold, and the arguments as the
 *   messages show them (upstream's: each `env` entry as `-e K=V`)
 */
export function execEnvArgs(
  forwardEnv: string[],
  env: Record<string, string>,
  hostEnv: Record<string, string>,
  reserved: ReadonlySet<string> = new Set(),
): { args: string[]; values: Record<string, string>; shown: string[] } {
  const wanted = new Map<string, string>();
  const shown: string[] = [];
  for (const key of forwardEnv) {
    const value = hostEnv[key];
    if (value === undefined) continue;
    wanted.set(key, value);
    shown.push("-e", reserved.has(key) ? `${key}=${value}` : key);
  }
  for (const [key, value] of Object.entries(env)) {
    wanted.set(key, value);
    shown.push("-e", `${key}=${value}`);
  }
  const args: string[] = [];
  const values: Record<string, string> = {};
  for (const [key, value] of wanted) {
    if (reserved.has(key) || CLI_READS.test(key)) {
      args.push("-e", `${key}=${value}`);
    } else {
      args.push("-e", key);
      values[key] = value;
    }
  }
  return { args, values, shown };
}

/**
 * ProgramBench's container isolation for `--env docker` with no other config: removed on exit, no
 * network, no ptrace, an init process (fast stop), and 20 CPUs / 60 GB of memory capped at what the
 * host has (the engine refuses more CPUs than exist).
 *
 * @example
 * ```ts
 * defaultIsolationArgs(2, 8 * 1024 ** 3);
 * // ["--rm", "--network", "none", "--cap-drop", "SYS_PTRACE", "--init", "--cpus", "2", "--memory", "8192m"]
 * ```
 * @param hostCpus CPUs of the host (e.g. `navigator.hardwareConcurrency`); 0 leaves `--cpus` out
 * @param hostMemBytes memory of the host in bytes (e.g. `Deno.systemMemoryInfo().total`); 0 leaves `--memory` out
 * @returns `docker run` arguments for `run_args`
 */
export function defaultIsolationArgs(hostCpus: number, hostMemBytes: number): string[] {
  const args = ["--rm", "--network", "none", "--cap-drop", "SYS_PTRACE", "--init"];
  const cpus = Math.min(20, Math.floor(hostCpus));
  if (cpus >= 1) args.push("--cpus", String(cpus));
  const mib = Math.min(60 * 1024, Math.floor(hostMemBytes / 1024 / 1024));
  if (mib >= 6) args.push("--memory", mib === 60 * 1024 ? "60g" : `${mib}m`);
  return args;
}
