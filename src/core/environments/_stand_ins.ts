/**
 * Upstream's SWE-ReX environments (`swerex_docker`, and `swerex_modal`, a Modal cloud sandbox), which
 * claudius lacks: each runs as claudius's `docker` environment with the same image, working
 * directory, timeout and variables, announced by one note. Their own keys are accepted; those with a
 * docker counterpart are translated, the rest are named in the note as not acted on.
 *
 * @module
 */
import type { Keys } from "../config/keys.ts";
import type { StandIn } from "../config/schema.ts";
import { DOCKER_KEYS } from "./_docker_config.ts";

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

const without = (config: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(Object.entries(config).filter(([k]) => !keys.includes(k)));

/** The stand-ins, by upstream's class name. */
export const SWEREX_STAND_INS: Record<string, StandIn> = {
  swerex_docker: {
    runsAs: "docker",
    note: "note: environment_class swerex_docker runs as claudius's docker environment (same image, cwd, " +
      "timeout and env; deployment_extra_kwargs not acted on)",
    translate: (resolved) => without(resolved, ["deployment_extra_kwargs"]),
  },
  swerex_modal: {
    runsAs: "docker",
    note: "note: environment_class swerex_modal runs in a local docker container (claudius has no Modal " +
      "backend): same image, cwd, timeout and env; startup_timeout and runtime_timeout stand in for " +
      "pull_timeout and container_timeout; deployment_timeout, install_pipx and modal_sandbox_kwargs are not " +
      "acted on",
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
};
