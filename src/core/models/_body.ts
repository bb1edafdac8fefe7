/**
 * Request bodies built without re-serialising the history every step, sent whole with a
 * `Content-Length` (as upstream's clients send them: some servers read nothing else).
 *
 * @module
 */

const encoder = new TextEncoder();
const COMMA = 0x2c;
/** Size at which consecutive messages are sealed into one shared part of every later body. */
const SEAL = 64 * 1024;
/**
 * Bodies smaller than this go as one buffer; larger ones as a Blob of sealed parts. 256 KiB: a batch's
 * bodies and a run's first ~100 steps; at 1 MiB the per-request buffers (and Deno's native copy of each)
 * kept the allocator's heap 5-7 MiB larger to the end of a 1,000-step run.
 */
const WHOLE = 256 * 1024;

/**
 * `parts` with commas between the messages (after the first part, the head, unless `bare`: all
 * are messages), then `tail`, into one buffer of `size` bytes (commas included).
 */
function join(parts: Uint8Array[], tail: Uint8Array, size: number, bare = false): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let at = 0;
  parts.forEach((p, i) => {
    if (i > (bare ? 0 : 1)) out[at++] = COMMA;
    out.set(p, at);
    at += p.length;
  });
  out.set(tail, at);
  return out;
}

/** Consecutive messages serialised once into one part, each followed by a comma. */
interface Sealed {
  /** The messages it holds, in order (compared by identity with each new request's list). */
  messages: readonly object[];
  part: Blob;
}

/**
 * Builds `JSON.stringify(data)` as UTF-8, byte for byte, from the JSON of each message serialised
 * once, with its length known (`fetch` sends `Content-Length`). Under 256 KiB the body is one buffer,
 * which `fetch` sends with its head in one write: a body in several writes leaves a short segment
 * behind each, and the server's delayed ACK then holds the last one 40 ms (on loopback about one
 * request in six). From 256 KiB on it is a `Blob` streamed from its parts: messages are append-only, so
 * the older ones are sealed, 64 KiB at a time, into parts that every later body shares without a copy
 * (kept outside the JavaScript heap); only the newest (less than 64 KiB) are copied per request. A
 * multi-megabyte history thus costs neither a contiguous copy nor a re-serialisation per step.
 */
export class RequestBodies {
  /** JSON of the messages not sealed yet, by message object. */
  #messageJson = new WeakMap<object, Uint8Array>();
  /** Sealed parts, per list key (`messages`, `input`), covering the lists' first messages. */
  #sealed = new Map<string, Sealed[]>();

  /**
   * The envelope is serialised with an empty message list and the message bytes are put in its
   * place. Falls back to a plain `JSON.stringify` when the envelope is not the expected
   * `{"model":...,"messages":[...` (e.g. `extra_body` replaced `messages`). `key` names the list
   * (`input` for the Responses API).
   *
   * @example
   * ```ts
   * import { RequestBodies } from "./_body.ts";
   * const messages = [{ role: "user", content: "hi" }];
   * const body = new RequestBodies().serialise({ model: "m", messages }, messages);
   * await new Response(body).text(); // {"model":"m","messages":[...]}
   * ```
   */
  serialise(
    data: { [key: string]: unknown },
    messages: readonly object[],
    key = "messages",
  ): string | Uint8Array<ArrayBuffer> | Blob {
    if (data[key] !== messages) return JSON.stringify(data);
    const envelope = JSON.stringify({ ...data, [key]: [] });
    const head = `{"model":${JSON.stringify(data.model)},${JSON.stringify(key)}:[`;
    if (typeof data.model !== "string" || !envelope.startsWith(`${head}]`)) return JSON.stringify(data);
    const sealed = this.#sealedPrefix(key, messages);
    const headBytes = encoder.encode(head), tailBytes = encoder.encode(envelope.slice(head.length));
    if (sealed.length === 0) {
      // A body under 256 KiB goes as one buffer: one write, so no delayed-ACK stall (see the class doc).
      const all = messages.map((m) => this.#json(m));
      const size = headBytes.length + tailBytes.length + Math.max(0, all.length - 1) +
        all.reduce((n, j) => n + j.length, 0);
      if (size < WHOLE) return join([headBytes, ...all], tailBytes, size);
    }
    this.#seal(sealed, messages, sealed.reduce((n, s) => n + s.messages.length, 0));
    const start = sealed.reduce((n, s) => n + s.messages.length, 0);
    const rest = messages.slice(start).map((m) => this.#json(m));
    const size = Math.max(0, rest.length - 1) + rest.reduce((n, j) => n + j.length, 0);
    const recent = join(rest, new Uint8Array(0), size, true);
    return new Blob([headBytes, ...sealed.map((s) => s.part), recent, tailBytes]);
  }

  /** The sealed parts that still match the start of `messages` (the others are dropped). */
  #sealedPrefix(key: string, messages: readonly object[]): Sealed[] {
    const all = this.#sealed.get(key) ?? [];
    let at = 0, keep = 0;
    for (const s of all) {
      if (at + s.messages.length > messages.length || s.messages.some((m, i) => m !== messages[at + i])) {
        break;
      }
      at += s.messages.length;
      keep++;
    }
    const kept = all.slice(0, keep);
    this.#sealed.set(key, kept);
    return kept;
  }

  /**
   * Seal runs of at least {@link SEAL} bytes from `messages[from]` on, never the last message (a
   * sealed part ends with a comma: another message follows it in every later body).
   */
  #seal(sealed: Sealed[], messages: readonly object[], from: number): void {
    let start = from, size = 0;
    for (let i = from; i < messages.length - 1; i++) {
      size += this.#json(messages[i]!).length + 1;
      if (size < SEAL) continue;
      const run = messages.slice(start, i + 1);
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const m of run) {
        const json = this.#json(m);
        bytes.set(json, at);
        bytes[at + json.length] = COMMA;
        at += json.length + 1;
        this.#messageJson.delete(m);
      }
      sealed.push({ messages: run, part: new Blob([bytes]) });
      start = i + 1;
      size = 0;
    }
  }

  #json(message: object): Uint8Array {
    let json = this.#messageJson.get(message);
    if (json === undefined) this.#messageJson.set(message, json = encoder.encode(JSON.stringify(message)));
    return json;
  }
}
