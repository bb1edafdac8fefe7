/**
 * The docker environment: "local with `docker exec`". One long-lived container per run (`docker run
 * -d ... sleep <lifetime>`); every action a fresh `docker exec ... <interpreter...> <command>`. The
 * same class runs podman (`environment_class: podman`), tested under both. The image needs `sh`.
 *
 * Beyond upstream: owner labels (`claudius.pid`, `.host`, `.machine`, `.boot`; see `reapContainers`);
 * stdout and stderr merged in order; a timeout kills everything the command started inside; templates
 * see the container's uname; a dead container, or an engine that stops answering (watched while a
 * long command runs) or cannot be reached, ends the run with `EnvironmentLost`; closing during start
 * removes the container by name, also when the engine creates it late; the container lives as long
 * as the run may (`containerLifetime`); forwarded values are on no argv; a {@link LeftoverGuard}
 * removes the container when claudius is killed or the engine did not confirm a removal.
 *
 * @module
 */
import { EnvironmentLost, exitMessage } from "../../errors.ts";
import type { Action, EngineFault, Environment, ExecOutput, HostCommand, Vars } from "../../types.ts";
import { runCommand, type RunResult } from "../../../lib/process.ts";
import {
  type ContainerState,
  cwdGone,
  ENGINE_PROBE_SECONDS,
  engineEnv,
  engineName,
  errorText,
  isPodman,
  lostReason,
  machineOwner,
  probeContainer,
  randomHex,
  reapCommand,
  removeArgs,
  removeContainer,
  removeLate,
  watchEngine,
} from "./_engine.ts";
import { probeUname, type Uname } from "../_uname.ts";
import { abortedWithin, failure, pythonName } from "./_failure.ts";
import { reprStr } from "../../../lib/python/pyrepr.ts";
import { containerLifetime, execArgv, execEnvArgs, KILL_SCRIPT, untrailed } from "./_container_args.ts";

export { defaultIsolationArgs } from "./_container_args.ts";
export { DOCKER_KEYS } from "../_keys.ts";
import { GUARD_SECONDS, LeftoverGuard } from "./_leftover_guard.ts";
import { runArgv, runStart, startFailure } from "./_container_start.ts";
import { type ConfigInput, resolveKeys } from "../../config/keys.ts";
import { DOCKER_KEYS, type DockerEnvironmentConfig, PODMAN_KEYS } from "../_keys.ts";
import type { EnvironmentContext } from "../environment_class.ts";

export type { DockerEnvironmentConfig };

/** What {@link DockerEnvironment} needs from its caller. */
export interface DockerEnvironmentDeps {
  /** The host's environment, read for `forward_env`. */
  hostEnv: Record<string, string>;
  /** Unique id of this run: part of the container name and its `claudius.run` label. */
  runId: string;
  /** Notices, one line each (container started, removed, warnings). */
  log?: (line: string) => void;
  /** Engine address set as `DOCKER_HOST` for every engine CLI call (e.g. `ssh://user@host`). */
  dockerHost?: string;
  /**
   * Seconds the engine has to answer a probe or an in-container kill before it counts as frozen; a
   * command running longer is watched with a probe this often. Default 10.
   */
  engineProbeSeconds?: number;
  /** The run's wall-time limit in seconds (0 or undefined: none): the container lives at least that long. */
  runSeconds?: number;
  /** Seconds a released {@link LeftoverGuard} keeps trying to remove the container (tests shorten it). */
  guardSeconds?: number;
}

/** Seconds allowed for `docker rm -f` and the uname probe. */
const HOUSEKEEPING_TIMEOUT = 30;
/** What `docker run -d` prints last: the new container's id. */
const CONTAINER_ID = /^[0-9a-f]{12,}$/;

