/**
 * The local environment: every action runs in a fresh `bash -c` on the host, in its own process
 * group, with stdin closed and stdout+stderr merged. Like upstream's `/bin/sh -c`, it does not
 * source `BASH_ENV` (the variable still reaches the command).
 *
 * @module
 */
import { type ConfigInput, type ConfigOf, resolveKeys } from "../config/keys.ts";
import { COMMON_ENVIRONMENT_KEYS, LOCAL_KEYS } from "./_keys.ts";
import type { EnvironmentContext } from "./environment_class.ts";

export { COMMON_ENVIRONMENT_KEYS, LOCAL_KEYS };
import type { Action, Environment, ExecOutput, HostCommand, Vars } from "../types.ts";
import { runCommand } from "../../lib/process.ts";
import { killLeftovers, OrphanGuard, RUN_MARK_VARIABLE } from "../../lib/process_groups.ts";
import { probeUname, type Uname } from "./_uname.ts";
import { EnvironmentLost, exitMessage } from "../errors.ts";

/** The resolved config, as saved in the trajectory and exposed to templates. */
export type LocalEnvironmentConfig = ConfigOf<typeof LOCAL_KEYS>;

/**
 * Runs each action as `[...interpreter, command]` on the host.
 *
 * Observations follow upstream: a timeout gives returncode -1, the partial output, and
 * `exception_info` `An error occurred while executing the command: Command '<command>' timed out
 * after <timeout> seconds`; a command that cannot start gives returncode -1 and the reason; an
 * aborted action (signal) gives returncode -1 and `...: interrupted`. A command killed by a
 * signal it did not get from us has returncode `-N`, like Python's `returncode`. Template
 * variables are the config plus the host's uname, never the process environment.
 *
 * @example
 * ```ts
 * const env = new LocalEnvironment({ timeout: 10 }, Deno.env.toObject());
 * await env.start();
 * const out = await env.execute({ command: "echo hi" }); // { output: "hi\n", returncode: 0, ... }
 * await env.close();
 * ```
 */
export class LocalEnvironment implements Environment {
  /** The resolved config. */
  readonly config: LocalEnvironmentConfig;
  /** Recorded as `info.config.environment_type`. */
  readonly type: string = "claudius.environments.LocalEnvironment";
  readonly #hostEnv: Record<string, string>;
  #uname: Uname | null = null;
  #closing = new AbortController();
  readonly #running = new Set<Promise<unknown>>();
  /** The process group of every command run so far: what is left of them goes at close(). */
  readonly #groups = new Set<number>();
  /** Kills those groups if this process is killed before close() can (SIGKILL). */
  readonly #guard = new OrphanGuard();
  /**
   * `CLAUDIUS_RUN_MARK=<token>`, in every command's environment: what the commands started is found
   * by it at close() (and by the guard) also when it left their group and session (`setsid`).
   */
  readonly #token = crypto.randomUUID();
  readonly #mark = `${RUN_MARK_VARIABLE}=${this.#token}`;
  #marked = false;

  /**
   * An environment whose commands run on the host, in `config.cwd`.
   * @param config the `environment` config section
   * @param hostEnv the host's environment (main passes `Deno.env.toObject()`)
   * @throws {ConfigError} a field has the wrong type
   */
  constructor(config: ConfigInput<typeof LOCAL_KEYS>, hostEnv: Record<string, string>) {
    this.config = resolveKeys(LOCAL_KEYS, config, "environment");
    this.#hostEnv = hostEnv;
  }

