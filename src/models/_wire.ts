/**
 * The one place where a chat-completion body from the wire becomes our own types.
 *
 * @module
 */
import type { Json, ToolCall, WireMessage } from "../types.ts";

/** A chat-completion body, checked and split into the parts the clients need. */
export interface ParsedBody {
  /** The assistant message as returned (every provider field kept). */
  message: WireMessage;
  finish_reason: string | null;
  /** `usage` from the body, if it was a mapping. */
  usage: { [key: string]: Json } | undefined;
  /** The whole body. */
  body: Json;
}

/** A 200 response whose body is not a chat completion (retryable: providers send these under load). */
export class MalformedBodyError extends SyntaxError {
  /** @param message what was wrong with the body */
  constructor(message: string) {
    super(message);
    this.name = "MalformedBodyError";
  }
}

/**
 * Parse and check a chat-completion body: `choices[0].message` must be a mapping whose `content` is a
 * string or null and whose `tool_calls`, if any, are well-formed function calls.
 *
 * @param body the body text, or an already-built JSON value
 * @throws {MalformedBodyError} when the body is not JSON or not a chat completion
 */
export function parseCompletionBody(body: string | Json): ParsedBody {
  let data: Json;
  if (typeof body === "string") {
    try {
      data = JSON.parse(body);
    } catch {
      throw new MalformedBodyError(`Cannot parse completion: body is not JSON (${snippet(body)})`);
    }
  } else {
    data = body;
  }
  if (!isObject(data)) throw new MalformedBodyError(`Cannot parse completion: body is not an object`);
  const choice = Array.isArray(data.choices) ? data.choices[0] : undefined;
  const raw = isObject(choice) ? choice.message : undefined;
  if (!isObject(choice) || !isObject(raw)) {
    const error = isObject(data.error) ? data.error.message : data.error;
    const why = typeof error === "string" ? `: provider error: ${oneLine(error)}` : "";
    throw new MalformedBodyError(`Cannot parse completion: body has no choices[0].message${why}`);
  }
  if (raw.role !== undefined && raw.role !== "assistant") {
    throw new MalformedBodyError(`Cannot parse completion: message role is ${JSON.stringify(raw.role)}`);
  }
  const content = raw.content ?? null;
  if (content !== null && typeof content !== "string") {
    throw new MalformedBodyError("Cannot parse completion: message content is neither a string nor null");
  }
  const { role: _role, content: _content, tool_calls: rawCalls, ...rest } = raw;
  const message: WireMessage = { ...rest, role: "assistant", content };
  if (rawCalls !== undefined && rawCalls !== null) {
    if (!Array.isArray(rawCalls)) {
      throw new MalformedBodyError("Cannot parse completion: tool_calls is not a list");
    }
    message.tool_calls = rawCalls.map(toToolCall);
  }
  const finish = choice.finish_reason;
  return {
    message,
    finish_reason: typeof finish === "string" ? finish : null,
    usage: isObject(data.usage) ? data.usage : undefined,
    body: data,
  };
}

function toToolCall(call: Json, index: number): ToolCall {
  const fn = isObject(call) ? call.function : undefined;
  if (
    !isObject(call) || typeof call.id !== "string" || (call.type !== undefined && call.type !== "function") ||
    !isObject(fn) || typeof fn.name !== "string" || typeof fn.arguments !== "string"
  ) {
    throw new MalformedBodyError(`Cannot parse completion: tool_calls[${index}] is not a function call`);
  }
  return {
    ...call,
    id: call.id,
    type: "function",
    function: { ...fn, name: fn.name, arguments: fn.arguments },
  };
}

/** True for a JSON object (not an array, not null). */
export function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Collapse whitespace and cut to `max` characters, for one-line messages. */
export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

function snippet(text: string): string {
  return text.length === 0 ? "empty" : JSON.stringify(oneLine(text, 80));
}
