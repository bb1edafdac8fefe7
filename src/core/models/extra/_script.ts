/**
 * The script format shared by the scripted client and the loopback fake server: a YAML or JSON file
 * holding a list of replies (or `{replies: [...]}`). A reply is either a message the model "sends"
 * or, for the fake server only, a transport fault.
 *
 * @module
 */
import { errorMessage } from "../../../lib/errors.ts";
import { load } from "js-yaml";
import type { Json } from "../../types.ts";
import { isPlainObject } from "../../../lib/json.ts";

/** One scripted assistant reply. */
export interface ScriptMessageReply {
  /** Reply text; `null` or absent for a tool-call-only reply. */
  content?: string | null;
  /** OpenAI tool calls, sent as written. Exclusive with `commands`. */
  tool_calls?: Json[];
  /**
   * Shorthand: each string becomes a `bash` tool call with the deterministic id
   * `call_<reply index>_<command index>` (both 0-based).
   */
  commands?: string[];
  /** Defaults to `tool_calls` when the reply has tool calls, else `stop`. */
  finish_reason?: string;
  /** Merged over the default usage (`prompt_tokens` 10, `completion_tokens` 5, `total_tokens` 15). */
  usage?: { [key: string]: Json };
  /** Provider-reported cost in dollars, sent as `usage.cost`. */
  cost?: number;
  /** Copied into the assistant message (reasoning models return it). */
  reasoning_content?: Json;
}

/** A transport fault the fake server plays instead of a reply (the scripted client rejects it). */
export type ScriptFault =
  /** Answer with this HTTP status (and optional `Retry-After` header, other headers and body). */
  | {
    fault: "status";
    status: number;
    retry_after?: number | string;
    /** Response headers, e.g. `location` for a redirect (they replace the defaults of the same name). */
    headers?: Record<string, string>;
    body?: string;
  }
  /** Close the connection without answering. */
  | { fault: "drop" }
  /** Answer 200 with a body that is not JSON. */
  | { fault: "garbage" }
  /** Read the request, then say nothing for `seconds` and close the connection. */
  | { fault: "stall"; seconds: number }
  /** Send the headers and half of a valid body, then close the connection. */
  | { fault: "truncate" };

/** One entry of a script. */
export type ScriptReply = ScriptMessageReply | ScriptFault;

const MESSAGE_KEYS = [
  "content",
  "tool_calls",
  "commands",
  "finish_reason",
  "usage",
  "cost",
  "reasoning_content",
];
const FAULT_KEYS: Record<ScriptFault["fault"], string[]> = {
  status: ["status", "retry_after", "headers", "body"],
  drop: [],
  garbage: [],
  stall: ["seconds"],
  truncate: [],
};

/** The fixed `created` timestamp of scripted responses, so trajectories are deterministic. */
export const SCRIPT_CREATED = 1_700_000_000;

/** True when the entry is a transport fault rather than a reply. */
export function isFault(reply: ScriptReply): reply is ScriptFault {
  return "fault" in reply;
}

/**
 * Read a script file (YAML or JSON; JSON is YAML).
 *
 * @example
 * ```ts ignore
 * const replies = await loadScript("tests/testdata/scripts/hello.yaml");
 * ```
 * @param path the file to read
 * @returns the validated replies
 * @throws {SyntaxError} when the file does not parse or an entry is malformed (message names the entry)
 */
export async function loadScript(path: string): Promise<ScriptReply[]> {
  const text = await Deno.readTextFile(path);
  let data: unknown;
  try {
    data = load(text);
  } catch (error) {
    throw new SyntaxError(`Cannot load script ${path}: ${String(error)}`, { cause: error });
  }
  return parseScript(data, path);
}

/**
 * Validate already-parsed script data.
 *
 * @param data a list of replies, or `{replies: [...]}`
 * @param source named in error messages
 * @throws {SyntaxError} when an entry is malformed
 */
