/**
 * The singularity environment's config keys: upstream's `SingularityEnvironmentConfig`, with the
 * keys every environment class shares (a small file: read at start-up, singularity.ts only when used).
 *
 * @module
 */
import type { ConfigOf, Keys } from "../config/keys.ts";
import { COMMON_ENVIRONMENT_KEYS } from "./_common_keys.ts";

/** The keys of `environment_class: singularity`. */
export const SINGULARITY_KEYS = {
  ...COMMON_ENVIRONMENT_KEYS,
  image: {
    type: "string",
    required: "set environment.image: -c environment.image=IMAGE, or claudius --image IMAGE",
    doc: "What the sandbox is built from (`singularity build --sandbox <dir> <image>`): `docker://...`, " +
      "a `.sif` file, a sandbox directory.",
  },
  cwd: { ...COMMON_ENVIRONMENT_KEYS.cwd, default: "/" },
  forward_env: {
    type: "string[]",
    default: [],
    doc: "Names of host variables copied into every command when set on the host (as " +
      "`SINGULARITYENV_<NAME>`/`APPTAINERENV_<NAME>` in the CLI's environment, not on its argv).",
  },
  executable: {
    type: "string",
    default: "singularity",
    envVar: "MSWEA_SINGULARITY_EXECUTABLE",
    doc: "The CLI: `singularity` or `apptainer`.",
  },
  sandbox_build_retries: {
    type: "int",
    default: 3,
    min: 1,
    doc: "Attempts at building the sandbox before the run fails.",
  },
  global_args: {
    type: "string[]",
    default: ["--quiet"],
    doc: "Arguments before the subcommand of every `exec` (e.g. `--quiet`, `--debug`).",
  },
  exec_args: {
    type: "string[]",
    default: ["--contain", "--cleanenv", "--fakeroot"],
    doc: "Arguments of `singularity exec`, before claudius's `--pwd`, `--env` and `--writable <sandbox>`.",
  },
} as const satisfies Keys;

/** The resolved config of `SingularityEnvironment`, as saved in the trajectory and seen by templates. */
export type SingularityEnvironmentConfig = ConfigOf<typeof SINGULARITY_KEYS>;