  /** Probe the host's uname once (cached). */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#uname !== null) return;
    // One direct `uname` process: the host's uname does not depend on the interpreter.
    this.#uname = await probeUname(async ([program, ...args]) => {
      const r = await new Deno.Command(program!, {
        args,
        stdin: "null",
        stderr: "piped",
        ...(signal ? { signal } : {}),
      })
        .output();
      if (!r.success) {
        throw new Error(`Cannot probe uname: exit ${r.code}: ${new TextDecoder().decode(r.stderr).trim()}`);
      }
      return new TextDecoder().decode(r.stdout);
    });
  }

  /**
   * Run one action in a fresh interpreter. Failures become the output.
   * @throws {EnvironmentLost} when the working directory is gone (a command removed it): no command
   *   can start there any more (upstream goes on, each command failing, until a limit)
   */
  async execute(action: Action, signal?: AbortSignal): Promise<ExecOutput> {
    const { command } = action;
    const { cwd, env, timeout, interpreter } = this.config;
    const signals = signal ? [signal, this.#closing.signal] : [this.#closing.signal];
    // Like upstream's /bin/sh, bash must not source BASH_ENV before the command (withoutBashEnv).
    const spawn = withoutBashEnv(interpreter, { ...this.#hostEnv, ...env, [RUN_MARK_VARIABLE]: this.#token });
    if (!this.#marked) {
      this.#marked = true;
      this.#guard.killMarked(this.#mark);
    }
    const run = runCommand([...interpreter, command], {
      ...(cwd ? { cwd } : {}),
      env: spawn.env,
      shellPrefix: spawn.shellPrefix,
      timeoutSeconds: timeout,
      signal: AbortSignal.any(signals),
      onGroup: (pgid) => {
        this.#groups.add(pgid);
        this.#guard.add(pgid);
      },
    });
    this.#running.add(run);
    try {
      const r = await run;
      if (r.timedOut || r.aborted || r.signal !== null) {
        // A command that did not end by itself: upstream's wording, loaded at the first one.
        const { abortedWithin, failure } = await import("./extra/_failure.ts");
        if (r.timedOut) {
          return failure(
            r.output,
            "TimeoutExpired",
            `Command '${command}' timed out after ${timeout} seconds`,
          );
        }
        if (r.aborted || await abortedWithin(signal)) return failure(r.output, "Interrupted", "interrupted");
      }
      return {
        output: r.output,
        returncode: r.exitCode ?? (r.signal !== null ? -r.signal : -1),
        exception_info: "",
      };
    } catch (e) {
      if (cwd && e instanceof Deno.errors.NotFound && !(await isDirectory(cwd))) {
        const why = `the working directory ${cwd} is gone (a command removed it): no command can run there`;
        throw new EnvironmentLost(exitMessage("EnvironmentLost", "", why));
      }
      const message = e instanceof Error ? e.message.replaceAll("\n", " ") : String(e);
      const { failure, pythonName } = await import("./extra/_failure.ts");
      return failure("", pythonName(e), message);
    } finally {
      this.#running.delete(run);
    }
  }

  /** The config fields plus `system`, `node`, `release`, `version`, `machine`. */
  templateVars(): Vars {
    if (this.#uname === null) throw new Error("Cannot read template variables: start() was not called");
    return { ...structuredClone(this.config), ...this.#uname };
  }

  /** The host command running `argv` in the working directory. */
  hostCommand(argv: string[]): HostCommand {
    return { argv: [...argv], ...(this.config.cwd ? { cwd: this.config.cwd } : {}) };
  }

  /**
   * Kill every command still running, wait for them to return, and kill what their background
   * processes left behind: their process groups, and every process carrying this environment's
   * `CLAUDIUS_RUN_MARK` (one that made a session of its own, `setsid`). Safe to call twice.
   */
  async close(): Promise<void> {
    this.#closing.abort();
    this.#closing = new AbortController();
    await Promise.allSettled([...this.#running]);
    const groups = [...this.#groups];
    this.#groups.clear();
    await killLeftovers(groups, this.#marked ? this.#mark : undefined);
    await this.#guard.close();
  }
}

/** The registry's constructor of `environment_class: local` (see `classes.ts`). */
export function createEnvironment({ own, deps }: EnvironmentContext): LocalEnvironment {
  return new LocalEnvironment(own, deps.hostEnv);
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * How to run a command like upstream's `/bin/sh -c` with respect to `BASH_ENV`: for a bash `-c`
 * interpreter, `BASH_ENV` is taken out of the shell's environment and exported by a prefix on the
 * command's first line (give it to `runCommand` as `shellPrefix`, which keeps bash's messages as
 * they were).
 *
 * @param interpreter the argv prefix (e.g. `["bash", "-c"]`)
 * @param env the command's whole environment
 * @returns the environment to spawn with and the shell prefix ("" when nothing changes)
 *
 * @example
 * ```ts
 * import { withoutBashEnv } from "./local.ts";
 * withoutBashEnv(["bash", "-c"], { BASH_ENV: "/root/.bashrc" });
 * // { env: {}, shellPrefix: "export BASH_ENV='/root/.bashrc'; " }
 * ```
 */
export function withoutBashEnv(
  interpreter: readonly string[],
  env: Record<string, string>,
): { env: Record<string, string>; shellPrefix: string } {
  const [shell, flag, ...rest] = interpreter;
  const bashC = rest.length === 0 && /(^|\/)bash$/.test(shell ?? "") && /^-[a-z]*c$/.test(flag ?? "");
  if (!bashC || env.BASH_ENV === undefined) return { env, shellPrefix: "" };
  const { BASH_ENV: rc, ...others } = env;
  return { env: others, shellPrefix: `export BASH_ENV=${quote(rc)}; ` };
}

/** True when `path` is a directory now. */
function isDirectory(path: string): Promise<boolean> {
  return Deno.stat(path).then((s) => s.isDirectory, () => false);
}
