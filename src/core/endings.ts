/**
 * Which endings of a run say something about the agent, and which only that the run was cut short
 * under it: the one rule a batch rerun (what it runs again) and the tools that count (`stats`,
 * `compare`, `report`: what counts in no rate) share.
 *
 * @module
 */
import { GLOBAL_LIMIT_MESSAGE, SIGNAL_STATUSES } from "./errors.ts";

/**
 * Exit statuses that end a run on the infrastructure, not on the agent: the environment was lost, a
 * signal stopped the run, the model's provider failed after the retries (no connection, no answer in
 * time, rate-limited, a server error: the failures the retry policy retries; `APIError` is litellm's
 * name for a status it has no class for, a 502 from a gateway among them, and for a body that was not
 * JSON after the retries), or the endpoint refused the key or the model (`AuthenticationError`,
 * `PermissionDeniedError`, `NotFoundError`: a key that expired halfway through a batch, a mistyped
 * model name). A batch rerun runs such a run again, and no rate counts it. A request the conversation
 * made the provider refuse (`BadRequestError`, `ContextWindowExceededError`,
 * `ContentPolicyViolationError`) stays the agent's. (A failed start, a run not ended and one the
 * global limit stopped are recognised by their shape instead, see {@link excludedEnding}.)
 */
export const INFRASTRUCTURE_STATUSES: ReadonlySet<string> = new Set([
  "EnvironmentLost",
  ...Object.values(SIGNAL_STATUSES),
  "APIConnectionError",
  "Timeout",
  "RateLimitError",
  "InternalServerError",
  "ServiceUnavailableError",
  "APIError",
  "AuthenticationError",
  "PermissionDeniedError",
  "NotFoundError",
]);

/** How a run ended, as its trajectory records it. */
export interface RecordedEnding {
  /** The exit status; "" when the trajectory has no exit (the run has not ended, or was killed). */
  status: string;
  /** Messages in the trajectory: 1 when it holds only the exit message (the model was never reached). */
  messages: number;
  /** The exit message's text. */
  content: string;
}

/**
 * Why a run counts in no rate and a batch rerun runs it again, or undefined when its ending is the
 * agent's own (a verdict can be given on it):
 * - it has not ended (no exit status: still running, or killed with SIGKILL);
 * - its exit status is one of {@link INFRASTRUCTURE_STATUSES};
 * - it ended before the model was reached (only the exit message: the environment or its startup
 *   command failed, or the instance's setup did);
 * - the global cost/call limit stopped it (`MSWEA_GLOBAL_COST_LIMIT`; a rerun with a larger budget goes on).
 *
 * @example
 * ```ts
 * import { excludedEnding } from "./endings.ts";
 * excludedEnding({ status: "Submitted", messages: 9, content: "" }); // undefined
 * excludedEnding({ status: "EnvironmentLost", messages: 9, content: "" }); // "EnvironmentLost"
 * ```
 */
export function excludedEnding(end: RecordedEnding): string | undefined {
  if (end.status === "") return "not ended";
  if (INFRASTRUCTURE_STATUSES.has(end.status)) return end.status;
  if (end.messages <= 1) return `${end.status} before the model was reached`;
  if (end.status === "RuntimeError" && end.content.startsWith(GLOBAL_LIMIT_MESSAGE)) {
    return "stopped by the global cost/call limit";
  }
  return undefined;
}
