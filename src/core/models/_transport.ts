/**
 * One HTTP exchange with an OpenAI-compatible endpoint: a POST with a deadline, a redirect followed at
 * most once, a response body read up to a cap, and the answer sorted into a result, a failure another
 * attempt may fix ({@link TransientError}) or one it will not ({@link ApiError}). Retrying is the
 * caller's (see `_retry.ts`).
 *
 * @module
 */
import { ApiError } from "../errors.ts";
import type { Json, StreamSink } from "../types.ts";
import { parseRetryAfter, retry, retryableStatus, type RetryPolicy, TransientError } from "./_retry.ts";
import { after } from "../../lib/timers.ts";
import { MalformedBodyError, oneLine, ProviderErrorBody } from "./_wire.ts";
import { isPlainObject } from "../../lib/json.ts";

/** What a {@link Transport} needs. */
export interface TransportOptions {
  /** Request headers, the key included. */
  headers: Record<string, string>;
  /** Deadline of one exchange, ms; 0 = none. */
  timeoutMs: number;
  /** The configured base URL, named in messages. */
  baseUrl: string;
  /** What to do about a 401 or 403 (`set OPENAI_API_KEY`, ...). */
  authHint: string;
  /**
   * Read `text/event-stream` answers as a streamed reply, shown to `sink` as it arrives; `read`
   * rebuilds the plain body from the events (default: chat-completion chunks).
   */
  stream: {
    sink: StreamSink | undefined;
    read?: (body: ReadableStream<Uint8Array>, sink?: StreamSink) => Promise<Json>;
  } | undefined;
  /** Removes secrets from a message. */
  redact: (text: string) => string;
  /** Receives notes. */
  log: (line: string) => void;
  /**
   * Headers that authenticate one attempt, added to {@link headers} (a SigV4 signature of the body, a
   * renewed OAuth token); absent: the headers alone authenticate.
   */
  sign?: (url: string, method: "GET" | "POST", body: string | Uint8Array<ArrayBuffer> | Blob) => Promise<
    Record<string, string>
  >;
}

const NO_RETRY_HINT: Record<number, string> = {
  404: " (check model.model_name and model.base_url)",
  422: " (check model.model_kwargs)",
};

/**
 * Sends requests to one endpoint, one attempt per call.
 *
 * @example
 * ```ts ignore
 * const transport = new Transport({ headers, timeoutMs: 600_000, baseUrl, authHint, stream: undefined, redact, log });
 * const parsed = await transport.attempt(url, body, parseCompletionBody);
 * ```
 */
export class Transport {
  readonly #o: TransportOptions;

  /** @param options headers, deadline and how to report */
  constructor(options: TransportOptions) {
    this.#o = options;
  }

  /**
   * One attempt: POST the body to `url` and parse the answer. A same-origin 307/308 is resent once,
   * within the attempt.
   *
   * @param url where to send it
   * @param body the request body: text, one buffer, or a `Blob` streamed from its parts; each goes
   *   with a `Content-Length`
   * @param parse turns the answer (text, or a streamed completion rebuilt) into the result
   * @param signal aborts at once; the rejection is its reason
   * @throws {TransientError} for what another attempt may fix (408/409/429/5xx, network, deadline,
   *   a body that is not JSON, a provider error in a 200 body with no 4xx code)
   * @throws {ApiError} for what it will not (other statuses, redirects not followed, a body over the cap)
   */
  attempt<T>(
    url: string,
    body: string | Uint8Array<ArrayBuffer> | Blob,
    parse: (text: string | Json) => T,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.#exchange(url, body, parse, signal, false);
  }

  /** {@link attempt} under `policy`'s retries: what the attempt that succeeded parsed. */
  send<T>(
    url: string,
    body: string | Uint8Array<ArrayBuffer> | Blob,
    parse: (text: string | Json) => T,
    policy: RetryPolicy,
    signal?: AbortSignal,
  ): Promise<T> {
    return retry(url, () => this.attempt(url, body, parse, signal), policy, signal);
  }

