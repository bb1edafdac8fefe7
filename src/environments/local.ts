/**
 * The local environment: every action runs in a fresh `bash -c` on the host, in its own process
 * group, with stdin closed and stdout+stderr merged.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Action, Environment, ExecOutput, Vars } from "../types.ts";
import { runCommand } from "./_process.ts";
import { probeUname, type Uname } from "./_uname.ts";
import { failure, pythonName } from "./_failure.ts";

/** The `environment` section of a config for `environment_class: local`. */
export interface LocalEnvironmentConfig {
  /** Working directory of every command. Default `""`: the harness's current directory. */
  cwd?: string;
  /** Variables set for every command, merged over the host's environment (these win). Default `{}`. */
  env?: Record<string, string>;
  /** Seconds before a command's process group is killed; 0 disables it. Default 30 (as upstream). */
  timeout?: number;
  /**
   * Argv prefix the command string is appended to. Default `["bash", "-c"]`. Upstream ran
   * `/bin/sh -c` although the tool is called bash: a deliberate deviation.
   */
  interpreter?: string[];
  /** The class selector (`local`); accepted and not kept in the resolved config. */
  environment_class?: string;
}

/** The resolved config, as saved in the trajectory and exposed to templates. */
export interface ResolvedLocalConfig {
  [key: string]: unknown;
  cwd: string;
  env: Record<string, string>;
  timeout: number;
  interpreter: string[];
}

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
  readonly config: ResolvedLocalConfig;
  /** Recorded as `info.config.environment_type`. */
  readonly type = "claudius.environments.LocalEnvironment";
  readonly #hostEnv: Record<string, string>;
  #uname: Uname | null = null;
  #closing = new AbortController();
  readonly #running = new Set<Promise<unknown>>();

  /**
   * @param config the `environment` config section
   * @param hostEnv the host's environment (main passes `Deno.env.toObject()`)
   * @throws {ConfigError} a field has the wrong type
   */
  constructor(config: LocalEnvironmentConfig, hostEnv: Record<string, string>) {
    this.config = resolveConfig(config);
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

  /** Run one action in a fresh interpreter. Never throws: failures become the output. */
  async execute(action: Action, signal?: AbortSignal): Promise<ExecOutput> {
    const { command } = action;
    const { cwd, env, timeout, interpreter } = this.config;
    const signals = signal ? [signal, this.#closing.signal] : [this.#closing.signal];
    const run = runCommand([...interpreter, command], {
      ...(cwd ? { cwd } : {}),
      env: { ...this.#hostEnv, ...env },
      timeoutSeconds: timeout,
      signal: AbortSignal.any(signals),
    });
    this.#running.add(run);
    try {
      const r = await run;
      if (r.timedOut) {
        return failure(r.output, "TimeoutExpired", `Command '${command}' timed out after ${timeout} seconds`);
      }
      if (r.aborted) return failure(r.output, "Interrupted", "interrupted");
      return {
        output: r.output,
        returncode: r.exitCode ?? (r.signal !== null ? -r.signal : -1),
        exception_info: "",
      };
    } catch (e) {
      const message = e instanceof Error ? e.message.replaceAll("\n", " ") : String(e);
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

  /** Kill every command still running and wait for them to return. Safe to call twice. */
  async close(): Promise<void> {
    this.#closing.abort();
    this.#closing = new AbortController();
    await Promise.allSettled([...this.#running]);
  }
}

function resolveConfig(config: LocalEnvironmentConfig): ResolvedLocalConfig {
  const { cwd = "", env = {}, timeout = 30, interpreter = ["bash", "-c"] } = config;
  const bad = (key: string, want: string, got: unknown) =>
    new ConfigError(
      `Cannot create LocalEnvironment: environment.${key} must be ${want}, got ${JSON.stringify(got)}`,
    );
  if (typeof cwd !== "string") throw bad("cwd", "a string", cwd);
  if (typeof env !== "object" || env === null || Array.isArray(env)) throw bad("env", "a mapping", env);
  for (const [k, v] of Object.entries(env)) {
    if (typeof v !== "string") throw bad(`env.${k}`, "a string", v);
  }
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < 0) {
    throw bad("timeout", "a number of seconds >= 0", timeout);
  }
  if (
    !Array.isArray(interpreter) || interpreter.length === 0 || interpreter.some((a) => typeof a !== "string")
  ) {
    throw bad("interpreter", "a non-empty list of strings", interpreter);
  }
  return { cwd, env: { ...env }, timeout, interpreter: [...interpreter] };
}
