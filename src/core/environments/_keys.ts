/**
 * The config keys of every environment class, in one file the registry (`classes.ts`) reads at
 * start-up without loading the classes in `extra/`: the keys all classes share (working directory,
 * variables, timeout, interpreter), which each spreads into its own table with its own defaults, and
 * each class's own.
 *
 * @module
 */
import type { ConfigOf, Keys } from "../config/keys.ts";
import { isPlainObject } from "../../lib/json.ts";

/** Keys of every environment class. */
export const COMMON_ENVIRONMENT_KEYS = {
  cwd: {
    type: "string",
    default: "",
    doc: "Working directory of every command, created. Local and bubblewrap, when empty: a new " +
      "`./workspace/<run time>/` for each `claudius` run, `<out>/<id>/workspace` in a batch; " +
      "docker, podman, singularity: `/` when empty (singularity passes no `--pwd` for `/`, as upstream).",
  },
  env: {
    type: "string-map",
    default: {},
    // A variable no process environment can hold would make every command fail to start.
    check: (v) =>
      Object.entries(v).some(([k, x]) => k === "" || /[=\0]/.test(k) || String(x).includes("\0"))
        ? "must name variables (a name not empty, without '=' or a NUL byte; a value without a NUL byte)"
        : undefined,
    doc: "Variables set for every command; they win over the host's and over `forward_env`.",
  },
  timeout: {
    type: "number",
    default: 30,
    min: 0,
    doc: "Seconds an action may run; then its whole process group is killed (inside the container " +
      "too), returncode -1, partial output kept; 0 = none.",
  },
  interpreter: {
    type: "string[]",
    default: ["bash", "-c"],
    nonEmpty: true,
    doc: "Argv the command is appended to.",
  },
} as const satisfies Keys;

/**
 * The `BASH_ENV` an environment's config sets in its `env` key, if any: what bash sources before every
 * command where the class lets it (all but local; see `extra/bash_env.ts`).
 * @param config the environment's resolved config
 */
export function configuredBashEnv(config: Record<string, unknown>): string | undefined {
  const rc = isPlainObject(config.env) ? config.env.BASH_ENV : undefined;
  return typeof rc === "string" ? rc : undefined;
}

/** The keys of `environment_class: local`. */
export const LOCAL_KEYS: typeof COMMON_ENVIRONMENT_KEYS = COMMON_ENVIRONMENT_KEYS;

/** The keys of `environment_class: docker` (and `podman`). */
export const DOCKER_KEYS = {
  ...COMMON_ENVIRONMENT_KEYS,
  image: {
    type: "string",
    required: "set environment.image: -c environment.image=IMAGE, or claudius --image IMAGE",
    doc: "Container image; pulled by `docker run` when missing, within `pull_timeout`.",
  },
  cwd: { ...COMMON_ENVIRONMENT_KEYS.cwd, default: "/" },
  forward_env: {
    type: "string[]",
    default: [],
    doc: "Names of host variables copied into every command when set on the host.",
  },
  executable: {
    type: "string",
    default: "docker",
    envVar: "MSWEA_DOCKER_EXECUTABLE",
    doc: "Container CLI: `docker` or `podman`.",
  },
  run_args: {
    type: "string[]",
    default: ["--rm"],
    doc: "Extra `docker run` arguments, before the image. With `--env docker` and no config setting " +
      "them: ProgramBench's isolation (`--network none`, no SYS_PTRACE, `--init`, CPU and memory caps).",
  },
  container_timeout: {
    type: "string",
    default: "2h",
    doc: "`sleep` duration keeping the container alive; when the run's `agent.wall_time_limit_seconds` " +
      "plus 10 minutes is longer, that (upstream: this alone, so a 6 h run died at 2 h). The container is " +
      "removed when the run ends either way.",
  },
  pull_timeout: {
    type: "number",
    default: 120,
    min: 0,
    doc: "Seconds allowed for `docker run -d`, image pull included.",
  },
  interpreter: { ...COMMON_ENVIRONMENT_KEYS.interpreter, default: ["bash", "-lc"] },
} as const satisfies Keys;

/** The resolved config of `DockerEnvironment`, as saved in the trajectory and seen by templates. */
export type DockerEnvironmentConfig = ConfigOf<typeof DOCKER_KEYS>;

/**
 * The keys of `environment_class: podman`: docker's, run with the podman CLI (`executable` defaults to
 * `podman`; `MSWEA_DOCKER_EXECUTABLE` is docker's and does not apply).
 */
export const PODMAN_KEYS = {
  ...DOCKER_KEYS,
  executable: { type: "string", default: "podman", doc: "Container CLI: `podman` (or a path to it)." },
} as const satisfies Keys;

/** The keys of `environment_class: bubblewrap`. */
export const BUBBLEWRAP_KEYS = {
  ...COMMON_ENVIRONMENT_KEYS,
  executable: {
    type: "string",
    default: "bwrap",
    envVar: "MSWEA_BUBBLEWRAP_EXECUTABLE",
    doc: "The bubblewrap binary.",
  },
  wrapper_args: {
    type: "string[]",
    defaultDoc: "upstream's, less `--new-session`",
    doc: "Arguments right after `bwrap`. Default: `--unshare-user-try`, `/usr /bin /sbin /lib /lib64 /etc` " +
      "read-only (those that exist; symlinks stay symlinks), `--tmpfs /tmp --proc /proc --dev /dev`, " +
      "`--setenv PATH /usr/local/bin:/usr/sbin:/usr/bin:/bin`. claudius then adds `--die-with-parent`, " +
      "`--bind <cwd> <cwd> --chdir <cwd>` and one `--setenv` per `env` entry.",
  },
  network: {
    type: "bool",
    default: true,
    doc: "`false` adds `--unshare-net`: the sandbox sees only a loopback interface.",
  },
} as const satisfies Keys;

/** The resolved config of `BubblewrapEnvironment` (`wrapper_args` filled in by the environment). */
export type BubblewrapEnvironmentConfig = ConfigOf<typeof BUBBLEWRAP_KEYS>;

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

/** `swerex_docker`'s keys: docker's, plus the deployment's. */
export const SWEREX_DOCKER_KEYS = {
  ...DOCKER_KEYS,
  deployment_extra_kwargs: { type: "object", default: {}, doc: "Not acted on (SWE-ReX's)." },
} as const satisfies Keys;

/** `swerex_modal`'s keys: docker's, plus Modal's. */
export const SWEREX_MODAL_KEYS = {
  ...DOCKER_KEYS,
  startup_timeout: {
    type: "number",
    min: 0,
    doc: "Stands in for `pull_timeout` when that is not set.",
  },
  runtime_timeout: {
    type: "number",
    min: 0,
    doc: "The sandbox's lifetime, seconds; stands in for `container_timeout` when that is not set.",
  },
  deployment_timeout: { type: "number", min: 0, doc: "Not acted on (Modal's)." },
  install_pipx: { type: "bool", doc: "Not acted on (Modal's)." },
  modal_sandbox_kwargs: { type: "object", doc: "Not acted on (Modal's)." },
} as const satisfies Keys;

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