  /** {@link attempt}, `redirected` when this is the resend after a redirect (another is refused). */
  async #exchange<T>(
    url: string,
    body: string | Uint8Array<ArrayBuffer> | Blob,
    parse: (text: string | Json) => T,
    signal: AbortSignal | undefined,
    redirected: boolean,
  ): Promise<T> {
    const { status, headers, text } = await this.#post(url, body, signal);
    if (status >= 300 && status <= 399) {
      const target = redirectTarget(url, status, headers.get("location"), redirected);
      return await this.#exchange(target, body, parse, signal, true);
    }
    if (status < 200 || status > 299) throw this.#statusError(url, status, headers, String(text));
    try {
      return parse(text);
    } catch (error) {
      // Not JSON, or the provider's error object: nothing was served, so another attempt buys nothing twice.
      throw this.#bodyError(error, status) ?? error;
    }
  }

  /**
   * A GET of `url` with the request headers (the key included), one attempt and no body sent: for
   * checks that cost nothing (`GET <base>/models`). Redirects are not followed.
   *
   * @param timeoutMs deadline of the exchange
   * @returns the status and the body (at most {@link MAX_RESPONSE_BYTES})
   * @throws {TransientError} for a network failure or the deadline, as an attempt would
   */
  async get(url: string, timeoutMs: number, signal?: AbortSignal): Promise<{ status: number; text: string }> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const { "content-type": _, ...own } = this.#o.headers;
    try {
      const headers = this.#o.sign ? { ...own, ...await this.#o.sign(url, "GET", "") } : own;
      const response = await fetch(url, {
        headers,
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
        redirect: "manual",
      });
      const text = await new Response(cappedBody(await decodedBody(response, url), response, url)).text();
      return { status: response.status, text };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) throw new TransientError(`no answer within ${timeoutMs / 1000} s`);
      if (error instanceof ApiError) throw error;
      throw this.#networkError(error);
    }
  }

  /** POST the body and read the answer whole (a stream rebuilt), within the deadline. */
  async #post(
    url: string,
    body: string | Uint8Array<ArrayBuffer> | Blob,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; headers: Headers; text: string | Json }> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const cancelDeadline = this.#o.timeoutMs > 0
      ? after(this.#o.timeoutMs, () => controller.abort())
      : undefined;
    let status = 0;
    try {
      const sent = this.#o.sign
        ? { ...this.#o.headers, ...await this.#o.sign(url, "POST", body) }
        : this.#o.headers;
      const response = await fetch(url, {
        method: "POST",
        headers: sent,
        body,
        signal: controller.signal,
        redirect: "manual",
      });
      status = response.status;
      const headers = response.headers;
      const received = cappedBody(await decodedBody(response, url), response, url);
      const stream = this.#o.stream;
      const streamed = stream && response.ok && headers.get("content-type")?.startsWith("text/event-stream");
      let text: string | Json;
      if (stream && streamed) {
        try {
          text = await (stream.read ?? await chatCompletionReader())(received, stream.sink);
        } finally {
          stream.sink?.({ type: "end" });
        }
      } else text = await new Response(received).text();
      return { status, headers, text };
    } catch (error) {
      throw this.#fetchError(error, status, signal, controller.signal.aborted);
    } finally {
      cancelDeadline?.();
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** What a failed request throws: the caller's abort reason, or the error another attempt may fix or not. */
  #fetchError(error: unknown, status: number, signal: AbortSignal | undefined, timedOut: boolean): unknown {
    if (signal?.aborted) return signal.reason;
    // ApiError: not worth another attempt; TransientError: a `sign` hook's own (a token endpoint's 5xx).
    if (error instanceof ApiError || error instanceof TransientError) return error;
    if (decoding && error instanceof decoding.BodyDecodeError) {
      const message = this.#o.redact(oneLine(error.message));
      return error.retryable ? new TransientError(message, status) : new ApiError(message, status);
    }
    const bodyError = this.#bodyError(error, status);
    if (bodyError) return bodyError;
    if (timedOut) {
      return new TransientError(
        `no complete response within ${this.#o.timeoutMs / 1000} s (model.request_timeout)`,
      );
    }
    return this.#networkError(error);
  }

  /** A failed `fetch` as a retryable error; a server refusing connections or a name not found is marked. */
  #networkError(error: unknown): TransientError {
    const { said, unreachable } = networkFailure(error, this.#o.redact);
    return new TransientError(`network error: ${said}`, 0, undefined, {
      cause: error,
      ...(unreachable ? { unreachable } : {}),
    });
  }

  /** A body that is not JSON (retried), or a provider's error object in it; undefined for other errors. */
  #bodyError(error: unknown, status: number): Error | undefined {
    if (error instanceof MalformedBodyError) return new TransientError(this.#o.redact(error.message), status);
    if (error instanceof ProviderErrorBody) return this.#providerError(error, status);
    return undefined;
  }

  /** A provider's error object (in a 200 body or a stream): retried unless its code is another 4xx. */
  #providerError(error: ProviderErrorBody, status: number): Error {
    const code = error.code;
    const what = this.#o.redact(error.message);
    if (code === undefined || retryableStatus(code)) {
      return new TransientError(what, code ?? status);
    }
    return new ApiError(`Cannot query model: ${what} (code ${code})${NO_RETRY_HINT[code] ?? ""}`, code);
  }

  #statusError(url: string, status: number, headers: Headers, text: string): Error {
    const detail = this.#o.redact(providerMessage(text));
    const what = `HTTP ${status} from ${url}${detail === "" ? "" : `: ${detail}`}`;
    if (retryableStatus(status)) {
      return new TransientError(what, status, parseRetryAfter(headers));
    }
    if (status === 401 || status === 403) {
      return new ApiError(
        `Cannot query model: HTTP ${status} from ${this.#o.baseUrl} (${this.#o.authHint})${
          detail === "" ? "" : `: ${detail}`
        }`,
        status,
      );
    }
    return new ApiError(`Cannot query model: ${what}${NO_RETRY_HINT[status] ?? ""}`, status);
  }
}

