/**
 * The one place where a chat-completion body from the wire becomes our own types.
 *
 * @module
 */
import { parsePythonJson } from "../../lib/python/pyjson.ts";
import type { Completion, Json, ReplyMessage, ToolCall } from "../types.ts";
import { isPlainObject } from "../../lib/json.ts";

/** A chat-completion body, checked and split into the parts the clients need. */
export interface ParsedBody {
  /** The assistant message as returned (every provider field kept), its shape normalised. */
  message: ReplyMessage;
  finish_reason: string | null;
  /** `usage` from the body, if it was a mapping. */
  usage: { [key: string]: Json } | undefined;
  /** The whole body. */
  body: Json;
  /** Why a served response cannot be used: the model sees it as a format error. */
  problem?: string;
}

/** The completion a chat client returns: the parsed body and what the call cost. */
export function completionOf(parsed: ParsedBody, cost: number): Completion {
  const { message, finish_reason, body: response, problem } = parsed;
  return { message, finish_reason, cost, response, ...(problem !== undefined ? { problem } : {}) };
}

/** The model a response body names (its `model`), if it names one. */
export function servedModel(body: Json): string | undefined {
  const model = isPlainObject(body) ? body.model : undefined;
  return typeof model === "string" && model !== "" ? model : undefined;
}

/** A 200 response whose body is not JSON (retryable: proxies send these under load). */
export class MalformedBodyError extends SyntaxError {
  /** @param message what was wrong with the body */
  constructor(message: string) {
    super(message);
    this.name = "MalformedBodyError";
  }
}

/** A 200 response whose body is a provider error (`{"error": ...}` and no choices): nothing was served. */
export class ProviderErrorBody extends Error {
  /** The error's numeric `code` or `status`, when it has one. */
  readonly code: number | undefined;
  /**
   * @param message one line with the provider's message
   * @param code the error's own status code
   */
  constructor(message: string, code: number | undefined) {
    super(message);
    this.name = "ProviderErrorBody";
    this.code = code;
  }
}

/**
 * Parse a chat-completion body. A served response is never rejected for its shape: provider quirks
 * are normalised as litellm does (a tool call without an `id` gets one, object `arguments` are
 * serialised, `content` given as a list of parts is joined), and what cannot be used is reported
 * as {@link ParsedBody.problem}, which the model sees as a format error (the call was paid for).
 *
 * @param body the body text, or an already-built JSON value
 * @throws {MalformedBodyError} when the body is not JSON (`NaN` and `Infinity` are, as in Python)
 * @throws {ProviderErrorBody} when the body is an error object instead of a completion
 */
export function parseCompletionBody(body: string | Json): ParsedBody {
  let data: Json;
  if (typeof body === "string") {
    try {
      data = parseJson(body);
    } catch {
      throw new MalformedBodyError(`Cannot parse completion: body is not JSON (${snippet(body)})`);
    }
  } else {
    data = body;
  }
  const choice = isPlainObject(data) && Array.isArray(data.choices) ? data.choices[0] : undefined;
  const raw = isPlainObject(choice) ? choice.message : undefined;
  const usage = isPlainObject(data) && isPlainObject(data.usage) ? data.usage : undefined;
  const finish = isPlainObject(choice) && typeof choice.finish_reason === "string"
    ? choice.finish_reason
    : null;
  const served = (problem: string): ParsedBody => ({
    message: { role: "assistant", content: null },
    finish_reason: finish,
    usage,
    body: data,
    problem,
  });
  if (!isPlainObject(raw)) {
    const error = isPlainObject(data) ? data.error : undefined;
    if (error !== undefined && error !== null && !isPlainObject(choice)) {
      const text = isPlainObject(error) ? error.message : error;
      const code = isPlainObject(error) ? Number(error.code ?? error.status) : NaN;
      throw new ProviderErrorBody(
        `provider error in a 200 body: ${oneLine(typeof text === "string" ? text : JSON.stringify(error))}`,
        Number.isInteger(code) ? code : undefined,
      );
    }
    return served("The response has no message (choices[0].message is missing).");
  }
  const { role: _role, content: rawContent, tool_calls: rawCalls, ...rest } = raw;
  const content = textContent(rawContent);
  if (content === undefined) {
    return served("The response's message content is neither text nor a list of text parts.");
  }
  const message: ReplyMessage = { ...rest, role: "assistant", content };
  if (rawCalls !== undefined && rawCalls !== null) {
    if (!Array.isArray(rawCalls)) return served("The response's tool_calls is not a list.");
    const calls: ToolCall[] = [];
    for (const [index, call] of rawCalls.entries()) {
      const parsed = toToolCall(call);
      if (typeof parsed === "string") return served(`The response's tool_calls[${index}] ${parsed}.`);
      calls.push(parsed);
    }
    message.tool_calls = calls;
  }
  return { message, finish_reason: finish, usage, body: data };
}

/** `content` as text: a string, null, or the text parts of a list joined (litellm's reading). */
function textContent(content: Json | undefined): string | null | undefined {
  if (content === undefined || content === null || typeof content === "string") return content ?? null;
  if (!Array.isArray(content)) return undefined;
  let text = "";
  for (const part of content) {
    if (typeof part === "string") text += part;
    else if (isPlainObject(part) && typeof part.text === "string") text += part.text;
    else if (!isPlainObject(part)) return undefined; // other parts (images, reasoning) carry no text
  }
  return text;
}

/** A tool call normalised as litellm does, or what is wrong with it. */
function toToolCall(call: Json): ToolCall | string {
  const fn = isPlainObject(call) ? call.function : undefined;
  if (!isPlainObject(call) || !isPlainObject(fn)) return "is not a function call";
  if (call.type !== undefined && call.type !== null && call.type !== "function") {
    return "is not a function call";
  }
  if (typeof fn.name !== "string") return "has no function name";
  const args = fn.arguments;
  const text = typeof args === "string"
    ? args
    : args === undefined || args === null
    ? ""
    : JSON.stringify(args);
  const id = typeof call.id === "string" && call.id !== ""
    ? call.id
    : typeof call.id === "number"
    ? String(call.id)
    : `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  return { ...call, id, type: "function", function: { ...fn, name: fn.name, arguments: text } };
}

/**
 * A body as Python's `json.loads` reads it: `NaN`, `Infinity` and `-Infinity` are numbers (Python
 * servers send them, e.g. in logprobs), so a served answer holding one is not mistaken for garbage.
 *
 * @param text JSON text
 * @throws {SyntaxError} when it is not JSON even by Python's rules
 */
export function parseJson(text: string): Json {
  return parsePythonJson(text) as Json;
}

/** Collapse whitespace and cut to `max` characters, for one-line messages. */
export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

/** A body as messages quote it: on one line, cut to 80 characters (`empty` for none). */
export function snippet(text: string): string {
  return text.length === 0 ? "empty" : JSON.stringify(oneLine(text, 80));
}
