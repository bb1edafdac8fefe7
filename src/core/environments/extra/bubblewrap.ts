/**
 * The bubblewrap environment: "local with a `bwrap` prefix". Every action runs as
 * `bwrap <wrapper_args> --die-with-parent [--unshare-net] --bind <cwd> <cwd> --chdir <cwd>
 * [--setenv K V]... <interpreter...> <command>` through the {@link LocalEnvironment}, so output
 * capture, timeouts and aborts are the local environment's: the sandbox stays in the command's
 * process group and a timeout kills all of it.
 *
 * The default `wrapper_args` are upstream's, less `--new-session` (claudius already starts every
 * command in a session of its own, without a controlling terminal, and a second session would put
 * the command out of reach of the group kill) and less the system directories this host lacks.
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import { type ConfigInput, resolveKeys } from "../../config/keys.ts";
import { BUBBLEWRAP_KEYS, type BubblewrapEnvironmentConfig } from "../_keys.ts";

export { BUBBLEWRAP_KEYS };
import type { Action, Environment, ExecOutput, HostCommand, Vars } from "../../types.ts";
import { pyRepr } from "../../../lib/python/template/template.ts";
import { LocalEnvironment } from "../local.ts";
import type { EnvironmentContext } from "../environment_class.ts";

export type { BubblewrapEnvironmentConfig };

/** What {@link BubblewrapEnvironment} needs from its caller. */
export interface BubblewrapEnvironmentDeps {
  /** The host's environment: inherited by the sandbox (before `wrapper_args`' `--setenv`). */
  hostEnv: Record<string, string>;
  /** Warnings, one line each. */
  log?: (line: string) => void;
}

/** System paths bound read-only by default, in upstream's order (plus `/sbin`). */
const SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"];
const UNAME_KEYS = ["system", "node", "release", "version", "machine"] as const;

/**
 * Runs each action in a fresh bubblewrap sandbox: the host's system directories read-only, the
 * working directory read-write, a private `/tmp`, and optionally no network. Observations follow
 * upstream: a timeout gives returncode -1, the partial output and `exception_info` naming the whole
 * `bwrap` argv as Python prints a list.
 *
 * @example
 * ```ts
 * const env = new BubblewrapEnvironment({ cwd: "/tmp/work", network: false }, { hostEnv: Deno.env.toObject() });
 * await env.start();
 * const out = await env.execute({ command: "touch /usr/x" }); // returncode 1: read-only file system
 * await env.close();
 * ```
 */
export class BubblewrapEnvironment implements Environment {
  /** The resolved config. */
  readonly config: BubblewrapEnvironmentConfig & { wrapper_args: string[] };
  /** Recorded as `info.config.environment_type`. */
  readonly type: string = "claudius.environments.BubblewrapEnvironment";
  readonly #local: LocalEnvironment;

  /**
   * An environment whose commands run in a bubblewrap sandbox of the host.
   * @param config the `environment` config section
   * @param deps the host's environment and a logger
   * @throws {ConfigError} a field has the wrong type, or `cwd` is empty or relative
   */
  constructor(config: ConfigInput<typeof BUBBLEWRAP_KEYS>, deps: BubblewrapEnvironmentDeps) {
    const resolved = resolveKeys(BUBBLEWRAP_KEYS, config, "environment", { hostEnv: deps.hostEnv });
    if (!resolved.cwd.startsWith("/")) {
      throw new ConfigError(
        `Cannot create BubblewrapEnvironment: environment.cwd must be an absolute path, got ${
          JSON.stringify(resolved.cwd)
        }`,
      );
    }
    this.config = { ...resolved, wrapper_args: resolved.wrapper_args ?? defaultWrapperArgs() };
    const c = this.config;
    if (c.wrapper_args.includes("--new-session")) {
      deps.log?.(
        "warning: environment.wrapper_args has --new-session: a timeout then kills only bwrap and its " +
          "direct child, and commands started inside may survive it",
      );
    }
    this.#local = new LocalEnvironment(
      { cwd: c.cwd, timeout: c.timeout, interpreter: [...this.#prefix(), ...c.interpreter] },
      deps.hostEnv,
    );
  }

  /**
   * Probe the host's uname and check that the sandbox starts.
   * @throws {Error} naming bwrap's complaint when a trivial command cannot run in the sandbox
   */
  async start(signal?: AbortSignal): Promise<void> {
    await this.#local.start(signal);
    const probe = await this.#local.execute({ command: "true" }, signal);
    if (probe.returncode !== 0 && !signal?.aborted) {
      const why = (probe.output.trim() || probe.exception_info || `exit ${probe.returncode}`).replaceAll(
        "\n",
        " ",
      );
      throw new Error(`Cannot start bubblewrap sandbox: ${why}`);
    }
    signal?.throwIfAborted();
  }

  /** Run one action in a fresh sandbox. Never throws: failures become the output. */
  async execute(action: Action, signal?: AbortSignal): Promise<ExecOutput> {
    const out = await this.#local.execute(action, signal);
    if (out.extra?.exception_type !== "TimeoutExpired") return out;
    // Upstream hands subprocess the argv list, so Python prints the list's repr.
    const argv = [...this.#prefix(), ...this.config.interpreter, action.command];
    const text = `Command '${pyRepr(argv)}' timed out after ${this.config.timeout} seconds`;
    return {
      ...out,
      exception_info: `An error occurred while executing the command: ${text}`,
      extra: { ...out.extra, exception: text },
    };
  }

  /** The config fields plus the host's `system`, `node`, `release`, `version`, `machine`. */
  templateVars(): Vars {
    const local = this.#local.templateVars();
    const uname = Object.fromEntries(UNAME_KEYS.map((k) => [k, local[k]]));
    return { ...structuredClone(this.config), ...uname };
  }

  /**
   * The host command running `argv` in the working directory, in a sandbox as the commands' (so
   * nothing the model left in the working tree, a git hook or config, runs outside it).
   */
  hostCommand(argv: string[]): HostCommand {
    return { argv: [...this.#prefix(), ...argv], cwd: this.config.cwd };
  }

  /** Kill every command still running and wait for them to return. Safe to call twice. */
  close(): Promise<void> {
    return this.#local.close();
  }

  /** `bwrap` and its arguments, up to the interpreter. */
  #prefix(): string[] {
    const c = this.config;
    return [
      c.executable,
      ...c.wrapper_args,
      "--die-with-parent",
      ...(c.network ? [] : ["--unshare-net"]),
      ...["--bind", c.cwd, c.cwd, "--chdir", c.cwd],
      ...Object.entries(c.env).flatMap(([k, v]) => ["--setenv", k, v]),
    ];
  }
}

/** Upstream's default `wrapper_args` for this host: missing system paths left out, symlinks kept. */
function defaultWrapperArgs(): string[] {
  const args = ["--unshare-user-try"];
  for (const path of SYSTEM_PATHS) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch {
      continue;
    }
    if (info.isSymlink) args.push("--symlink", Deno.readLinkSync(path), path);
    else args.push("--ro-bind", path, path);
  }
  args.push("--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev");
  args.push("--setenv", "PATH", "/usr/local/bin:/usr/sbin:/usr/bin:/bin");
  return args;
}

/** The registry's constructor of `environment_class: bubblewrap` (see `classes.ts`). */
export function createEnvironment({ own, deps }: EnvironmentContext): BubblewrapEnvironment {
  return new BubblewrapEnvironment(own, { hostEnv: deps.hostEnv, log: deps.log });
}
