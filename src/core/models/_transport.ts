/**
 * One HTTP exchange with an OpenAI-compatible endpoint: a POST with a deadline, a redirect followed at
 * most once, a response body read up to a cap, and the answer parsed into a result. A failure is sorted
 * by `extra/_failures.ts` into one another attempt may fix or one it will not, and retried by `extra/_retry.ts`:
 * both load at the first failure.
 *
 * @module
 */
import { ApiError } from "../errors.ts";
import type { Json, StreamSink } from "../types.ts";
import type { RetryPolicy } from "./extra/_retry.ts";
import type { FailureContext } from "./extra/_failures.ts";
import { after } from "../../lib/timers.ts";

/** What a {@link Transport} needs: what its failures' messages name, and how it sends. */
export interface TransportOptions extends FailureContext {
  /** Request headers, the key included. */
  headers: Record<string, string>;
  /**
   * Read `text/event-stream` answers as a streamed reply, shown to `sink` as it arrives; `read`
   * rebuilds the plain body from the events (default: chat-completion chunks).
   */
  stream: {
    sink: StreamSink | undefined;
    read?: (body: ReadableStream<Uint8Array>, sink?: StreamSink) => Promise<Json>;
  } | undefined;
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
  async send<T>(
    url: string,
    body: string | Uint8Array<ArrayBuffer> | Blob,
    parse: (text: string | Json) => T,
    policy: RetryPolicy,
    signal?: AbortSignal,
  ): Promise<T> {
    signal?.throwIfAborted();
    const again = async () => {
      const result = await this.attempt(url, body, parse, signal);
      if (policy.contact) policy.contact.answered = true;
      return result;
    };
    try {
      return await again();
    } catch (error) {
      return await (await import("./extra/_retry.ts")).retry(url, again, policy, signal, error);
    }
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
    if (status < 200 || status > 299) {
      const failures = await import("./extra/_failures.ts");
      if (status >= 300 && status <= 399) {
        const target = failures.redirectTarget(url, status, headers.get("location"), redirected);
        return await this.#exchange(target, body, parse, signal, true);
      }
      throw failures.statusError(this.#o, url, status, headers, String(text));
    }
    try {
      return parse(text);
    } catch (error) {
      // Not JSON, or the provider's error object: nothing was served, so another attempt buys nothing twice.
      throw (await import("./extra/_failures.ts")).bodyError(this.#o, error, status) ?? error;
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
      if (error instanceof ApiError && !deadline.aborted) throw error;
      const { networkError, unanswered } = await import("./extra/_failures.ts");
      throw deadline.aborted ? unanswered(timeoutMs) : networkError(this.#o, error);
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
      const stream = this.#o.stream;
      const streamed = stream && response.ok && headers.get("content-type")?.startsWith("text/event-stream");
      if (!streamed && plainWithinCap(headers)) return { status, headers, text: await response.text() };
      const received = cappedBody(await decodedBody(response, url), response, url);
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
      const timedOut = controller.signal.aborted;
      if (signal?.aborted) throw signal.reason; // a stop (Ctrl-C) loads nothing
      throw (await import("./extra/_failures.ts")).fetchError(this.#o, error, status, timedOut);
    } finally {
      cancelDeadline?.();
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

/**
 * A body the runtime can read whole by itself: not encoded, and of a declared length within
 * {@link MAX_RESPONSE_BYTES} (HTTP delivers exactly that many bytes), so neither {@link decodedBody}
 * nor {@link cappedBody} has anything to do. Read natively, without their streams: ~6% of a 64 x 20-step
 * batch's wall against a local server (vLLM's and the bench's answers are such bodies).
 */
function plainWithinCap(headers: Headers): boolean {
  const declared = Number(headers.get("content-length") ?? NaN);
  return unencoded(headers) && declared >= 0 && declared <= MAX_RESPONSE_BYTES;
}

/** The body is sent as it is: no `content-encoding`, or `identity`. */
function unencoded(headers: Headers): boolean {
  const encoding = (headers.get("content-encoding") ?? "").trim().toLowerCase();
  return encoding === "" || encoding === "identity";
}

/** `extra/_decode.ts`, once a body came encoded. */
let decoding: typeof import("./extra/_decode.ts") | undefined;

/**
 * The response body as the server encoded it: one with a `content-encoding` read through
 * `extra/_decode.ts` (loaded at the first such body), which decodes what the runtime's `fetch` does not.
 */
async function decodedBody(response: Response, url: string): Promise<ReadableStream<Uint8Array>> {
  if (response.body && unencoded(response.headers)) return response.body;
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
