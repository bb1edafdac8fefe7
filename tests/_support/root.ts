/**
 * Tests that need root (a tmpfs mount, a PID namespace) are ignored where the process is not root,
 * unless CI is set: there they run, and fail without root.
 *
 * @module
 */

/** True when this process is not root and CI does not demand the tests that need root. */
export const NO_ROOT: boolean = Deno.uid() !== 0 && !Deno.env.get("CI");
