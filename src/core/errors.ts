/**
 * Errors in three tiers (see the README): what the model did wrong is an observation; ending a run
 * is an {@link InterruptAgentFlow} that carries the messages to append; harness failures
 * ({@link ConfigError}, {@link ApiError}, bugs) are thrown up to `main.ts`.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { redactText } from "./redact.ts";

/** Ends or redirects the loop; the agent appends `messages` and carries on or stops at an `exit`. */
export class InterruptAgentFlow extends Error {
  /** The messages the agent appends when it catches this. */
  readonly messages: Message[];
  /**
   * An interruption that appends `messages`.
   * @param messages the messages to append (an `exit` message ends the run)
   */
  constructor(...messages: Message[]) {
    super(messages.map((m) => m.content ?? "").join("\n"));
    this.name = new.target.name;
    this.messages = messages;
  }
}

/** Build the one `exit` message every ending appends. */
export function exitMessage(status: string, submission = "", content?: string): Message {
  return {
    role: "exit",
    content: content ?? (status === "Submitted" ? submission : status),
    extra: { exit_status: status, submission },
  };
}

/**
 * The exit message of an unexpected error: its class name as the status, its message and stack
 * (upstream's `exception_str` and `traceback`), credential-shaped text redacted.
 */
export function errorExitMessage(err: Error): Message {
  // An error may quote a credential (a URL with a password, a provider echoing a key): not on disk.
  const message = redactText(err.message);
  return {
    role: "exit",
    content: message,
    extra: {
      exit_status: err.name,
      submission: "",
      exception_str: message,
      traceback: redactText(err.stack ?? String(err)),
    },
  };
}

/** The model printed the submission sentinel with exit code 0. */
export class Submitted extends InterruptAgentFlow {}
/** The step or cost limit was reached before a query. */
export class LimitsExceeded extends InterruptAgentFlow {}
/** The wall-clock limit was reached before a query. */
export class TimeExceeded extends LimitsExceeded {}
/** The model's reply had no valid action(s); carries the format-error user message. */
export class FormatError extends InterruptAgentFlow {}
/** A signal that ends a run cleanly, and the exit status recorded for it (see {@link SIGNAL_STATUSES}). */
export type EndingSignal = "SIGINT" | "SIGTERM" | "SIGHUP" | "SIGQUIT";

/**
 * The exit status a signal ends a run with: `Interrupted` (Ctrl-C), `Terminated`, and for a closed
 * terminal or a dropped ssh session `Hangup`, for Ctrl-\ `Quit` (the signals' names as `strsignal`
 * and shells print them). Upstream records none: SIGINT's `KeyboardInterrupt` escapes its loop, the
 * others kill Python at once.
 */
export const SIGNAL_STATUSES: Readonly<Record<EndingSignal, string>> = {
  SIGINT: "Interrupted",
  SIGTERM: "Terminated",
  SIGHUP: "Hangup",
  SIGQUIT: "Quit",
};

/** A signal arrived (see {@link SIGNAL_STATUSES}); carries the exit message to append. */
export class Interrupted extends InterruptAgentFlow {}
/** The user interrupted, rejected commands or added a task (interactive); carries the user message. */
export class UserInterruption extends InterruptAgentFlow {}
/** The environment can no longer run commands (e.g. its container died); ends the run. */
export class EnvironmentLost extends InterruptAgentFlow {}

/**
 * Upstream's `RuntimeError` (Python's built-in name, kept as the exit status): `run.env_startup_command`
 * failed. Its message carries the command's output as upstream prints it.
 */
export class RuntimeError extends Error {
  /**
   * A harness failure described by `message`.
   * @param message upstream's text, e.g. `Error executing startup command: {'output': ...}`
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RuntimeError";
  }
}

/** Upstream's message when a global cost or call limit is reached (it starts the exit message's text). */
export const GLOBAL_LIMIT_MESSAGE = "Global cost/call limit exceeded";

/** A bad config file, key, value or CLI flag. Messages name the file, line, key or flag. */
export class ConfigError extends TypeError {
  /**
   * A config or usage error described by `message`.
   * @param message one line naming what was wrong and where
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConfigError";
  }
}

/** The exception litellm raises for each HTTP status (upstream's `exit_status` is that class's name). */
const LITELLM_ERRORS: Readonly<Record<number, string>> = {
  400: "BadRequestError",
  401: "AuthenticationError",
  403: "PermissionDeniedError",
  404: "NotFoundError",
  408: "Timeout",
  413: "BadRequestError",
  422: "BadRequestError",
  429: "RateLimitError",
  500: "InternalServerError",
  503: "ServiceUnavailableError",
  504: "Timeout",
  529: "InternalServerError",
};

/** What providers say when the prompt does not fit (the phrases litellm maps to its context error). */
const CONTEXT_OVERFLOW =
  /maximum context length|maximum context limit|context.length.exceeded|prompt is too long|prompt: length|input is too long/i;

/**
 * The name of the exception upstream's litellm would raise for this failure, so that `exit_status`
 * groups runs as upstream's trajectories do: a prompt that does not fit `ContextWindowExceededError`,
 * a content filter `ContentPolicyViolationError`, else by status; no status a deadline (`Timeout`) or
 * a connection failure (`APIConnectionError`); any other status `APIError`.
 *
 * @param message the failure as claudius words it (it quotes the provider's message)
 * @param status the HTTP status, 0 when there was none
 */
export function litellmErrorName(message: string, status: number): string {
  if (status === 0) {
    return /within .* model\.request_timeout/.test(message) ? "Timeout" : "APIConnectionError";
  }
  if (status === 400 || status === 413) {
    if (CONTEXT_OVERFLOW.test(message)) return "ContextWindowExceededError";
    if (/content_policy_violation|content filtering policy/i.test(message)) {
      return "ContentPolicyViolationError";
    }
  }
  return LITELLM_ERRORS[status] ?? "APIError";
}

/**
 * The model endpoint failed in a way retries cannot fix (auth, bad request, retries exhausted). Its
 * `name`, the run's `exit_status`, is litellm's exception name ({@link litellmErrorName}).
 */
export class ApiError extends Error {
  /** HTTP status, or 0 for network errors and deadlines. */
  readonly status: number;
  /**
   * An endpoint failure described by `message`, with the HTTP `status`.
   * @param message one line: what failed, the status, and what to do
   * @param status HTTP status, 0 when there was none
   */
  constructor(message: string, status: number, options?: ErrorOptions) {
    super(message, options);
    this.name = litellmErrorName(message, status);
    this.status = status;
  }
}
