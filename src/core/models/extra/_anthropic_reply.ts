/**
 * A Messages API answer as upstream sees it through litellm: the Anthropic message becomes litellm's
 * OpenAI-shaped `ModelResponse` (text joined into `content`, `tool_use` blocks as `tool_calls` whose
 * arguments are Python's `json.dumps` of the input, thinking blocks kept as `thinking_blocks` and
 * `reasoning_content`, `stop_reason` mapped to a `finish_reason`, the usage counted as litellm counts
 * it: `prompt_tokens` includes the cache reads and writes, `prompt_tokens_details.cached_tokens` the
 * reads, `cache_creation_input_tokens` the writes). A streamed answer (`event: message_start`,
 * `content_block_*`, `message_delta`, `message_stop`) is rebuilt into the message a plain request
 * returns, so the saved message does not depend on the transport.
 *
 * @module
 */
import type { Json, ReplyMessage, ToolCall } from "../../types.ts";
import { MalformedBodyError, oneLine, type ParsedBody, parseJson, ProviderErrorBody } from "../_wire.ts";
import { pyJsonDumps } from "../../../lib/python/pyjson.ts";
import type { StreamSink } from "./_stream.ts";
import { isPlainObject, type JsonObject } from "../../../lib/json.ts";

type Obj = { [key: string]: Json };

/** Anthropic's error types, as the HTTP statuses they stand for (retried or not as those are). */
const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** litellm's `map_finish_reason` for Anthropic's stop reasons. */
const FINISH: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
  model_context_window_exceeded: "length",
};

/** An Anthropic error object (`{"type": "error", "error": {"type", "message"}}`) as a provider error. */
export function anthropicError(data: Json, where: string): ProviderErrorBody | undefined {
  if (!isPlainObject(data) || (data.type !== "error" && data.error === undefined)) return undefined;
  const error = isPlainObject(data.error) ? data.error : {};
  const type = typeof error.type === "string" ? error.type : "error";
  const message = typeof error.message === "string" ? error.message : JSON.stringify(data.error ?? data);
  return new ProviderErrorBody(`provider error ${where}: ${type}: ${oneLine(message)}`, ERROR_STATUS[type]);
}

/**
 * Parse a Messages API body into what the chat model reads: litellm's OpenAI-shaped message and
 * response. A served message is never rejected for its shape: what cannot be used is a `problem` the
 * model sees as a format error (the call was paid for).
 *
 * @param body the body text, or the message a stream rebuilt
 * @param now the response's `created` (litellm stamps the time of the answer), seconds
 * @throws {MalformedBodyError} when the body is not JSON
 * @throws {ProviderErrorBody} when it is an error object
 */
export function parseAnthropicBody(body: string | Json, now = Math.floor(Date.now() / 1000)): ParsedBody {
  let data: Json;
  if (typeof body === "string") {
    try {
      data = parseJson(body);
    } catch {
      const shown = body.length === 0 ? "empty" : JSON.stringify(oneLine(body, 80));
      throw new MalformedBodyError(`Cannot parse Anthropic message: body is not JSON (${shown})`);
    }
  } else data = body;
  const error = anthropicError(data, "in a 200 body");
  if (error !== undefined) throw error;
  const message = isPlainObject(data) ? data : {};
  const blocks = Array.isArray(message.content)
    ? message.content.filter((b): b is JsonObject => isPlainObject(b))
    : [];
  const usage = anthropicUsage(isPlainObject(message.usage) ? message.usage : {});
  const finish = typeof message.stop_reason === "string"
    ? FINISH[message.stop_reason] ?? message.stop_reason
    : null;
  const reply = assistantMessage(blocks);
  const response: Obj = {
    id: message.id ?? null,
    created: now,
    model: message.model ?? null,
    object: "chat.completion",
    system_fingerprint: null,
    choices: [{ finish_reason: finish, index: 0, message: reply as Obj }],
    usage,
  };
  const parsed: ParsedBody = { message: reply, finish_reason: finish, usage, body: response };
  if (!Array.isArray(message.content)) {
    parsed.problem = "The response has no content (content is not a list).";
  }
  return parsed;
}

