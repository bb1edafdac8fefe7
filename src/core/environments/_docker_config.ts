/**
 * The docker environment's config keys (a small file: read at start-up, docker.ts only when used).
 *
 * @module
 */
import type { ConfigOf, Keys } from "../config/keys.ts";
import { COMMON_ENVIRONMENT_KEYS } from "./_common_keys.ts";

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
