/**
 * The docker environment's config keys, their defaults and their checks.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";

/** Config of `DockerEnvironment`, as found under `environment:` in a config file. */
export interface DockerEnvironmentConfig {
  /** Selects this class: `docker` (or `podman`). */
  environment_class?: string;
  /** Image to run (required). Pulled by `docker run` when missing, within `pull_timeout`. */
  image: string;
  /** Working directory of every command inside the container. Default `"/"` (also when empty). */
  cwd?: string;
  /** Variables set for every command. Default `{}`. They win over `forward_env`. */
  env?: Record<string, string>;
  /** Names of host variables copied into every command when set on the host. Default `[]`. */
  forward_env?: string[];
  /** Seconds one action may run before it is killed (inside the container too). Default `30`. */
  timeout?: number;
  /** Container CLI: `docker` or `podman`. Default `"docker"`. */
  executable?: string;
  /** Extra `docker run` arguments, placed before the image. Default `["--rm"]`. */
  run_args?: string[];
  /** `sleep` duration that keeps the container alive. Default `"2h"`. */
  container_timeout?: string;
  /** Seconds allowed for `docker run -d`, image pull included. Default `120`. */
  pull_timeout?: number;
  /** Argv the command is appended to. Default `["bash", "-lc"]`. */
  interpreter?: string[];
}

/** The resolved config, as saved in the trajectory and exposed to templates. */
export interface ResolvedDockerConfig {
  [key: string]: unknown;
  image: string;
  cwd: string;
  env: Record<string, string>;
  forward_env: string[];
  timeout: number;
  executable: string;
  run_args: string[];
  container_timeout: string;
  pull_timeout: number;
  interpreter: string[];
}

/**
 * Apply the defaults and check every field's type.
 * @throws {ConfigError} naming the key (`environment.<key>`) and the expected type
 */
export function resolveConfig(config: DockerEnvironmentConfig): ResolvedDockerConfig {
  const {
    image,
    cwd = "",
    env = {},
    forward_env = [],
    timeout = 30,
    executable = "docker",
    run_args = ["--rm"],
    container_timeout = "2h",
    pull_timeout = 120,
    interpreter = ["bash", "-lc"],
  } = config;
  const bad = (key: string, want: string, got: unknown) =>
    new ConfigError(
      `Cannot create DockerEnvironment: environment.${key} must be ${want}, got ${JSON.stringify(got)}`,
    );
  const strings = (v: unknown) => Array.isArray(v) && v.every((a) => typeof a === "string");
  if (typeof image !== "string" || image === "") throw bad("image", "an image name", image ?? null);
  for (const [key, v] of Object.entries({ cwd, executable, container_timeout })) {
    if (typeof v !== "string") throw bad(key, "a string", v);
  }
  if (typeof env !== "object" || env === null || Array.isArray(env)) throw bad("env", "a mapping", env);
  for (const [k, v] of Object.entries(env)) {
    if (typeof v !== "string") throw bad(`env.${k}`, "a string", v);
  }
  for (const [key, v] of Object.entries({ timeout, pull_timeout })) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw bad(key, "a number of seconds >= 0", v);
  }
  if (!strings(forward_env)) throw bad("forward_env", "a list of strings", forward_env);
  if (!strings(run_args)) throw bad("run_args", "a list of strings", run_args);
  if (!strings(interpreter) || interpreter.length === 0) {
    throw bad("interpreter", "a non-empty list of strings", interpreter);
  }
  return {
    image,
    cwd: cwd || "/",
    env: { ...env },
    forward_env: [...forward_env],
    timeout,
    executable: executable || "docker",
    run_args: [...run_args],
    container_timeout,
    pull_timeout,
    interpreter: [...interpreter],
  };
}