/** The blocks as litellm's `Message`: text joined, calls as OpenAI tool calls, thinking kept. */
function assistantMessage(blocks: Obj[]): ReplyMessage {
  let text = "";
  const calls: ToolCall[] = [];
  const thinking: Obj[] = [];
  blocks.forEach((block, index) => {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "tool_use" || block.type === "server_tool_use") {
      // litellm keeps the block's position as the call's `index` (its dump's first field).
      const position = { index };
      // A string is a streamed input that is not JSON (cut at max_tokens, or malformed): kept as it
      // came, so the model's parse of the arguments makes it the format error it is on every path.
      const args = typeof block.input === "string" ? block.input : pyJsonDumps(block.input ?? {});
      calls.push({
        ...position,
        function: { arguments: args, name: String(block.name ?? "") },
        id: String(block.id ?? ""),
        type: "function",
      });
    } else if (block.type === "thinking" || block.type === "redacted_thinking") thinking.push(block);
  });
  // litellm's dump has `tool_calls: null` without calls; it is left out, as the chat client leaves it out.
  const message: ReplyMessage = { content: text === "" ? null : text, role: "assistant" };
  if (calls.length > 0) message.tool_calls = calls;
  message.function_call = null;
  if (thinking.length > 0) {
    message.reasoning_content = thinking.map((b) => (typeof b.thinking === "string" ? b.thinking : "")).join(
      "",
    );
    message.thinking_blocks = thinking;
  }
  return message;
}

/** Anthropic's usage as litellm's `Usage`: the prompt counts the cache reads and writes too. */
function anthropicUsage(usage: Obj): Obj {
  const n = (v: Json | undefined) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
  const read = n(usage.cache_read_input_tokens);
  const write = n(usage.cache_creation_input_tokens);
  const prompt = n(usage.input_tokens) + read + write;
  const completion = n(usage.output_tokens);
  return {
    completion_tokens: completion,
    prompt_tokens: prompt,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: read, cache_creation_tokens: write },
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
  };
}

/**
 * Read a streamed Messages API answer and rebuild the message a plain request returns.
 *
 * @param body the response body (`text/event-stream`)
 * @param sink receives `start` at `message_start` and each piece of text
 * @throws {ProviderErrorBody} for an `error` event (with the status its type stands for)
 * @throws {MalformedBodyError} for an event that is not JSON, or a stream that ends before the reply
 *   is complete (retryable, as a malformed plain body)
 */
