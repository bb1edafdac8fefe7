/**
 * ExecOutputs for commands that did not finish normally, worded as upstream's (Python) ones.
 *
 * @module
 */
import type { ExecOutput } from "../../types.ts";

/** Upstream's prefix of every `exception_info`. */
export const EXCEPTION_PREFIX = "An error occurred while executing the command: ";

/** An ExecOutput with returncode -1, upstream's `exception_info` and the Python exception name. */
export function failure(output: string, type: string, message: string): ExecOutput {
  return {
    output,
    returncode: -1,
    exception_info: EXCEPTION_PREFIX + message,
    extra: { exception_type: type, exception: message },
  };
}

/** Python's exception class name for an OS error, so trajectories read like upstream's. */
export function pythonName(e: unknown): string {
  if (e instanceof Deno.errors.NotFound) return "FileNotFoundError";
  if (e instanceof Deno.errors.PermissionDenied) return "PermissionError";
  return e instanceof Error ? e.name : "Error";
}

/** How long a command ended by a signal from outside waits for the run's own stop. */
export const SIGNAL_GRACE_MS = 1000;

/**
 * Whether `signal` aborts within `ms`. A command that a signal from outside ended (scancel signals
 * every process of a Slurm job, Ctrl-C the terminal's whole group) usually means claudius's own
 * stop is a moment away: waiting for it ends the run as stopped instead of going on to the next
 * model call with what the cut-off command printed.
 */
export function abortedWithin(signal: AbortSignal | undefined, ms = SIGNAL_GRACE_MS): Promise<boolean> {
  if (!signal) return Promise.resolve(false);
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (aborted: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(aborted);
    };
    const onAbort = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
