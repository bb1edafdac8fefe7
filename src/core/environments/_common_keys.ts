/**
 * The config keys every environment class shares (working directory, variables, timeout,
 * interpreter). Each class spreads them into its own table and sets its own defaults.
 *
 * @module
 */
import type { Keys } from "../config/keys.ts";

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