export async function readAnthropicStream(
  body: ReadableStream<Uint8Array>,
  sink?: StreamSink,
): Promise<Json> {
  const state = new StreamedMessage(sink);
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    while (!state.done) {
      let read: ReadableStreamReadResult<string>;
      try {
        read = await reader.read();
      } catch (error) {
        if (state.stopReason === undefined) throw error;
        break; // broken after message_delta: the reply was served whole
      }
      if (read.done) break;
      buffer += read.value.replaceAll("\r\n", "\n").replaceAll("\r", "\n");
      let end: number;
      while (!state.done && (end = buffer.indexOf("\n\n")) >= 0) {
        state.event(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
    if (!state.done && buffer.trim() !== "") state.event(buffer);
  } finally {
    reader.cancel().catch(() => {});
  }
  return state.message();
}

/** The message a stream builds, event by event. */
class StreamedMessage {
  done = false;
  stopReason: Json | undefined;
  #message: Obj | undefined;
  #blocks: Obj[] = [];
  #json: string[] = [];
  /** The block started last (what an event without `index` is about). */
  #current = 0;
  readonly #sink: StreamSink | undefined;

  constructor(sink: StreamSink | undefined) {
    this.#sink = sink;
  }

  event(text: string): void {
    const data = text.split("\n").filter((l) => l.startsWith("data:")).map((l) =>
      l.slice(5).replace(/^ /, "")
    )
      .join("\n");
    if (data.trim() === "") return;
    let event: Json;
    try {
      event = parseJson(data);
    } catch {
      throw new MalformedBodyError(`Cannot parse Anthropic stream: event is not JSON (${oneLine(data, 80)})`);
    }
    if (!isPlainObject(event)) {
      throw new MalformedBodyError("Cannot parse Anthropic stream: event is not an object");
    }
    const error = anthropicError(event, "in the stream");
    if (error !== undefined) throw error;
    this.#apply(event);
  }

  #apply(event: Obj): void {
    // An event without `index` (some proxies leave it out) is about the block started last; a start
    // without one starts the next block.
    const given = typeof event.index === "number" && Number.isSafeInteger(event.index) && event.index >= 0
      ? event.index
      : undefined;
    const index = given ?? (event.type === "content_block_start" ? this.#blocks.length : this.#current);
    switch (event.type) {
      case "message_start":
        this.#message = isPlainObject(event.message) ? { ...event.message } : {};
        this.#sink?.({ type: "start" });
        break;
      case "content_block_start":
        this.#blocks[index] = isPlainObject(event.content_block) ? { ...event.content_block } : {};
        this.#json[index] = "";
        this.#current = index;
        break;
      case "content_block_delta":
        this.#delta(index, isPlainObject(event.delta) ? event.delta : {});
        break;
      case "content_block_stop": {
        const block = this.#blocks[index];
        if (block?.type === "tool_use" || block?.type === "server_tool_use") {
          block.input = this.#input(index, block);
        }
        break;
      }
      case "message_delta": {
        const delta = isPlainObject(event.delta) ? event.delta : {};
        if (this.#message === undefined) this.#message = {};
        Object.assign(this.#message, delta);
        if ("stop_reason" in delta) this.stopReason = delta.stop_reason;
        if (isPlainObject(event.usage)) {
          const usage = isPlainObject(this.#message.usage) ? this.#message.usage : {};
          this.#message.usage = { ...usage, ...event.usage };
        }
        break;
      }
      case "message_stop":
        this.done = true;
        break;
    }
  }

  /**
   * A tool block's input from its JSON pieces; a text that is not JSON (the reply was cut at
   * `max_tokens` inside it, or the model wrote it malformed) stays a string: the reply was paid for.
   */
  #input(index: number, block: Obj): Json {
    const json = this.#json[index] ?? "";
    if (json === "") return block.input ?? {};
    try {
      return parseJson(json);
    } catch {
      return json;
    }
  }

  #delta(index: number, delta: Obj): void {
    const block = this.#blocks[index] ??= {};
    const append = (key: string, text: Json | undefined) => {
      if (typeof text === "string") block[key] = (typeof block[key] === "string" ? block[key] : "") + text;
    };
    if (delta.type === "text_delta") {
      append("text", delta.text);
      if (typeof delta.text === "string" && delta.text !== "") {
        this.#sink?.({ type: "text", text: delta.text });
      }
    } else if (delta.type === "input_json_delta") {
      this.#json[index] = (this.#json[index] ?? "") +
        (typeof delta.partial_json === "string" ? delta.partial_json : "");
    } else if (delta.type === "thinking_delta") append("thinking", delta.thinking);
    else if (delta.type === "signature_delta") append("signature", delta.signature);
    else if (delta.type === "citations_delta" && delta.citation !== undefined) {
      block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
    }
  }

  message(): Json {
    if (this.#message === undefined) {
      throw new MalformedBodyError("Cannot parse Anthropic stream: no message_start");
    }
    if (!this.done && this.stopReason === undefined) {
      throw new MalformedBodyError("Cannot parse Anthropic stream: it ended before the reply was complete");
    }
    // A block still open (a stream ended at max_tokens without its stop) keeps what arrived of its input.
    this.#blocks.forEach((block, i) => {
      const open = block !== undefined && (block.type === "tool_use" || block.type === "server_tool_use") &&
        isPlainObject(block.input) && Object.keys(block.input).length === 0 && (this.#json[i] ?? "") !== "";
      if (open) block.input = this.#input(i, block);
    });
    return { ...this.#message, content: this.#blocks.filter((b) => b !== undefined) };
  }
}