export function parseScript(data: unknown, source = "script"): ScriptReply[] {
  const list = isPlainObject(data) && Object.keys(data).length === 1 ? data.replies : data;
  if (!Array.isArray(list)) {
    throw new SyntaxError(`Cannot load script ${source}: expected a list of replies or {replies: [...]}`);
  }
  return list.map((entry: unknown, index) => {
    try {
      return parseEntry(entry);
    } catch (error) {
      throw new SyntaxError(`Cannot load script ${source}: reply ${index + 1}: ${errorMessage(error)}`);
    }
  });
}

function parseEntry(entry: unknown): ScriptReply {
  if (!isPlainObject(entry)) throw new Error("expected a mapping");
  const fault = entry.fault;
  if (fault !== undefined) {
    if (typeof fault !== "string" || !(fault in FAULT_KEYS)) {
      throw new Error(`unknown fault ${JSON.stringify(fault)} (use ${Object.keys(FAULT_KEYS).join(", ")})`);
    }
    checkKeys(entry, ["fault", ...FAULT_KEYS[fault as ScriptFault["fault"]]]);
    if (fault === "status") {
      const { status, retry_after, headers, body } = entry;
      if (typeof status !== "number" || !Number.isInteger(status) || status < 200 || status > 599) {
        throw new Error("`status` must be an HTTP status code");
      }
      const out: ScriptFault = { fault: "status", status };
      if (typeof retry_after === "number" || typeof retry_after === "string") out.retry_after = retry_after;
      else if (retry_after !== undefined) throw new Error("`retry_after` must be a number or a string");
      if (isPlainObject(headers) && Object.values(headers).every((v) => typeof v === "string")) {
        out.headers = headers as Record<string, string>;
      } else if (headers !== undefined) throw new Error("`headers` must map names to strings");
      if (typeof body === "string") out.body = body;
      else if (body !== undefined) throw new Error("`body` must be a string");
      return out;
    }
    if (fault === "stall") {
      if (typeof entry.seconds !== "number" || entry.seconds < 0) {
        throw new Error("`seconds` must be a number");
      }
      return { fault: "stall", seconds: entry.seconds };
    }
    if (fault === "drop" || fault === "garbage" || fault === "truncate") return { fault };
    throw new Error(`unknown fault ${JSON.stringify(fault)}`);
  }
  checkKeys(entry, MESSAGE_KEYS);
  const reply: ScriptMessageReply = {};
  const { content, tool_calls, commands, finish_reason, usage, cost, reasoning_content } = entry;
  if (content === null || typeof content === "string") reply.content = content;
  else if (content !== undefined) throw new Error("`content` must be a string or null");
  if (tool_calls !== undefined && commands !== undefined) {
    throw new Error("use either `tool_calls` or `commands`");
  }
  if (tool_calls !== undefined) {
    if (!Array.isArray(tool_calls)) throw new Error("`tool_calls` must be a list");
    reply.tool_calls = tool_calls.map(toJson);
  }
  if (commands !== undefined) {
    if (!Array.isArray(commands) || !commands.every((c) => typeof c === "string")) {
      throw new Error("`commands` must be a list of strings");
    }
    reply.commands = commands;
  }
  if (typeof finish_reason === "string") reply.finish_reason = finish_reason;
  else if (finish_reason !== undefined) throw new Error("`finish_reason` must be a string");
  if (isPlainObject(usage)) {
    reply.usage = Object.fromEntries(Object.entries(usage).map(([k, v]) => [k, toJson(v)]));
  } else if (usage !== undefined) throw new Error("`usage` must be a mapping");
  if (typeof cost === "number" && cost >= 0) reply.cost = cost;
  else if (cost !== undefined) throw new Error("`cost` must be a number >= 0");
  if (reasoning_content !== undefined) reply.reasoning_content = toJson(reasoning_content);
  return reply;
}

