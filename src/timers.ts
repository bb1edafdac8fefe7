/**
 * Timer facts shared by every part that waits (command timeouts, request deadlines, backoff).
 *
 * @module
 */

/** The longest timer `setTimeout` keeps (2^31-1 ms, ~24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
