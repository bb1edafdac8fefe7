/**
 * Timer facts shared by every part that waits (command timeouts, request deadlines, backoff).
 *
 * @module
 */

/** The longest timer `setTimeout` keeps (2^31-1 ms, ~24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A deadline: when (`performance.now()` time) and what to call. */
type Deadline = { at: number; fire: () => void };

/** The deadlines not yet due nor cancelled. */
const pending = new Set<Deadline>();
/** The timer set for the soonest deadline (a later one needs none of its own). */
let armed: { at: number; signal: AbortSignal } | undefined;

/**
 * Have a timer for `at`: the one set, when it is due then or sooner, else a new one. Only that timer
 * is listened to, and only while a deadline is pending: a listened-to timer keeps Deno running.
 */
function arm(at: number): void {
  if (armed === undefined || armed.signal.aborted || armed.at > at) {
    armed?.signal.removeEventListener("abort", onTime);
    armed = { at, signal: AbortSignal.timeout(Math.max(0, at - performance.now())) };
  }
  armed.signal.addEventListener("abort", onTime, { once: true });
}

/** The timer fired: call what is due, after the next timer is set (a deadline that throws loses no other). */
function onTime(): void {
  armed = undefined;
  const now = performance.now(), due: Deadline[] = [];
  let next = Infinity;
  for (const d of pending) {
    if (d.at > now) next = Math.min(next, d.at);
    else {
      pending.delete(d);
      due.push(d);
    }
  }
  if (next < Infinity) arm(next);
  for (const d of due) d.fire();
}

/**
 * Call `fire` after `ms` (capped at {@link MAX_TIMER_MS}) unless the returned function is called
 * first. For deadlines on work that keeps the process alive by itself (a request, a child process):
 * a pending deadline keeps it alive too, a cancelled one does not. The timers are `AbortSignal.timeout`,
 * not `setTimeout`, because Deno 2.9 loads its Node-compatible timers on a process's first `setTimeout`
 * (~5 ms), which would sit between the start and the first request and again before the first
 * command's output. Such a timer cannot be cancelled (it and what it holds live until it fires), so
 * the deadlines share one, set for the soonest and reused by later ones; a cancelled deadline is only
 * forgotten. A timer per deadline kept ~600 bytes a step alive for the whole timeout (a request's, a
 * command's): ~2 MiB over a batch of 64 x 20 quick steps, growing with the batch.
 *
 * @example
 * ```ts
 * import { after } from "./timers.ts";
 * const cancel = after(1000, () => console.log("too late"));
 * cancel(); // never fires
 * ```
 */
export function after(ms: number, fire: () => void): () => void {
  const deadline = { at: performance.now() + Math.max(0, Math.min(ms, MAX_TIMER_MS)), fire };
  pending.add(deadline);
  arm(deadline.at);
  return () => {
    if (pending.delete(deadline) && pending.size === 0) armed?.signal.removeEventListener("abort", onTime);
  };
}
