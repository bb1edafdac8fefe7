/**
 * What a failed HTTP exchange means: a status, a redirect, a body that is not the answer or a `fetch`
 * that threw, sorted into a failure another attempt may fix ({@link TransientError}) or one it will not
 * ({@link ApiError}), in one line with what to check. `../_transport.ts` loads it at the first failure, so
 * a run whose every request succeeds never does.
 *
 * @module
 */
import { ApiError } from "../../errors.ts";
import { parseRetryAfter, retryableStatus, TransientError } from "./_retry.ts";
import { MalformedBodyError, oneLine, ProviderErrorBody } from "../_wire.ts";
import { isPlainObject } from "../../../lib/json.ts";
import { BodyDecodeError } from "./_decode.ts";

/** What the messages name and how they are cleaned (a transport's options hold them). */
export interface FailureContext {
  /** Deadline of one exchange, ms; 0 = none. */
  timeoutMs: number;
  /** The configured base URL, named in messages. */
  baseUrl: string;
  /** What to do about a 401 or 403 (`set OPENAI_API_KEY`, ...). */
  authHint: string;
  /** Removes secrets from a message. */
  redact: (text: string) => string;
}

const NO_RETRY_HINT: Record<number, string> = {
  404: " (check model.model_name and model.base_url)",
  422: " (check model.model_kwargs)",
};

/** A status outside 2xx (and not a redirect followed): retried for {@link retryableStatus}. */
export function statusError(
  o: FailureContext,
  url: string,
  status: number,
  headers: Headers,
  text: string,
): Error {
  const detail = o.redact(providerMessage(text));
  const what = `HTTP ${status} from ${url}${detail === "" ? "" : `: ${detail}`}`;
  if (retryableStatus(status)) {
    return new TransientError(what, status, parseRetryAfter(headers));
  }
  if (status === 401 || status === 403) {
    return new ApiError(
      `Cannot query model: HTTP ${status} from ${o.baseUrl} (${o.authHint})${
        detail === "" ? "" : `: ${detail}`
      }`,
      status,
    );
  }
  return new ApiError(`Cannot query model: ${what}${NO_RETRY_HINT[status] ?? ""}`, status);
}

/** What a request that threw (not aborted by its caller) throws: the error another attempt may fix or not. */
export function fetchError(o: FailureContext, error: unknown, status: number, timedOut: boolean): Error {
  // ApiError: not worth another attempt; TransientError: a `sign` hook's own (a token endpoint's 5xx).
  if (error instanceof ApiError || error instanceof TransientError) return error;
  if (error instanceof BodyDecodeError) {
    const message = o.redact(oneLine(error.message));
    return error.retryable ? new TransientError(message, status) : new ApiError(message, status);
  }
  const bodyFailure = bodyError(o, error, status);
  if (bodyFailure) return bodyFailure;
  if (timedOut) {
    return new TransientError(`no complete response within ${o.timeoutMs / 1000} s (model.request_timeout)`);
  }
  return networkError(o, error);
}

/** A failed `fetch` as a retryable error; a server refusing connections or a name not found is marked. */
export function networkError(o: FailureContext, error: unknown): TransientError {
  const { said, unreachable } = networkFailure(error, o.redact);
  return new TransientError(`network error: ${said}`, 0, undefined, {
    cause: error,
    ...(unreachable ? { unreachable } : {}),
  });
}

/** A check that got no answer within its deadline (`ms`). */
export function unanswered(ms: number): TransientError {
  return new TransientError(`no answer within ${ms / 1000} s`);
}

/** A body that is not JSON (retried), or a provider's error object in it; undefined for other errors. */
export function bodyError(o: FailureContext, error: unknown, status: number): Error | undefined {
  if (error instanceof MalformedBodyError) return new TransientError(o.redact(error.message), status);
  if (error instanceof ProviderErrorBody) return providerError(o, error, status);
  return undefined;
}

/** A provider's error object (in a 200 body or a stream): retried unless its code is another 4xx. */
function providerError(o: FailureContext, error: ProviderErrorBody, status: number): Error {
  const code = error.code;
  const what = o.redact(error.message);
  if (code === undefined || retryableStatus(code)) {
    return new TransientError(what, code ?? status);
  }
  return new ApiError(`Cannot query model: ${what} (code ${code})${NO_RETRY_HINT[code] ?? ""}`, code);
}

/**
 * Where a redirect may be followed: a 307 or 308 to the same origin, once (the caller resends the
 * body whole, as a stream cannot be redelivered). Anything else fails at once: a POST cannot follow
 * 301/302/303, and neither the key nor the conversation goes to a host the config does not name.
 *
 * @throws {ApiError} naming the new location and the `base_url` to set
 */
export function redirectTarget(url: string, status: number, location: string | null, again: boolean): string {
  const target = location === null ? null : URL.parse(location, url);
  if (target === null) {
    throw new ApiError(`Cannot query model: HTTP ${status} from ${url} with no redirect to follow`, status);
  }
  const why = again
    ? "redirected again"
    : status !== 307 && status !== 308
    ? "a POST cannot follow it"
    : target.origin !== new URL(url).origin
    ? "another origin: the key and the conversation stay with the configured one"
    : undefined;
  if (why === undefined) return target.href;
  const path = target.pathname.replace(/\/(?:chat\/completions|responses|v1\/messages)\/?$/, "");
  throw new ApiError(
    `Cannot query model: HTTP ${status} from ${url} redirects to ${target.href} (${why}); ` +
      `set model.base_url to ${target.origin}${path}${target.search}`,
    status,
  );
}

/** The provider's error text: `error.message`, `message`, `detail`, or the raw body, on one line. */
function providerMessage(text: string): string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return oneLine(text);
  }
  if (isPlainObject(data)) {
    const error = data.error;
    for (const candidate of [isPlainObject(error) ? error.message : error, data.message, data.detail]) {
      if (typeof candidate === "string") return oneLine(candidate);
    }
  }
  return oneLine(text);
}

/** Why a `fetch` failed, in one line, and whether no server answered (its cause's message `redact`ed). */
export function networkFailure(error: unknown, redact = (t: string) => t): {
  said: string;
  unreachable: "refused" | "dns" | undefined;
} {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const message = (cause instanceof Error ? cause.message : String(cause))
    .replace(/^error sending request .*?: (?=client error)/, "");
  const dns = /dns error: (?:failed to lookup address information: )?(.*)/i.exec(message);
  const unreachable = /connection refused/i.test(message) ? "refused" : dns ? "dns" : undefined;
  const said = unreachable === "refused"
    ? "connection refused"
    : dns
    ? `host name not found (DNS: ${dns[1]})`
    : redact(oneLine(message));
  return { said, unreachable };
}
