/**
 * Streamed chat completions (`model.stream: true`): read the server-sent events of one response,
 * pass the text on as it arrives, and rebuild the body a non-streamed request would have returned,
 * so the saved message and response do not depend on the transport.
 *
 * @module
 */
import type { Json } from "../../types.ts";
import { MalformedBodyError, oneLine, parseJson, ProviderErrorBody } from "../_wire.ts";
import type { StreamEvent, StreamSink } from "../../types.ts";
import { isPlainObject } from "../../../lib/json.ts";

export type { StreamEvent, StreamSink };

interface ToolCallParts {
  id: string;
  type: string;
  name: string;
  arguments: string;
}

/** Rebuilds a `chat.completion` body from `chat.completion.chunk`s. */
class Assembler {
  top: { [key: string]: Json } = {};
  content: string | null = null;
  calls: ToolCallParts[] = [];
  other: { [key: string]: Json } = {};
  finish: Json = null;
  usage: Json | undefined;
  chunks = 0;

  add(chunk: { [key: string]: Json }): string {
    this.chunks++;
    for (const [key, value] of Object.entries(chunk)) {
      if (key !== "choices" && key !== "usage" && key !== "object" && !(key in this.top)) {
        this.top[key] = value;
      }
    }
    if (isPlainObject(chunk.usage)) this.usage = chunk.usage;
    // Choice 0, as a non-streamed body is read (`n` > 1 interleaves the choices' chunks).
    const choice = Array.isArray(chunk.choices)
      ? chunk.choices.find((c) => isPlainObject(c) && (c.index ?? 0) === 0)
      : undefined;
    if (!isPlainObject(choice)) return "";
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
      this.finish = choice.finish_reason;
    }
    const delta = isPlainObject(choice.delta) ? choice.delta : {};
    let text = "";
    for (const [key, value] of Object.entries(delta)) {
      if (key === "role") continue;
      if (key === "content") {
        if (typeof value === "string") {
          this.content = (this.content ?? "") + value;
          text = value;
        }
      } else if (key === "tool_calls") {
        if (Array.isArray(value)) { for (const part of value) this.#toolCall(part); }
      } else if (Array.isArray(value)) {
        const list = this.other[key];
        this.other[key] = mergeItems(Array.isArray(list) ? list : [], value);
      } else if (typeof value === "string" && typeof this.other[key] === "string") {
        this.other[key] = (this.other[key] as string) + value;
      } else if (value !== null || !(key in this.other)) this.other[key] = value;
    }
    return text;
  }

  /**
   * One tool-call delta. A delta without `index` (some servers omit it) continues the call before it
   * unless it brings an id of its own, which starts the next call (litellm reads a missing index as 0,
   * which merges every call into one). The name, like the arguments, may come in pieces; a server
   * that repeats the whole name in each delta sends the same text again, which is not appended.
   */
  #toolCall(part: Json): void {
    if (!isPlainObject(part)) return;
    const id = typeof part.id === "string" ? part.id : "";
    const last = this.calls.length - 1;
    const index = typeof part.index === "number"
      ? part.index
      : last < 0 || (id !== "" && this.calls[last]?.id !== "" && this.calls[last]?.id !== id)
      ? last + 1
      : last;
    const call = this.calls[index] ??= { id: "", type: "function", name: "", arguments: "" };
    if (id && !call.id) call.id = id;
    if (typeof part.type === "string") call.type = part.type;
    const fn = isPlainObject(part.function) ? part.function : {};
    if (typeof fn.name === "string" && fn.name !== call.name) call.name += fn.name;
    if (typeof fn.arguments === "string") call.arguments += fn.arguments;
  }

  body(): Json {
    const { id = null, created = null, model = null, ...rest } = this.top;
    const message: { [key: string]: Json } = { role: "assistant", content: this.content };
    const calls = this.calls.filter((c) => c !== undefined);
    if (calls.length) {
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: c.type,
        function: { name: c.name, arguments: c.arguments },
      }));
    }
    Object.assign(message, this.other);
    const out: { [key: string]: Json } = {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: this.finish }],
    };
    if (this.usage !== undefined) out.usage = this.usage;
    return { ...out, ...rest };
  }
}

/** Text fields of a list item sent in pieces (OpenRouter's `reasoning_details`: `text`, `summary`, `data`). */
const PIECED = new Set(["text", "summary", "data"]);

/**
 * A list field of the delta added to what came before: an item with the `index` of an earlier one
 * continues it (its text fields appended, other fields set), any other item is appended.
 */
function mergeItems(list: Json[], parts: Json[]): Json[] {
  const out = [...list];
  for (const part of parts) {
    const at = isPlainObject(part) && typeof part.index === "number"
      ? out.findIndex((item) => isPlainObject(item) && item.index === part.index)
      : -1;
    const item = out[at];
    if (at === -1 || !isPlainObject(item) || !isPlainObject(part)) {
      out.push(part);
      continue;
    }
    const merged = { ...item };
    for (const [k, v] of Object.entries(part)) {
      if (PIECED.has(k) && typeof v === "string" && typeof merged[k] === "string") merged[k] += v;
      else if (v !== null && v !== "") merged[k] = v;
    }
    out[at] = merged;
  }
  return out;
}

