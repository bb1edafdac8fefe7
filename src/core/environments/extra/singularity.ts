/**
 * The singularity environment (Apptainer or SingularityCE): upstream's `SingularityEnvironment`. A
 * writable sandbox directory is built from the image once per run (`<cli> build --sandbox <tmp>/
 * claudius-<hex> <image>`, retried `sandbox_build_retries` times); every action runs as
 * `<cli> <global_args> exec <exec_args> [--pwd <cwd>] [--env K=V]... --writable <sandbox>
 * <interpreter...> <command>`, the argv upstream runs for the same config (a test compares them),
 * and the sandbox is removed at the end.
 *
 * What claudius adds: a timeout or an abort kills the command's whole process group (the CLI and
 * everything it started: exec'd processes stay in the caller's group), not only the CLI; forwarded
 * variables travel as `SINGULARITYENV_<NAME>` (`APPTAINERENV_<NAME>` for `apptainer`) in the CLI's
 * environment, so their values are on no argv (`--cleanenv` keeps those); templates see the
 * sandbox's uname; the sandbox is removed on every exit path, and by a {@link LeftoverGuard} when
 * claudius is killed (after it killed the build or the commands still running); a build failure
 * names the CLI's own error.
 *
 * @module
 */
import type { Action, EngineFault, Environment, ExecOutput, HostCommand, Vars } from "../../types.ts";
import { runCommand, type RunResult } from "../../../lib/process.ts";
import { reprStr } from "../../../lib/python/pyrepr.ts";
import { type ConfigInput, resolveKeys } from "../../config/keys.ts";
import { SINGULARITY_KEYS, type SingularityEnvironmentConfig } from "../_keys.ts";
import type { EnvironmentContext } from "../environment_class.ts";

export { SINGULARITY_KEYS };
import { failure, pythonName } from "./_failure.ts";
import { probeUname, type Uname } from "../_uname.ts";
import { cliName, engineError, errorText, randomHex } from "./_engine.ts";
import { GUARD_SECONDS, LeftoverGuard } from "./_leftover_guard.ts";

export type { SingularityEnvironmentConfig };

/** What {@link SingularityEnvironment} needs from its caller. */
export interface SingularityEnvironmentDeps {
  /** The host's environment: `forward_env` values, and `TMPDIR` (where sandboxes go, else `/tmp`). */
  hostEnv: Record<string, string>;
  /** Notices, one line each (sandbox built, removed, warnings). */
  log?: (line: string) => void;
  /** Seconds a released {@link LeftoverGuard} keeps trying to remove the sandbox. */
  guardSeconds?: number;
}

/** Seconds allowed for the uname probe. */
const PROBE_TIMEOUT = 30;

/**
 * Runs every action in one writable sandbox. Observations follow upstream: a timeout gives
 * returncode -1, the partial output and `exception_info` naming the argv as Python prints a list.
 *
 * @example
 * ```ts
 * const env = new SingularityEnvironment({ image: "docker://debian:bookworm" }, { hostEnv: {} });
 * await env.start();
 * const out = await env.execute({ command: "echo hi" }); // { output: "hi\n", returncode: 0, ... }
 * await env.close();
 * ```
 */
export class SingularityEnvironment implements Environment {
  /** The resolved config, every default filled in. */
  readonly config: SingularityEnvironmentConfig;
  /** Recorded as `info.config.environment_type`. */
  readonly type: string = "claudius.environments.SingularityEnvironment";
  readonly #deps: SingularityEnvironmentDeps;
  #sandbox = "";
  #uname: Uname | null = null;
  #starting: Promise<void> | null = null;
  #closing: Promise<void> | null = null;
  #guard: LeftoverGuard | undefined;
  #fault: EngineFault | undefined;
  readonly #stop = new AbortController();

  /**
   * An environment whose commands run in a sandbox built from `config.image`.
   * @param config the `environment:` section (missing keys take their defaults)
   * @param deps host environment and logger
   * @throws {ConfigError} `image` is missing or a field has the wrong type
   */
  constructor(config: ConfigInput<typeof SINGULARITY_KEYS>, deps: SingularityEnvironmentDeps) {
    const resolved = resolveKeys(SINGULARITY_KEYS, config, "environment", { hostEnv: deps.hostEnv });
    this.config = { ...resolved, cwd: resolved.cwd || SINGULARITY_KEYS.cwd.default };
    this.#deps = deps;
  }

  /** The sandbox directory once built (empty before). */
  get sandbox(): string {
    return this.#sandbox;
  }