/**
 * Build the full `chat.completion` JSON body a provider would send for a scripted reply.
 *
 * @example
 * ```ts
 * import { toCompletionBody } from "./_script.ts";

 * const body = toCompletionBody({ commands: ["ls"] }, 0, "scripted");
 * ```
 * @param reply a message reply (not a fault)
 * @param index the reply's 0-based position in the script (ids derive from it)
 * @param model the model name echoed in the body
 * @returns the response body
 */
export function toCompletionBody(reply: ScriptMessageReply, index: number, model: string): Json {
  const toolCalls: Json[] = reply.tool_calls ?? (reply.commands ?? []).map((command, j) => ({
    id: `call_${index}_${j}`,
    type: "function",
    function: { name: "bash", arguments: JSON.stringify({ command }) },
  }));
  const message: { [key: string]: Json } = { role: "assistant", content: reply.content ?? null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reply.reasoning_content !== undefined) message.reasoning_content = reply.reasoning_content;
  const usage: { [key: string]: Json } = {
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    ...reply.usage,
  };
  if (reply.cost !== undefined) usage.cost = reply.cost;
  return {
    id: `chatcmpl-scripted-${index}`,
    object: "chat.completion",
    created: SCRIPT_CREATED,
    model,
    choices: [{
      index: 0,
      message,
      finish_reason: reply.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    }],
    usage,
  };
}

/**
 * Build the Responses API body (`object: "response"`) a provider would send for a scripted reply:
 * a reasoning item (from `reasoning_content`), a message item (from `content`), then one
 * `function_call` item per call; `finish_reason: length` becomes `status: incomplete` for
 * `max_output_tokens`.
 *
 * @example
 * ```ts
 * import { toResponsesBody } from "./_script.ts";

 * const body = toResponsesBody({ commands: ["ls"] }, 0, "scripted");
 * ```
 * @param reply a message reply (not a fault)
 * @param index the reply's 0-based position in the script (ids derive from it)
 * @param model the model name echoed in the body
 * @returns the response body
 */
export function toResponsesBody(reply: ScriptMessageReply, index: number, model: string): Json {
  const output: Json[] = [];
  if (reply.reasoning_content !== undefined) {
    const text = typeof reply.reasoning_content === "string"
      ? reply.reasoning_content
      : JSON.stringify(reply.reasoning_content);
    output.push({ type: "reasoning", id: `rs_${index}`, summary: [{ type: "summary_text", text }] });
  }
  if (reply.content) {
    output.push({
      type: "message",
      id: `msg_${index}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: reply.content, annotations: [] }],
    });
  }
  const calls = reply.tool_calls ?? (reply.commands ?? []).map((command, j): Json => ({
    id: `call_${index}_${j}`,
    function: { name: "bash", arguments: JSON.stringify({ command }) },
  }));
  calls.forEach((call, j) => {
    const c = isPlainObject(call) ? call : {};
    const fn = isPlainObject(c.function) ? c.function : {};
    output.push({
      type: "function_call",
      id: `fc_${index}_${j}`,
      call_id: toJson(c.id),
      name: toJson(fn.name),
      arguments: toJson(fn.arguments),
      status: "completed",
    });
  });
  const incomplete = reply.finish_reason === "length";
  const usage: { [key: string]: Json } = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
    ...reply.usage,
  };
  if (reply.cost !== undefined) usage.cost = reply.cost;
  return {
    id: `resp_scripted_${index}`,
    object: "response",
    created_at: SCRIPT_CREATED,
    status: incomplete ? "incomplete" : "completed",
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    model,
    output,
    usage,
  };
}

function checkKeys(entry: Record<string, unknown>, allowed: string[]): void {
  for (const key of Object.keys(entry)) {
    if (!allowed.includes(key)) throw new Error(`unknown key "${key}" (allowed: ${allowed.join(", ")})`);
  }
}

/** YAML can produce dates and other non-JSON values; round-trip through JSON to get plain data. */
function toJson(value: unknown): Json {
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}