/**
 * Read one SSE response (`data: {chunk}` events, `data: [DONE]` at the end) and rebuild the
 * non-streamed body: `{id, object: "chat.completion", created, model, choices: [{index, message,
 * finish_reason}], usage, ...}`, the message's content and tool-call arguments concatenated.
 *
 * @param body the response body
 * @param sink receives `start` at the first chunk and each piece of text
 * @throws {ProviderErrorBody} for an error event (with its code, retried as the same error in a body)
 * @throws {MalformedBodyError} for a non-JSON event, or a stream that ends before
 *   the reply is complete (retryable, like a malformed non-streamed body); a read error before the
 *   finish reason is rethrown (one after it ends the stream)
 */
export async function readCompletionStream(
  body: ReadableStream<Uint8Array>,
  sink?: StreamSink,
): Promise<Json> {
  const assembler = new Assembler();
  let done = false;
  const splitter = new EventSplitter((block) => {
    const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) =>
      l.slice(5).replace(/^ /, "")
    );
    const chunk = data.length ? streamChunk(data.join("\n")) : undefined;
    if (chunk === "done") done = true;
    else if (chunk !== undefined) {
      if (assembler.chunks === 0) sink?.({ type: "start" });
      const text = assembler.add(chunk);
      if (text) sink?.({ type: "text", text });
    }
    return !done;
  });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (let going = true; going;) {
      let read: ReadableStreamReadResult<string>;
      try {
        read = await reader.read();
      } catch (error) {
        // Broken after the finish reason (before the usage chunk or [DONE]): the reply was served
        // whole and is kept, as when the stream ends there; another attempt would buy it again.
        if (assembler.finish === null) throw error;
        read = { done: true };
      }
      going = splitter.push(read.value ?? "", read.done === true);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  if (!done && assembler.finish === null) {
    throw new MalformedBodyError("Cannot parse completion stream: it ended before the reply was complete");
  }
  if (assembler.chunks === 0) throw new MalformedBodyError("Cannot parse completion stream: no events");
  return assembler.body();
}

/**
 * One event's data: `"done"` for `[DONE]`, undefined for a keep-alive, else the chunk.
 * @throws {MalformedBodyError} not a JSON object
 * @throws {ProviderErrorBody} an error event
 */
function streamChunk(data: string): "done" | { [key: string]: Json } | undefined {
  if (data.trim() === "") return undefined; // a keep-alive: no chunk
  if (data === "[DONE]") return "done";
  let chunk: Json;
  try {
    chunk = parseJson(data);
  } catch {
    throw new MalformedBodyError(`Cannot parse completion stream: event is not JSON (${oneLine(data, 80)})`);
  }
  if (!isPlainObject(chunk)) {
    throw new MalformedBodyError("Cannot parse completion stream: event is not an object");
  }
  if (chunk.error !== undefined) {
    const error = chunk.error;
    const message = isPlainObject(error) ? error.message : error;
    const code = isPlainObject(error) ? Number(error.code ?? error.status) : NaN;
    throw new ProviderErrorBody(
      `provider error in the stream: ${oneLine(String(message))}`,
      Number.isInteger(code) ? code : undefined,
    );
  }
  return chunk;
}

/**
 * Decoded SSE text cut into events (blocks ended by a blank line), across the pieces it arrives in.
 * Lines end in CRLF, LF or CR; a piece's last CR waits for the next piece, which may start with LF.
 * Only new text is searched and the pending pieces joined once per event: rescanning one growing
 * buffer was quadratic in the size of a long event.
 */
class EventSplitter {
  /** The text after the last complete event, in pieces. */
  readonly #pending: string[] = [];
  #cr = "";
  readonly #onBlock: (block: string) => boolean;

  /** @param onBlock called with each event's text; false stops the stream */
  constructor(onBlock: (block: string) => boolean) {
    this.#onBlock = onBlock;
  }

  /** The next piece; `ended` when the stream ended after it. @returns false when reading is over */
  push(value: string, ended: boolean): boolean {
    if (ended && this.#cr === "") return false;
    let text = this.#cr + value;
    this.#cr = !ended && text.endsWith("\r") ? "\r" : "";
    text = text.slice(0, text.length - this.#cr.length).replaceAll("\r\n", "\n").replaceAll("\r", "\n");
    let going = true;
    while (going) {
      let end = -1; // where the blank line's "\n\n" starts in `text` (-1: in the pending text)
      const last = this.#pending.at(-1);
      const straddles = last !== undefined && text.startsWith("\n") && last.endsWith("\n");
      if (!straddles && (end = text.indexOf("\n\n")) === -1) break;
      const whole = this.#pending.join("") + text.slice(0, Math.max(0, end));
      this.#pending.length = 0;
      text = text.slice(end + 2);
      going = this.#onBlock(end === -1 ? whole.slice(0, -1) : whole);
    }
    if (text !== "") this.#pending.push(text);
    return going && !ended;
  }
}