  /**
   * Build the sandbox from the image and probe its uname. Aborting `signal` or calling close()
   * meanwhile kills the build and removes what it left.
   * @throws {Error} naming the image and the CLI's error once every attempt failed
   */
  start(signal?: AbortSignal): Promise<void> {
    if (this.#stop.signal.aborted) {
      return Promise.reject(new Error("Cannot build sandbox: the environment is closed"));
    }
    this.#starting ??= this.#start(signal);
    return this.#starting;
  }

  async #start(signal?: AbortSignal): Promise<void> {
    const c = this.config;
    const abort = signal ? AbortSignal.any([signal, this.#stop.signal]) : this.#stop.signal;
    const tmp = (this.#deps.hostEnv.TMPDIR || "/tmp").replace(/\/+$/, "") || "/";
    let why = "";
    for (let attempt = 1; attempt <= c.sandbox_build_retries; attempt++) {
      const failed = await this.#build(`${tmp}/claudius-${randomHex(4)}`, abort, signal);
      if (failed === undefined) break;
      why = failed;
      this.#deps.log?.(
        `warning: cannot build sandbox from image ${c.image} (attempt ${attempt}/${c.sandbox_build_retries}): ${why}`,
      );
    }
    if (!this.#sandbox) {
      this.#fault = { kind: "start", host: "", message: why };
      throw new Error(`Cannot build sandbox from image ${c.image} with ${cliName(c.executable)}: ${why}`);
    }
    this.#deps.log?.(`Built sandbox ${this.#sandbox} from ${c.image}`);
    this.#uname = await this.#probeUname();
  }

  /**
   * One attempt to build the sandbox in `dir` (guarded from its start).
   * @returns undefined when built, else why not
   * @throws the abort's reason, or an error when the CLI cannot run
   */
  async #build(
    dir: string,
    abort: AbortSignal,
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    const c = this.config;
    this.#sandbox = dir;
    // The build's own temporary files go next to the sandbox, so whatever ends the run removes them too.
    const work = `${dir}.build`;
    this.#guard = new LeftoverGuard(
      ["sh", "-c", 'rm -rf "$0" "$1" && echo removed', dir, work],
      undefined,
      this.#deps.guardSeconds ?? GUARD_SECONDS,
    );
    let r: RunResult;
    try {
      await Deno.mkdir(work, { recursive: true });
      r = await runCommand([c.executable, "build", "--sandbox", dir, c.image], {
        timeoutSeconds: 0,
        signal: abort,
        env: { ...this.#deps.hostEnv, APPTAINER_TMPDIR: work, SINGULARITY_TMPDIR: work },
        onGroup: (pgid) => this.#guard?.addGroup(pgid),
      });
    } catch (e) {
      await this.#removeSandbox();
      this.#fault = { kind: "down", host: "", message: errorText(e) };
      throw new Error(`Cannot build sandbox from image ${c.image} with ${c.executable}: ${errorText(e)}`);
    }
    if (r.exitCode === 0 && !r.aborted) {
      await Deno.remove(work, { recursive: true }).catch(() => {});
      return undefined;
    }
    await this.#removeSandbox();
    if (r.aborted) {
      throw signal?.aborted
        ? signal.reason
        : new Error("Cannot build sandbox: the environment was closed meanwhile");
    }
    return engineError(r.output);
  }