/**
 * Runs every action in one long-lived container. Observations follow upstream: a timeout gives
 * returncode -1, the partial output and `exception_info` naming the `docker exec` argv as Python
 * prints a list; an aborted action gives returncode -1 and `...: interrupted`.
 *
 * @example
 * ```ts
 * const env = new DockerEnvironment({ image: "debian:bookworm" }, { hostEnv: {}, runId: "demo" });
 * await env.start();
 * const out = await env.execute({ command: "echo hi" }); // { output: "hi\n", returncode: 0, ... }
 * await env.close();
 * ```
 */
export class DockerEnvironment implements Environment {
  /** The resolved config, every default filled in. */
  readonly config: DockerEnvironmentConfig;
  /** Recorded as `info.config.environment_type`. */
  readonly type: string = "claudius.environments.DockerEnvironment";
  readonly #deps: DockerEnvironmentDeps;
  #name = "";
  #id = "";
  #uname: Uname | null = null;
  #starting: Promise<void> | null = null;
  #closing: Promise<void> | null = null;
  /** Set once the engine stopped answering or could not be reached (close() then gives up sooner). */
  #engineLost = false;
  /** `docker run` was killed unanswered: the engine may still create the container. */
  #mayAppear = false;
  #fault: EngineFault | undefined;
  #guard: LeftoverGuard | undefined;
  readonly #stop = new AbortController();
  /** The engine CLI's environment: undefined (inherit) unless a docker host is set. */
  readonly #cliEnv: Record<string, string> | undefined;
  readonly #probeSeconds: number;

  /**
   * An environment whose commands run in a new container of `config.image`, started by `start()`.
   * @param config the `environment:` section (missing keys take their defaults)
   * @param deps host environment, run id and logger
   * @param engine whose keys' defaults apply (`podman`: `executable: podman`)
   * @throws {ConfigError} `image` is missing or a field has the wrong type
   */
  constructor(
    config: ConfigInput<typeof DOCKER_KEYS>,
    deps: DockerEnvironmentDeps,
    engine: "docker" | "podman" = "docker",
  ) {
    const keys = engine === "podman" ? PODMAN_KEYS : DOCKER_KEYS;
    const resolved = resolveKeys(keys, config, "environment", { hostEnv: deps.hostEnv });
    this.config = { ...resolved, cwd: resolved.cwd || DOCKER_KEYS.cwd.default };
    this.#deps = deps;
    this.#cliEnv = engineEnv(deps.hostEnv, deps.dockerHost);
    this.#probeSeconds = deps.engineProbeSeconds ?? ENGINE_PROBE_SECONDS;
  }

