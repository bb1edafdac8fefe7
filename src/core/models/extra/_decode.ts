/**
 * Response bodies as the server encoded them: the runtime's `fetch` decodes `gzip` and `br` itself but
 * hands `deflate` over as it came, so that one is inflated here (zlib-wrapped, as HTTP specifies, or
 * raw, as some servers send it). A body that cannot be decoded fails with the encoding named, not as
 * "not JSON" or a network error.
 *
 * @module
 */

/** A response body that its `content-encoding` says is compressed and that cannot be read as such. */
export class BodyDecodeError extends Error {
  /**
   * @param message one line naming the encoding and what went wrong
   * @param retryable whether another attempt may do better (a corrupt body may; an unknown encoding will not)
   */
  constructor(message: string, readonly retryable: boolean, options?: ErrorOptions) {
    super(message, options);
    this.name = "BodyDecodeError";
  }
}

/** The encodings the runtime decodes before the body reaches claudius. */
const DECODED_BY_FETCH = new Set(["gzip", "x-gzip", "br"]);

/**
 * The response body, decoded.
 *
 * @param response the fetched response
 * @param url named in messages
 * @throws {BodyDecodeError} at once for an encoding claudius cannot decode (`zstd`, `compress`, ...);
 *   while reading, for a body its encoding cannot read
 */
export function decodedBody(response: Response, url: string): ReadableStream<Uint8Array> {
  const empty = new ReadableStream<Uint8Array<ArrayBuffer>>({ start: (controller) => controller.close() });
  const body = response.body ?? empty;
  const encoding = (response.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (encoding === "" || encoding === "identity") return body;
  const fail = (error: unknown) =>
    new BodyDecodeError(
      `Cannot decode the ${encoding}-encoded response body from ${url}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      true,
      { cause: error },
    );
  if (DECODED_BY_FETCH.has(encoding)) return renameErrors(body, fail);
  if (encoding === "deflate") return renameErrors(inflate(body), fail);
  body.cancel().catch(() => {});
  throw new BodyDecodeError(
    `Cannot read the response body from ${url}: it is ${encoding}-encoded, which claudius does not decode ` +
      "(gzip, br and deflate are read)",
    false,
  );
}

/** A stream whose read errors become {@link BodyDecodeError}s. */
function renameErrors(
  body: ReadableStream<Uint8Array>,
  fail: (error: unknown) => BodyDecodeError,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(fail(error));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * `deflate` inflated: a zlib stream (RFC 1950, the first byte's low nibble 8 and the first two bytes
 * a multiple of 31) or, failing that test, raw deflate (RFC 1951).
 */
function inflate(body: ReadableStream<Uint8Array<ArrayBuffer>>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let out: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream({
    async pull(controller) {
      if (out === undefined) {
        const first = await reader.read();
        if (first.done) return controller.close();
        const [a = 0, b = 0] = first.value;
        const zlib = (a & 0x0f) === 8 && ((a << 8) | b) % 31 === 0;
        const rest = new ReadableStream<Uint8Array<ArrayBuffer>>({
          start: (c) => c.enqueue(first.value),
          async pull(c) {
            const { done, value } = await reader.read();
            if (done) c.close();
            else c.enqueue(value);
          },
          cancel: (reason) => reader.cancel(reason),
        });
        out = rest.pipeThrough(new DecompressionStream(zlib ? "deflate" : "deflate-raw")).getReader();
      }
      const { done, value } = await out.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => (out ?? reader).cancel(reason),
  });
}
