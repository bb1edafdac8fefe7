/**
 * Request bodies built without re-serialising the history every step.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Builds `JSON.stringify(data)` as UTF-8, byte for byte, from the JSON bytes of each message,
 * serialised once and cached per message object (messages are append-only and never changed), into
 * one buffer reused across calls (fetch copies the body).
 */
export class RequestBodies {
  #messageJson = new WeakMap<object, Uint8Array>();
  #buffer = new Uint8Array(0);

  /**
   * The envelope is serialised with an empty message list and the cached message bytes are copied
   * in. Falls back to a plain `JSON.stringify` when the envelope is not the expected
   * `{"model":...,"messages":[...` (e.g. `extra_body` replaced `messages`).
   *
   * @example
   * ```ts
   * import { RequestBodies } from "./_body.ts";
   * const messages = [{ role: "user", content: "hi" }];
   * new RequestBodies().serialise({ model: "m", messages }, messages); // UTF-8 of {"model":"m","messages":[...]}
   * ```
   */
  serialise(data: { [key: string]: unknown }, messages: readonly object[]): string | Uint8Array<ArrayBuffer> {
    if (data.messages !== messages) return JSON.stringify(data);
    const envelope = JSON.stringify({ ...data, messages: [] });
    const head = `{"model":${JSON.stringify(data.model)},"messages":[`;
    if (typeof data.model !== "string" || !envelope.startsWith(`${head}]`)) return JSON.stringify(data);
    const headBytes = encoder.encode(head);
    const tailBytes = encoder.encode(envelope.slice(head.length));
    let size = headBytes.length + tailBytes.length + Math.max(0, messages.length - 1);
    const parts = messages.map((m) => {
      let json = this.#messageJson.get(m);
      if (json === undefined) this.#messageJson.set(m, json = encoder.encode(JSON.stringify(m)));
      size += json.length;
      return json;
    });
    if (this.#buffer.length < size) this.#buffer = new Uint8Array(Math.max(size, this.#buffer.length * 1.5));
    const buf = this.#buffer;
    buf.set(headBytes, 0);
    let at = headBytes.length;
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) buf[at++] = 0x2c; // ","
      buf.set(parts[i]!, at);
      at += parts[i]!.length;
    }
    buf.set(tailBytes, at);
    return buf.subarray(0, size);
  }
}
