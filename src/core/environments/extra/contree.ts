/**
 * Upstream's `contree` environment (a ConTree cloud sandbox through Nebius's `contree-sdk`): claudius has
 * no client for that cloud, so a config naming it is refused before anything runs, with what to use
 * instead. Its keys are upstream's (`CONTREE_KEYS`), so such a config still loads (and
 * `claudius config check` shows it).
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import type { Environment } from "../../types.ts";

/**
 * The refusal of `environment_class: contree`.
 * @throws {ConfigError} always, naming docker and singularity instead
 */
export function createEnvironment(): Environment {
  throw new ConfigError(
    "Cannot use environment.environment_class 'contree': it runs in ConTree's cloud through Nebius's " +
      "Python SDK, which claudius does not have; run the same image locally with " +
      "-c environment.environment_class=docker (environment.image, cwd, env and timeout carry over), or " +
      "on a cluster with singularity",
  );
}