  /** The sandbox's uname; empty when it cannot say. */
  async #probeUname(): Promise<Uname> {
    try {
      return await probeUname(async (argv) => {
        const p = await runCommand([...this.#head(), ...argv], {
          timeoutSeconds: PROBE_TIMEOUT,
          ...this.#cliEnv(),
          signal: this.#stop.signal,
        });
        return p.output;
      });
    } catch (e) {
      if (this.#stop.signal.aborted) {
        throw new Error("Cannot build sandbox: the environment was closed meanwhile");
      }
      this.#deps.log?.(
        `warning: ${errorText(e)} in sandbox ${this.#sandbox}; uname template variables are empty`,
      );
      return { system: "", node: "", release: "", version: "", machine: "" };
    }
  }

  /**
   * The argv up to the command: `<cli> <global_args> exec <exec_args> [--pwd <cwd>] --writable
   * <sandbox>`, the variables left to {@link #cliEnv} (so no value is on an argv `ps` shows);
   * `shown`: upstream's, with `[--env K=V]...` before `--writable`, for messages.
   */
  #head(shown = false): string[] {
    const c = this.config;
    const pwd = c.cwd && c.cwd !== "/" ? ["--pwd", c.cwd] : [];
    const env = shown ? Object.entries(c.env).flatMap(([k, v]) => ["--env", `${k}=${v}`]) : [];
    return [
      c.executable,
      ...c.global_args,
      "exec",
      ...c.exec_args,
      ...pwd,
      ...env,
      "--writable",
      this.#sandbox,
    ];
  }

  /**
   * The CLI's environment: the host's plus each forwarded variable that is set and each `env` entry,
   * prefixed (none: inherit).
   */
  #cliEnv(): { env?: Record<string, string> } {
    const prefix = /apptainer/.test(cliName(this.config.executable)) ? "APPTAINERENV_" : "SINGULARITYENV_";
    const vars: Record<string, string> = {};
    for (const key of this.config.forward_env) {
      const value = this.#deps.hostEnv[key];
      if (value !== undefined) vars[prefix + key] = value;
    }
    // `env` wins, as upstream's later `--env` does.
    for (const [key, value] of Object.entries(this.config.env)) vars[prefix + key] = value;
    return Object.keys(vars).length ? { env: { ...this.#deps.hostEnv, ...vars } } : {};
  }

  /**
   * Run one action with `<cli> exec`. Failures, timeouts and aborts are outputs (returncode -1 and
   * `exception_info` as upstream prints them).
   */
  async execute(action: Action, signal?: AbortSignal): Promise<ExecOutput> {
    if (!this.#sandbox || this.#uname === null) throw new Error("Cannot execute: the sandbox is not built");
    const c = this.config;
    const argv = [...this.#head(), ...c.interpreter, action.command];
    let r: RunResult;
    try {
      r = await runCommand(argv, {
        timeoutSeconds: c.timeout,
        ...this.#cliEnv(),
        signal: signal ? AbortSignal.any([signal, this.#stop.signal]) : this.#stop.signal,
        // Commands run on this host: a killed claudius leaves them to the guard.
        onGroup: (pgid) => this.#guard?.addGroup(pgid),
      });
    } catch (e) {
      return failure("", pythonName(e), errorText(e).replaceAll("\n", " "));
    }
    if (r.aborted) return failure(r.output, "Interrupted", "interrupted");
    if (r.timedOut) {
      const upstream = [...this.#head(true), ...c.interpreter, action.command];
      const text = `Command '[${upstream.map(reprStr).join(", ")}]' timed out after ${c.timeout} seconds`;
      return failure(r.output, "TimeoutExpired", text);
    }
    return { output: r.output, returncode: r.exitCode ?? -(r.signal ?? 9), exception_info: "" };
  }

  /** Config fields plus the sandbox's uname (`system`, `node`, `release`, `version`, `machine`). */
  templateVars(): Vars {
    if (this.#uname === null) throw new Error("Cannot read template variables: start() was not called");
    return { ...structuredClone(this.config), ...this.#uname };
  }

  /**
   * The host command running `argv` in the sandbox's working directory.
   * @throws {Error} when the sandbox was never built
   */
  hostCommand(argv: string[]): HostCommand {
    if (!this.#sandbox || this.#uname === null) throw new Error("the sandbox was never built");
    return { argv: [...this.#head(), ...argv], ...this.#cliEnv() };
  }

  /** Why the CLI failed this environment (see {@link EngineFault}), if it did. */
  engineFault(): EngineFault | undefined {
    return this.#fault;
  }

  /** Kill running commands (and a build in flight), then remove the sandbox. Safe to call twice. */
  close(): Promise<void> {
    this.#stop.abort();
    this.#closing ??= (async () => {
      await this.#starting?.catch(() => {});
      if (this.#sandbox) {
        const dir = this.#sandbox;
        if (await this.#removeSandbox()) this.#deps.log?.(`Removed sandbox ${dir}`);
      }
    })();
    return this.#closing;
  }

  /** Remove the sandbox (a failure leaves it to the guard, with a warning); true when it is gone. */
  async #removeSandbox(): Promise<boolean> {
    const dir = this.#sandbox;
    this.#sandbox = "";
    try {
      await Deno.remove(`${dir}.build`, { recursive: true }).catch(() => {});
      await Deno.remove(dir, { recursive: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        await this.#guard?.release();
        this.#deps.log?.(
          `warning: cannot remove sandbox ${dir}: ${errorText(e)}; a process retries for a while`,
        );
        return false;
      }
    }
    await this.#guard?.done();
    return true;
  }
}

/** The registry's constructor of `environment_class: singularity` (see `classes.ts`). */
export function createEnvironment({ own, deps }: EnvironmentContext): SingularityEnvironment {
  return new SingularityEnvironment(own, { hostEnv: deps.hostEnv, log: deps.log });
}
