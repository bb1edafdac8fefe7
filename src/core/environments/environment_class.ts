/**
 * What an environment class is to the registry (`classes.ts`): its row (recorded type, keys, doc and
 * the loader of its module) and what its module's `createEnvironment` is given. A type-only module:
 * the classes import it without importing the registry.
 *
 * @module
 */
import type { Keys } from "../config/keys.ts";
import type { StandIn } from "../config/schema.ts";
import type { Environment } from "../types.ts";

/** One environment class, as configs name it by `environment.environment_class`. */
export interface EnvironmentRow {
  /** Recorded as `info.config.environment_type` (classes sharing one: a resume picks the first row). */
  type: string;
  /** The `environment:` keys the class reads. */
  keys: Keys;
  /** One line for `--help` and the config reference. */
  doc: string;
  /** The class whose keys this one shares, so the README lists them once. */
  group?: string;
  /**
   * Commands run in a directory of this machine (`environment.cwd`, resolved and created by the
   * registry before the class is built): a run without one gets a fresh `./workspace/<run time>/`,
   * and a resume goes on in it (a container class starts anew instead).
   */
  host?: true;
  /** An upstream class claudius lacks: it runs as another row, announced by one note. */
  standIn?: StandIn;
  /** Upstream's class claudius has no backend for: its configs load, a run naming it is refused. */
  missing?: true;
  /** Loads the class's module (a literal `import()`, so `deno compile` embeds it). */
  load: () => Promise<EnvironmentModule>;
}

/** What a class's module exports for the registry. */
export interface EnvironmentModule {
  /**
   * Build the environment (not started yet).
   * @throws {ConfigError} for a config the class cannot run with
   */
  createEnvironment(context: EnvironmentContext): Environment | Promise<Environment>;
}

/** What building one environment is given. */
export interface EnvironmentContext {
  /** The class name the config gave (`docker`, `podman`). */
  name: string;
  /** The `environment:` section, less `environment_class`. */
  own: Record<string, unknown>;
  /** The episode's deps. */
  deps: EnvironmentDeps;
  /** The run's wall-time limit in seconds (0: none), which a container outlives. */
  runSeconds: number;
}

/** What building an environment needs from the episode. */
export interface EnvironmentDeps {
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
