/**
 * The environment classes, one table: each name a config can give as
 * `environment.environment_class`, the keys it reads and one line of documentation; upstream's
 * classes that run as another one; and the factory that builds the environment a config names
 * (container and sandbox classes loaded only when used).
 *
 * @module
 */
import type { Keys } from "../config/keys.ts";
import type { StandIn } from "../config/schema.ts";
import { ConfigError } from "../errors.ts";
import type { Environment } from "../types.ts";
import { resolvePath } from "../../lib/files.ts";
import { LOCAL_KEYS, LocalEnvironment } from "./local.ts";
import { DOCKER_KEYS, PODMAN_KEYS } from "./_docker_config.ts";
import { BUBBLEWRAP_KEYS } from "./_bubblewrap_config.ts";
import { SINGULARITY_KEYS } from "./_singularity_config.ts";
import { SWEREX_DOCKER_KEYS, SWEREX_MODAL_KEYS, SWEREX_STAND_INS } from "./_stand_ins.ts";
import { CONTREE_KEYS, contreeRefusal } from "./_contree.ts";

/** One environment class: its keys, its documentation, the class whose keys it shares (README). */
export interface EnvironmentClass {
  /** The `environment:` keys the class reads. */
  keys: Keys;
  /** One line for `--help` and the config reference. */
  doc: string;
  /** The class whose keys this one shares, so the README lists them once. */
  group?: string;
  /** Upstream's class claudius has no backend for: its configs load, a run naming it is refused. */
  missing?: true;
}

/** Every environment class name. */
export const ENVIRONMENT_CLASSES: Readonly<Record<string, EnvironmentClass>> = {
  local: { keys: LOCAL_KEYS, doc: "bash on the host" },
  docker: { keys: DOCKER_KEYS, doc: "one container per run, each action a `docker exec`" },
  podman: { keys: PODMAN_KEYS, doc: "docker with `executable: podman`", group: "docker" },
  bubblewrap: {
    keys: BUBBLEWRAP_KEYS,
    doc: "local inside `bwrap`: system dirs read-only, working directory writable",
  },
  singularity: {
    keys: SINGULARITY_KEYS,
    doc: "Apptainer/SingularityCE: a writable sandbox built from the image, each action a " +
      "`singularity exec` (executable `apptainer` for Apptainer)",
  },
  swerex_docker: {
    keys: SWEREX_DOCKER_KEYS,
    doc: "upstream's SWE-ReX docker environment: runs as `docker`, with a note",
    group: "docker",
  },
  swerex_modal: {
    keys: SWEREX_MODAL_KEYS,
    doc: "upstream's Modal sandbox: runs as a local `docker` container, with a note",
    group: "docker",
  },
  contree: {
    keys: CONTREE_KEYS,
    doc: "upstream's ConTree cloud sandbox: refused before the run (claudius has no ConTree client), " +
      "naming docker and singularity instead",
    missing: true,
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
 */
export function upstreamEnvironmentClass(name: string): string | undefined {
  const cls =
    (Object.hasOwn(UPSTREAM_ENVIRONMENT_CLASSES, name) ? UPSTREAM_ENVIRONMENT_CLASSES[name] : undefined) ??
      name;
  return Object.hasOwn(ENVIRONMENT_CLASSES, cls) ? cls : undefined;
}

/** Upstream classes claudius lacks, and what runs in their place. */
export const ENVIRONMENT_STAND_INS: Readonly<Record<string, StandIn>> = SWEREX_STAND_INS;

/** Keys of upstream's environments claudius accepts with a warning and does not act on (none now). */
export const ENVIRONMENT_UPSTREAM_ONLY: Keys = {} as const satisfies Keys;

/** The modules of the container and sandbox classes, loaded by the command layer when a config picks one. */
export interface EnvironmentModules {
  /** Loads `docker.ts` (`docker`, `podman`). */
  docker(): Promise<typeof import("./extra/docker.ts")>;
  /** Loads `bubblewrap.ts`. */
  bubblewrap(): Promise<typeof import("./extra/bubblewrap.ts")>;
  /** Loads `singularity.ts`. */
  singularity(): Promise<typeof import("./extra/singularity.ts")>;
}

/** What building an environment needs from the episode. */
export interface EnvironmentDeps {
  /** Loads the modules of the classes not always needed. */
  modules: EnvironmentModules;
  /** The host's environment variables (`local` passes them on; engines read `DOCKER_HOST`, ...). */
  hostEnv: Record<string, string>;
  /** Receives one-line warnings and notes. */
  log: (line: string) => void;
  /** Directory a relative working directory is resolved against. */
  cwd: string;
  /** Unique id of this run (container names and labels). */
  runId: string;
  /** Engine address for container environments. */
  dockerHost?: string;
  /** Create a local or bubblewrap working directory that does not exist (`run.create_cwd`). */
  createCwd?: boolean;
}

/**
 * Build the environment named by `environment.environment_class` (not started yet). `runSeconds`:
 * the run's wall-time limit (0: none), which a container outlives.
 * @throws {ConfigError} for an unknown class, or a working directory that cannot be used
 */
export async function makeEnvironment(
  config: Record<string, unknown>,
  deps: EnvironmentDeps,
  runSeconds = 0,
): Promise<Environment> {
  const { environment_class: cls = DEFAULT_ENVIRONMENT_CLASS, ...own } = config;
  if (cls === "local" || cls === "bubblewrap") {
    // Host-side working directory: relative to where claudius runs; `./workspace` when unset. A
    // configured one is created only when asked (a mistyped --cwd would be a new empty directory the
    // model works in without a word).
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
    own.cwd = cwd;
  }
  switch (cls) {
    case "local":
      return new LocalEnvironment(own, deps.hostEnv);
    case "bubblewrap": {
      const { BubblewrapEnvironment } = await deps.modules.bubblewrap();
      return new BubblewrapEnvironment(own, deps);
    }
    case "docker":
    case "podman": {
      const { DockerEnvironment } = await deps.modules.docker();
      return new DockerEnvironment(own, {
        hostEnv: deps.hostEnv,
        runId: deps.runId,
        log: deps.log,
        runSeconds,
        ...(deps.dockerHost ? { dockerHost: deps.dockerHost } : {}),
      }, cls);
    }
    case "singularity": {
      const { SingularityEnvironment } = await deps.modules.singularity();
      return new SingularityEnvironment(own, { hostEnv: deps.hostEnv, log: deps.log });
    }
    case "contree":
      throw contreeRefusal();
    default:
      throw new ConfigError(
        `Unknown environment.environment_class '${cls}' (known: ${
          Object.keys(ENVIRONMENT_CLASSES).join(", ")
        })`,
      );
  }
}