/**
 * Where a redirect may be followed: a 307 or 308 to the same origin, once (the caller resends the
 * body whole, as a stream cannot be redelivered). Anything else fails at once: a POST cannot follow
 * 301/302/303, and neither the key nor the conversation goes to a host the config does not name.
 *
 * @throws {ApiError} naming the new location and the `base_url` to set
 */
function redirectTarget(url: string, status: number, location: string | null, again: boolean): string {
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

/** `extra/_decode.ts`, once a body came encoded (no `BodyDecodeError` can exist before). */
let decoding: typeof import("./extra/_decode.ts") | undefined;

/**
 * The response body as the server encoded it: one with a `content-encoding` read through
 * `extra/_decode.ts` (loaded at the first such body), which decodes what the runtime's `fetch` does not.
 */
async function decodedBody(response: Response, url: string): Promise<ReadableStream<Uint8Array>> {
  const encoding = (response.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (response.body && (encoding === "" || encoding === "identity")) return response.body;
  decoding ??= await import("./extra/_decode.ts");
  return decoding.decodedBody(response, url);
}

/** The reader of streamed chat completions (`extra/_stream.ts`), loaded at the first streamed reply. */
async function chatCompletionReader() {
  return (await import("./extra/_stream.ts")).readCompletionStream;
}

/** The most bytes of one response body read (64 MiB): a longer one fails the query. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The body, failing with an {@link ApiError} (not retried: the answer may have been paid for) once it
 * says or proves itself longer than {@link MAX_RESPONSE_BYTES}, before it is all held in memory.
 */
function cappedBody(
  body: ReadableStream<Uint8Array>,
  response: Response,
  url: string,
): ReadableStream<Uint8Array> {
  const tooLarge = (size: string) =>
    new ApiError(
      `Cannot query model: the response body from ${url} is ${size} bytes, over the ${
        MAX_RESPONSE_BYTES / 2 ** 20
      } MiB cap (not retried: it may have been paid for)`,
      response.status,
    );
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > MAX_RESPONSE_BYTES) {
    body.cancel().catch(() => {});
    throw tooLarge(String(declared));
  }
  let read = 0;
  return body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) controller.error(tooLarge(`at least ${read}`));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** The provider's error text: `error.message`, `message`, `detail`, or the raw body, on one line. */
function providerMessage(text: string): string {
  let data: Json;
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
