/**
 * The environment classes, one row each: the name a config gives as `environment.environment_class`,
 * the type its trajectories record, the keys it reads, one line of documentation and the loader of its
 * module (the classes in `extra/` are loaded only when a config picks them); upstream's classes that
 * run as another one; and the factory that builds the environment a config names. Construction,
 * `claudius resume` and `replay` (recorded type -> class), `--help` and the config reference all read
 * these rows. A new class is its module and its row.
 *
 * @module
 */
import type { Keys } from "../config/keys.ts";
import { ConfigError } from "../errors.ts";
import type { Environment } from "../types.ts";
import { resolvePath } from "../../lib/paths.ts";
import {
  BUBBLEWRAP_KEYS,
  configuredBashEnv,
  CONTREE_KEYS,
  DOCKER_KEYS,
  LOCAL_KEYS,
  PODMAN_KEYS,
  SINGULARITY_KEYS,
  SWEREX_DOCKER_KEYS,
  SWEREX_MODAL_KEYS,
} from "./_keys.ts";
import type { EnvironmentDeps, EnvironmentRow } from "./environment_class.ts";

export type {
  EnvironmentContext,
  EnvironmentDeps,
  EnvironmentModule,
  EnvironmentRow,
} from "./environment_class.ts";

const T = "claudius.environments.";
const DOCKER_TYPE = `${T}DockerEnvironment`;
const docker = () => import("./extra/docker.ts");

