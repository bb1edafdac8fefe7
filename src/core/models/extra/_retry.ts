/**
 * Retries with exponential backoff and full jitter, honouring `Retry-After`, for transient failures
 * only. Anything not marked {@link TransientError} propagates at once. Loaded at a request's first
 * failure (`../_transport.ts`): a run whose requests all succeed never loads it.
 *
 * @module
 */
import { ApiError } from "../../errors.ts";
import { MAX_TIMER_MS } from "../../../lib/timers.ts";

/** A delay the server asked for, and the header that asked. */
export interface RetryAfter {
  ms: number;
  header: "retry-after-ms" | "Retry-After";
}

/** The statuses another attempt may fix: 408, 409, 429 and every 5xx (litellm's and OpenAI's rule). */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A failure worth retrying: {@link retryableStatus}, a network error, a missed deadline, a malformed body. */
export class TransientError extends Error {
  /** HTTP status, 0 when there was none. */
  readonly status: number;
  /** Delay the server asked for (`retry-after-ms` or `Retry-After`). */
  readonly retryAfter: RetryAfter | undefined;
  /** No server answered: the connection was refused, or the host name was not found. */
  readonly unreachable: "refused" | "dns" | undefined;
  /** What to check, when the failure is not the endpoint's (a token endpoint's): replaces the policy's advice. */
  readonly advice: string | undefined;
  /**
   * @param message one line describing the failure
   * @param status HTTP status, 0 when there was none
   * @param retryAfter the delay the server asked for
   * @param options the cause, whether no server answered at all, and what to check
   */
  constructor(
    message: string,
    status = 0,
    retryAfter?: RetryAfter,
    options?: ErrorOptions & { unreachable?: "refused" | "dns"; advice?: string },
  ) {
    super(message, options);
    this.name = "TransientError";
    this.status = status;
    this.retryAfter = retryAfter;
    this.unreachable = options?.unreachable;
    this.advice = options?.advice;
  }
}

/**
 * Attempts at a first request that finds no server (refused, or no such host): a wrong URL or a server
 * not started is said within seconds, not after minutes of backoff. Once the endpoint has answered, a
 * later outage gets every attempt.
 */
export const FIRST_CONTACT_ATTEMPTS = 3;

/** How to retry. */
export interface RetryPolicy {
  /** Total attempts, the first included (>= 1). */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Waits between attempts; absent: {@link abortableSleep}. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  log: (line: string) => void;
  /** What to check about a failure, appended to its retry and give-up lines (`check model.base_url`). */
  advice?: (error: TransientError) => string;
  /** Whether the endpoint has answered (set here, shared by every request of one client). */
  contact?: { answered: boolean };
}

/**
 * Go on after a first attempt failed with `failed`: try again until an attempt succeeds, throws a
 * non-transient error, or the attempts run out. The delay before retry n (1-based) is
 * `random() * min(maxDelay, baseDelay * 2^(n-1))`, or the delay the server asked for (see
 * {@link parseRetryAfter}) capped at `maxDelay`. Each retry logs one line.
 *
 * @param what names the operation in log lines and errors (e.g. `http://host/v1/chat/completions`)
 * @param attempt one more try (it marks `policy.contact` answered when it succeeds)
 * @param policy attempts, delays and injected effects
 * @param signal aborts at once, also during a backoff sleep; the rejection is its reason
 * @param failed what the first attempt threw
 * @throws {ApiError} when every attempt failed transiently (the last failure is the cause)
 */
export async function retry<T>(
  what: string,
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  failed: unknown,
): Promise<T> {
  const contact = policy.contact;
  let error = failed;
  for (let n = 1;; n++) {
    if (!(error instanceof TransientError)) {
      if (contact && error instanceof ApiError && error.status > 0) contact.answered = true;
      throw error;
    }
    if (contact && error.unreachable === undefined) contact.answered = true;
    const check = error.advice ?? policy.advice?.(error);
    const advice = check ? `; ${check}` : "";
    const firstContact = contact !== undefined && !contact.answered && error.unreachable !== undefined;
    const attempts = firstContact ? Math.min(policy.attempts, FIRST_CONTACT_ATTEMPTS) : policy.attempts;
    if (n >= attempts) {
      const first = firstContact && attempts < policy.attempts
        ? " (a first request that finds no server)"
        : "";
      throw new ApiError(
        `Cannot query model: giving up after ${n} attempt${
          n === 1 ? "" : "s"
        }${first} to ${what}: ${error.message}${advice}`,
        error.status,
        { cause: error },
      );
    }
    let delay = policy.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
    let note = "";
    if (error.retryAfter !== undefined) {
      delay = Math.min(error.retryAfter.ms, policy.maxDelayMs);
      note = ` (server asked for ${seconds(error.retryAfter.ms)} s via ${error.retryAfter.header})`;
    }
    policy.log(
      `Retrying model query to ${what} in ${seconds(delay)} s${note}, attempt ${
        n + 1
      }/${attempts}: ${error.message}${advice}`,
    );
    await (policy.sleep ?? abortableSleep)(delay, signal);
    signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (next) {
      error = next;
    }
  }
}

/**
 * The delay a response asks for: OpenAI's `retry-after-ms` (milliseconds), else `Retry-After` (delay
 * seconds or an HTTP date). A value that asks for no wait at all (`0`, a negative number, a date in the
 * past) or cannot be read (`soon`, `-1`, an unknown date format) counts as absent, so the normal
 * backoff applies: a server that says "now" to every retry would otherwise spend the attempts at once.
 *
 * @param headers the response headers
 * @param now the current time in ms since the epoch (for dates)
 * @returns milliseconds to wait (> 0) and the header that said so, or undefined
 */
export function parseRetryAfter(headers: Headers, now = Date.now()): RetryAfter | undefined {
  const ms = positive(headers.get("retry-after-ms"));
  if (ms !== undefined) return { ms, header: "retry-after-ms" };
  const text = headers.get("retry-after")?.trim() ?? "";
  const seconds = positive(text);
  if (seconds !== undefined) return { ms: seconds * 1000, header: "Retry-After" };
  // An HTTP date names its weekday or month; Date.parse alone also reads "-1" or "7" as years.
  const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : NaN;
  return date > now ? { ms: date - now, header: "Retry-After" } : undefined;
}

/** A header value of digits (a decimal fraction allowed) above 0, as a number. */
function positive(value: string | null): number | undefined {
  const text = value?.trim() ?? "";
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : 0;
  return n > 0 && Number.isFinite(n) ? n : undefined;
}

/**
 * Sleep that an abort signal cuts short; the rejection is the signal's reason.
 *
 * @param ms how long to wait (at most {@link MAX_TIMER_MS})
 * @param signal aborts the wait
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER_MS));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 2 : 0);
}