  /** `RunOptions.env` for an engine CLI call. */
  #env(): { env?: Record<string, string> } {
    return this.#cliEnv ? { env: this.#cliEnv } : {};
  }

  /** The container's id once started (empty before). */
  get containerId(): string {
    return this.#id;
  }

  /** The container's name once started (empty before). */
  get containerName(): string {
    return this.#name;
  }

  /**
   * Start the container (pulling the image if needed) and probe its uname. Aborting `signal` or
   * calling close() meanwhile kills `docker run` (`signal` grants it 5 s to return the id first) and
   * removes the container by name, also when the engine creates it a moment later.
   * @throws {Error} naming the image and the engine's error when the container cannot start
   */
  start(signal?: AbortSignal): Promise<void> {
    if (this.#stop.signal.aborted) {
      return Promise.reject(new Error("Cannot start container: the environment is closed"));
    }
    this.#starting ??= this.#start(signal);
    return this.#starting;
  }

  async #start(signal?: AbortSignal): Promise<void> {
    const c = this.config;
    const name = `claudius-${this.#deps.runId}-${randomHex(4)}`;
    const lifetime = containerLifetime(c.container_timeout, this.#deps.runSeconds ?? 0);
    const argv = runArgv(c, name, { runId: this.#deps.runId, owner: await machineOwner(), lifetime });
    signal?.throwIfAborted();
    this.#name = name;
    // Before the engine is asked: a claudius killed from here on leaves its container to the guard.
    this.#guard = new LeftoverGuard(
      [c.executable, ...removeArgs(c.executable), name],
      this.#cliEnv,
      this.#deps.guardSeconds ?? GUARD_SECONDS,
    );
    let r: RunResult;
    try {
      r = await runStart(argv, c.pull_timeout, this.#cliEnv, this.#stop.signal, signal);
    } catch (e) {
      throw new Error(`Cannot start container from image ${c.image}: ${errorText(e)}`, { cause: e });
    }
    const id = r.output.trim().split("\n").at(-1)?.trim() ?? "";
    // From here on close() removes the container.
    if (r.exitCode === 0 && CONTAINER_ID.test(id)) this.#id = id;
    const engine = this.#id ? null : await this.#notStarted(name, r);
    if (signal?.aborted) throw signal.reason;
    if (this.#stop.signal.aborted) {
      throw new Error("Cannot start container: the environment was closed meanwhile");
    }
    if (!this.#id) {
      const why = startFailure(r, engine, c.pull_timeout, this.#probeSeconds);
      this.#fault = {
        kind: this.#engineLost ? "down" : "start",
        host: this.#deps.dockerHost ?? "",
        message: why,
      };
      throw new Error(`Cannot start container from image ${c.image} on ${this.#engineName()}: ${why}`);
    }
    this.#deps.log?.(`Started container ${name} (${id.slice(0, 12)}) from ${c.image}`);
    this.#uname = await this.#probeUname(id, name);
  }

  /**
   * `docker run` gave no container: is the engine itself down (frozen, unreachable) or did it refuse
   * this one? What it may have made is removed (by the guard, when the engine does not answer).
   */
  async #notStarted(name: string, r: RunResult): Promise<ContainerState | null> {
    const c = this.config;
    const engine = r.aborted
      ? null
      : await probeContainer(c.executable, name, this.#cliEnv, this.#probeSeconds);
    if (engine?.kind === "frozen" || engine?.kind === "unreachable") {
      // Asking a frozen engine to remove it would only wait; the guard removes it once it answers.
      this.#engineLost = true;
      this.#mayAppear = r.timedOut;
    } else {
      await this.#remove(name);
      if (r.aborted || r.timedOut) await removeLate(c.executable, name, this.#cliEnv);
    }
    return engine;
  }

  /** The container's uname (podman first makes a missing working directory); empty when it cannot say. */
  async #probeUname(id: string, name: string): Promise<Uname> {
    const c = this.config;
    const mkdir = isPodman(c.executable)
      ? ["sh", "-c", 'mkdir -p -- "$0" 2>/dev/null; exec "$@"', c.cwd]
      : [];
    try {
      return await probeUname(async (argv) => {
        const p = await runCommand([c.executable, "exec", id, ...mkdir, ...argv], {
          timeoutSeconds: HOUSEKEEPING_TIMEOUT,
          ...this.#env(),
          signal: this.#stop.signal,
        });
        return p.output;
      });
    } catch (e) {
      if (this.#stop.signal.aborted) {
        throw new Error("Cannot start container: the environment was closed meanwhile");
      }
      if ((await this.#state()).kind !== "running") {
        throw new Error(`Cannot start container from image ${c.image}: it stopped right after starting`);
      }
      this.#deps.log?.(`warning: ${errorText(e)} in container ${name}; uname template variables are empty`);
      return { system: "", node: "", release: "", version: "", machine: "" };
    }
  }

  /**
   * Run one action with `docker exec`. Failures, timeouts and aborts are outputs (returncode -1 and
   * `exception_info` as upstream prints them).
   * @throws {EnvironmentLost} when the container is no longer running
   */
  async execute(action: Action, signal?: AbortSignal): Promise<ExecOutput> {
    if (!this.#id) throw new Error("Cannot execute: the container is not started");
    const c = this.config;
    const vars = execEnvArgs(c.forward_env, c.env, this.#deps.hostEnv, this.#reserved());
    const { argv, head, marker, argv0 } = execArgv(c, this.#id, vars, action.command);
    const hasValues = Object.keys(vars.values).length > 0;
    const cliEnv = hasValues ? { ...(this.#cliEnv ?? this.#deps.hostEnv), ...vars.values } : this.#cliEnv;
    const watch = new AbortController();
    const watching = watchEngine(() => this.#state(), this.#probeSeconds, watch);
    let r: RunResult;
    try {
      r = await runCommand(argv, {
        timeoutSeconds: c.timeout,
        ...(cliEnv ? { env: cliEnv } : {}),
        signal: AbortSignal.any([watch.signal, this.#stop.signal, ...(signal ? [signal] : [])]),
        // An engine the watch found frozen or gone cannot kill anything inside: do not wait on it.
        onKill: () => watch.signal.aborted ? Promise.resolve() : this.#killInside(marker),
      });
    } catch (e) {
      return failure("", pythonName(e), errorText(e).replaceAll("\n", " "));
    } finally {
      watching.stop();
    }
    if (watching.lost) this.#lose(watching.lost);
    const { output, ended } = untrailed(r.output, argv0, r.exitCode);
    if (r.aborted) return failure(output, "Interrupted", "interrupted");
    if (!ended && (r.exitCode === 0 || r.signal !== null) && !r.timedOut) {
      // A signal ended the CLI (which then exits 0, or dies of it): the command may still run inside.
      if (r.signal !== null) await this.#checkAlive();
      await this.#killInside(marker);
      if (await abortedWithin(signal)) return failure(output, "Interrupted", "interrupted");
      return failure(output, "Interrupted", `\`${c.executable} exec\` ended before the command did`);
    }
    if (r.exitCode !== 0) await this.#checkAlive();
    if (await cwdGone(c.executable, this.#id, c.cwd, { exitCode: r.exitCode, output }, this.#cliEnv)) {
      const why =
        `the working directory ${c.cwd} is gone from container ${this.#name} (a command removed it)`;
      throw new EnvironmentLost(exitMessage("EnvironmentLost", "", `${why}: no command can run there`));
    }
    if (r.timedOut) {
      // Upstream passes the argv list to subprocess, so Python prints the list's repr.
      const upstreamArgv = [...head, ...c.interpreter, action.command];
      const text = `Command '[${upstreamArgv.map(reprStr).join(", ")}]' timed out after ${c.timeout} seconds`;
      return failure(output, "TimeoutExpired", text);
    }
    const returncode = r.exitCode ?? -(r.signal ?? 9);
    return { output, returncode, exception_info: "" };
  }

  /** Config fields plus the container's uname (`system`, `node`, `release`, `version`, `machine`). */
  templateVars(): Vars {
    if (this.#uname === null) throw new Error("Cannot read template variables: start() was not called");
    return { ...structuredClone(this.config), ...(this.#uname ?? {}) };
  }

  /**
   * The host command running `argv` in the container's working directory (`docker exec -w`).
   * @throws {Error} when the container was never started
   */
  hostCommand(argv: string[]): HostCommand {
    if (!this.#id) throw new Error("the container was never started");
    const { executable, cwd } = this.config;
    return { argv: [executable, "exec", "-w", cwd, this.#id, ...argv], ...this.#env() };
  }

  /** Why the engine failed this environment (see {@link EngineFault}), if it did. */
  engineFault(): EngineFault | undefined {
    return this.#fault;
  }

  /**
   * Kill running commands (and a `docker run` in flight), then remove the container (`docker rm -f`,
   * at most 30 s; not asked of an engine found frozen or unreachable). A container the engine did not
   * confirm removing, or may still create, is left to the guard (see {@link LeftoverGuard}) and named
   * with the `claudius reap` command that removes it. Safe to call twice.
   */
  close(): Promise<void> {
    this.#stop.abort();
    this.#closing ??= (async () => {
      await this.#starting?.catch(() => {});
      const guard = this.#guard;
      // An engine found frozen or unreachable is not asked again (it would only wait): the guard is.
      const removed = this.#id && !this.#engineLost
        ? await this.#remove(this.#id)
        : this.#id || this.#mayAppear
        ? "failed"
        : "gone";
      if (removed === "removed") this.#deps.log?.(`Removed container ${this.#name}`);
      if (removed !== "failed") return await guard?.done();
      await guard?.release();
      const minutes = Math.round((this.#deps.guardSeconds ?? GUARD_SECONDS) / 60);
      const how = guard?.started ? `a process removes it once the engine answers (for ${minutes} min); ` : "";
      const state = this.#id ? "is left" : "may still appear";
      const reap = reapCommand(this.config.executable, this.#deps.dockerHost);
      this.#deps.log?.(
        `warning: container ${this.#name} ${state} on ${this.#engineName()}: ${how}\`${reap}\` removes it`,
      );
    })();
    return this.#closing;
  }

  #engineName(): string {
    return engineName(this.#deps.dockerHost, this.config.executable);
  }

  /** Names the engine CLI's own environment sets: their forwarded values stay on the argv. */
  #reserved = (): ReadonlySet<string> =>
    new Set(this.#deps.dockerHost ? ["DOCKER_HOST", "CONTAINER_HOST"] : []);

  /**
   * After a command that did not exit 0: end the run when the container is gone or the engine stopped
   * answering or cannot be reached.
   * @throws {EnvironmentLost} naming the container or the engine and why
   */
  async #checkAlive(): Promise<void> {
    if (this.#stop.signal.aborted) return;
    const state = await this.#state();
    if (state.kind !== "running") this.#lose(state);
  }

  /** @throws {EnvironmentLost} naming the container or the engine and why */
  #lose(state: ContainerState): never {
    this.#engineLost = state.kind !== "gone";
    const why = lostReason(state, this.#name, this.#engineName(), this.#probeSeconds, this.config.executable);
    if (this.#engineLost) this.#fault = { kind: "down", host: this.#deps.dockerHost ?? "", message: why };
    throw new EnvironmentLost(exitMessage("EnvironmentLost", "", why));
  }

  /** What the engine says about the container, within the probe's deadline. */
  #state(): Promise<ContainerState> {
    return probeContainer(this.config.executable, this.#id, this.#cliEnv, this.#probeSeconds);
  }

  /** Kill the command's whole process group inside the container (bounded: a frozen engine must not hold us). */
  async #killInside(marker: string): Promise<void> {
    await runCommand([this.config.executable, "exec", this.#id, "sh", "-c", KILL_SCRIPT, "sh", marker], {
      timeoutSeconds: this.#probeSeconds,
      ...this.#env(),
    });
  }

  /** `docker rm -f`: removed, already gone, or failed (logged, never thrown). */
  async #remove(ref: string): Promise<"removed" | "gone" | "failed"> {
    const { result, why } = await removeContainer(
      this.config.executable,
      ref,
      this.#cliEnv,
      HOUSEKEEPING_TIMEOUT,
    );
    if (why) this.#deps.log?.(`warning: cannot remove container ${ref}: ${why}`);
    return result;
  }
}

/** The registry's constructor of `environment_class: docker` and `podman` (see `classes.ts`). */
export function createEnvironment({ name, own, deps, runSeconds }: EnvironmentContext): DockerEnvironment {
  return new DockerEnvironment(own, {
    hostEnv: deps.hostEnv,
    runId: deps.runId,
    log: deps.log,
    runSeconds,
    ...(deps.dockerHost ? { dockerHost: deps.dockerHost } : {}),
  }, name === "podman" ? "podman" : "docker");
}