const without = (config: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(Object.entries(config).filter(([k]) => !keys.includes(k)));

/** Every environment class, by the name a config gives it. */
export const ENVIRONMENT_CLASSES: Readonly<Record<string, EnvironmentRow>> = {
  local: {
    type: `${T}LocalEnvironment`,
    keys: LOCAL_KEYS,
    doc: "bash on the host",
    host: true,
    load: () => import("./local.ts"),
  },
  docker: {
    type: DOCKER_TYPE,
    keys: DOCKER_KEYS,
    doc: "one container per run, each action a `docker exec`",
    load: docker,
  },
  podman: {
    type: DOCKER_TYPE,
    keys: PODMAN_KEYS,
    doc: "docker with `executable: podman`",
    group: "docker",
    load: docker,
  },
  bubblewrap: {
    type: `${T}BubblewrapEnvironment`,
    keys: BUBBLEWRAP_KEYS,
    doc: "local inside `bwrap`: system dirs read-only, working directory writable",
    host: true,
    load: () => import("./extra/bubblewrap.ts"),
  },
  singularity: {
    type: `${T}SingularityEnvironment`,
    keys: SINGULARITY_KEYS,
    doc: "Apptainer/SingularityCE: a writable sandbox built from the image, each action a " +
      "`singularity exec` (executable `apptainer` for Apptainer)",
    load: () => import("./extra/singularity.ts"),
  },
  swerex_docker: {
    type: DOCKER_TYPE,
    keys: SWEREX_DOCKER_KEYS,
    doc: "upstream's SWE-ReX docker environment: runs as `docker`, with a note",
    group: "docker",
    standIn: {
      runsAs: "docker",
      note: "note: environment_class swerex_docker runs as claudius's docker environment (same image, cwd, " +
        "timeout and env; deployment_extra_kwargs not acted on)",
      translate: (resolved) => without(resolved, ["deployment_extra_kwargs"]),
    },
    load: docker,
  },
  swerex_modal: {
    type: DOCKER_TYPE,
    keys: SWEREX_MODAL_KEYS,
    doc: "upstream's Modal sandbox: runs as a local `docker` container, with a note",
    group: "docker",
    standIn: {
      runsAs: "docker",
      note: "note: environment_class swerex_modal runs in a local docker container (claudius has no Modal " +
        "backend): same image, cwd, timeout and env; startup_timeout and runtime_timeout stand in for " +
        "pull_timeout and container_timeout; deployment_timeout, install_pipx and modal_sandbox_kwargs are " +
        "not acted on",
      translate: (resolved, given) => {
        const out = without(resolved, [
          "startup_timeout",
          "runtime_timeout",
          "deployment_timeout",
          "install_pipx",
          "modal_sandbox_kwargs",
        ]);
        if (given.pull_timeout === undefined && typeof resolved.startup_timeout === "number") {
          out.pull_timeout = resolved.startup_timeout;
        }
        if (given.container_timeout === undefined && typeof resolved.runtime_timeout === "number") {
          out.container_timeout = `${resolved.runtime_timeout}s`;
        }
        return out;
      },
    },
    load: docker,
  },
  contree: {
    type: "",
    keys: CONTREE_KEYS,
    doc: "upstream's ConTree cloud sandbox: refused before the run (claudius has no ConTree client), " +
      "naming docker and singularity instead",
    missing: true,
    load: () => import("./extra/contree.ts"),
  },
};

/** The class used when no config sets `environment.environment_class`. */
export const DEFAULT_ENVIRONMENT_CLASS = "local";

const E = "minisweagent.environments.";
/**
 * Every environment class upstream has had (v1.10 to v2.4), by the dotted path its trajectories
 * record as `info.config.environment_type` and its configs may give as `environment_class`, with
 * the claudius class that runs in its place (a podman run is `docker` with `executable: podman`).
 */
export const UPSTREAM_ENVIRONMENT_CLASSES: Readonly<Record<string, string>> = {
  [`${E}local.LocalEnvironment`]: "local",
  [`${E}docker.DockerEnvironment`]: "docker",
  [`${E}singularity.SingularityEnvironment`]: "singularity",
  [`${E}extra.bubblewrap.BubblewrapEnvironment`]: "bubblewrap",
  [`${E}extra.swerex_docker.SwerexDockerEnvironment`]: "swerex_docker",
  [`${E}extra.swerex_modal.SwerexModalEnvironment`]: "swerex_modal",
  [`${E}extra.contree.ContreeEnvironment`]: "contree",
};

/**
 * The claudius class that runs in place of an upstream environment class, if claudius has one.
 * @param name the dotted path or upstream's short name (`docker`)
 * @param classes the registry (default: claudius's)
 */
export function upstreamEnvironmentClass(
  name: string,
  classes: Readonly<Record<string, EnvironmentRow>> = ENVIRONMENT_CLASSES,
): string | undefined {
  const cls =
    (Object.hasOwn(UPSTREAM_ENVIRONMENT_CLASSES, name) ? UPSTREAM_ENVIRONMENT_CLASSES[name] : undefined) ??
      name;
  return Object.hasOwn(classes, cls) ? cls : undefined;
}

/**
 * Whether a class runs its commands in a directory of this machine (its row's `host`): such a run
 * without a working directory gets a fresh one, and a resume goes on in it.
 * @param classes the registry (default: claudius's)
 */
export function runsOnHost(
  cls: string,
  classes: Readonly<Record<string, EnvironmentRow>> = ENVIRONMENT_CLASSES,
): boolean {
  return Object.hasOwn(classes, cls) && classes[cls]!.host === true;
}

/**
 * Warn before the first step when the `BASH_ENV` the environment sources hangs, fails or is slow
 * (`extra/bash_env.ts`, loaded only for a config that sets one).
 * @param env the started environment
 * @param config its resolved config
 * @param log receives the warning
 * @param signal aborts the probe (Ctrl-C)
 */
export async function probeBashEnv(
  env: Environment,
  config: Record<string, unknown>,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (configuredBashEnv(config) === undefined) return;
  await (await import("./extra/bash_env.ts")).warnSlowBashEnv(env, config, log, signal);
}

/** Keys of upstream's environments claudius accepts with a warning and does not act on (none now). */
export const ENVIRONMENT_UPSTREAM_ONLY: Keys = {} as const satisfies Keys;

/**
 * Build the environment named by `environment.environment_class` (not started yet). `runSeconds`:
 * the run's wall-time limit (0: none), which a container outlives.
 * @param classes the registry (default: claudius's; a test adds its own rows)
 * @throws {ConfigError} for an unknown class, or a working directory that cannot be used
 */
export async function makeEnvironment(
  config: Record<string, unknown>,
  deps: EnvironmentDeps,
  runSeconds = 0,
  classes: Readonly<Record<string, EnvironmentRow>> = ENVIRONMENT_CLASSES,
): Promise<Environment> {
  const { environment_class: cls = DEFAULT_ENVIRONMENT_CLASS, ...own } = config;
  const name = String(cls);
  const row = Object.hasOwn(classes, name) ? classes[name] : undefined;
  if (!row) {
    throw new ConfigError(
      `Unknown environment.environment_class '${cls}' (known: ${Object.keys(classes).join(", ")})`,
    );
  }
  const given = row.host ? await hostWorkdir(own, deps) : own;
  return await (await row.load()).createEnvironment({ name, own: given, deps, runSeconds });
}

/**
 * The working directory of a class that runs commands on this machine (`host` rows): `environment.cwd`
 * relative to where claudius runs; `./workspace` when unset. A configured one is created only when asked
 * (`deps.createCwd`: a mistyped --cwd would be a new empty directory the model works in without a word).
 * @throws {ConfigError} when the directory is a file, does not exist (unless asked), or cannot be made
 */
async function hostWorkdir(
  own: Record<string, unknown>,
  deps: EnvironmentDeps,
): Promise<Record<string, unknown>> {
  const cwd = resolvePath(String(own.cwd || "workspace"), deps.cwd);
  const cannot = (why: string, fix = "give a directory (--cwd DIR)") =>
    new ConfigError(`Cannot use environment.cwd '${cwd}': ${why}; ${fix}`);
  const found = await Deno.stat(cwd).catch(() => undefined);
  if (found && !found.isDirectory) throw cannot("it is a file");
  if (!found && own.cwd && !deps.createCwd) {
    throw cannot("it does not exist", "check the path (--cwd DIR), or pass --create-cwd to create it");
  }
  if (!found) {
    await Deno.mkdir(cwd, { recursive: true }).catch((e) => {
      throw cannot(
        e instanceof Deno.errors.AlreadyExists ? "it is a file" : `cannot create it: ${e.message}`,
      );
    });
  }
  return { ...own, cwd };
}
