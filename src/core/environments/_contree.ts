/**
 * Upstream's `contree` environment (a ConTree cloud sandbox through Nebius's `contree-sdk`): claudius has
 * no client for that cloud, so a config naming it is refused before anything runs, with what to use
 * instead. Its keys are upstream's, so such a config still loads (and `claudius config check` shows it).
 *
 * @module
 */
import type { Keys } from "../config/keys.ts";
import { ConfigError } from "../errors.ts";
import { COMMON_ENVIRONMENT_KEYS } from "./_common_keys.ts";

/** `contree`'s keys, as upstream's `ContreeEnvironmentConfig` has them. */
export const CONTREE_KEYS = {
  ...COMMON_ENVIRONMENT_KEYS,
  cwd: { ...COMMON_ENVIRONMENT_KEYS.cwd, default: "/" },
  timeout: { ...COMMON_ENVIRONMENT_KEYS.timeout, default: 100 },
  contree_config: { type: "object", doc: "ConTree's client settings (its SDK's `ContreeConfig`)." },
  image: { type: "string", doc: "The OCI image the sandbox starts from." },
  image_tag: { type: "string|null", doc: "ConTree's tag of an imported image." },
  cwd_auto_create: { type: "bool", default: true, doc: "Create `cwd` before the first command." },
  forward_env: { type: "string[]", default: [], doc: "Host variables passed into the sandbox when set." },
  import_username: { type: "string|null", doc: "Registry user for importing the image." },
  import_password: { type: "string|null", doc: "Registry password for importing the image." },
} as const satisfies Keys;

/** The refusal of `environment_class: contree`. */
export function contreeRefusal(): ConfigError {
  return new ConfigError(
    "Cannot use environment.environment_class 'contree': it runs in ConTree's cloud through Nebius's " +
      "Python SDK, which claudius does not have; run the same image locally with " +
      "-c environment.environment_class=docker (environment.image, cwd, env and timeout carry over), or " +
      "on a cluster with singularity",
  );
}
