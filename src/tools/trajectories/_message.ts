/**
 * Reading the parts of a stored message whatever the provider's shape: chat completions
 * (`content`, `tool_calls`, `usage.prompt_tokens`) and the Responses API (`output` items,
 * `usage.input_tokens`), as upstream stores each.
 *
 * @module
 */
import type { ToolCall } from "../../core/types.ts";
import type { StoredMessage, Tokens } from "./types.ts";
import { isPlainObject } from "../../lib/json.ts";

/** A plain object (not an array, not null). */
export type Rec = Record<string, unknown>;

/** `x` as a record, else an empty one. */
export function rec(x: unknown): Rec {
  return isPlainObject(x) ? x : {};
}

/** `x` when it is a finite number. */
export function num(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) ? x : undefined;
}

/**
 * `x` when it is a finite number >= 0: a token count or a cost. A negative one (a provider's or a
 * hand-edited file's) counts as missing, so totals never go down.
 */
export function count(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : undefined;
}

/** `x` when it is a string. */
export function str(x: unknown): string | undefined {
  return typeof x === "string" ? x : undefined;
}

/** The text of content given as a string or as a list of parts (`text`, `input_text`, `output_text`). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isPlainObject(part) && typeof part.text === "string" ? part.text : "")).join(
    "",
  );
}

/** The Responses API output items of a message that is a whole response (`output: [...]`). */
function outputItems(m: Rec): Rec[] {
  return Array.isArray(m.output) ? m.output.filter(isPlainObject) : [];
}

/** A reply's text: its content, or the text of its Responses API `message` items. */
export function replyText(m: Rec): string {
  if (m.content !== undefined && m.content !== null) return contentText(m.content);
  return outputItems(m).filter((o) => o.type === "message").map((o) => contentText(o.content)).join("");
}

/** A reply's reasoning: `reasoning_content`, `reasoning`, or Responses API reasoning summaries. */
export function replyReasoning(m: Rec): string | undefined {
  for (const key of ["reasoning_content", "reasoning"]) {
    const value = m[key];
    if (typeof value === "string" && value) return value;
  }
  const summaries = outputItems(m).filter((o) => o.type === "reasoning")
    .flatMap((o) => (Array.isArray(o.summary) ? o.summary : []).map((s) => contentText([s])));
  return summaries.length ? summaries.join("\n") : undefined;
}

/** A reply's tool calls, as chat-completions `ToolCall`s (Responses API `function_call` items mapped). */
export function replyToolCalls(m: Rec): ToolCall[] {
  if (Array.isArray(m.tool_calls)) {
    return m.tool_calls.filter(isPlainObject).map((c) => {
      const f = rec(c.function);
      return {
        id: String(c.id ?? ""),
        type: "function",
        function: {
          name: String(f.name ?? ""),
          arguments: typeof f.arguments === "string" ? f.arguments : "",
        },
      };
    });
  }
  return outputItems(m).filter((o) => o.type === "function_call").map((o) => ({
    id: String(o.call_id ?? o.id ?? ""),
    type: "function",
    function: { name: String(o.name ?? ""), arguments: typeof o.arguments === "string" ? o.arguments : "" },
  }));
}

/** The raw API response of a reply: `extra.response`, or the message itself when it is a response. */
export function replyResponse(m: Rec): Rec {
  const response = rec(m.extra).response;
  if (isPlainObject(response)) return response;
  return Array.isArray(m.output) ? m : {};
}

/** Token counts from a response's `usage` (chat completions, Responses API, Anthropic's names); negative ones count as 0. */
export function usageOf(response: Rec): Tokens | undefined {
  const u = response.usage;
  if (!isPlainObject(u)) return undefined;
  const promptDetails = rec(u.prompt_tokens_details ?? u.input_tokens_details);
  const completionDetails = rec(u.completion_tokens_details ?? u.output_tokens_details);
  return {
    prompt: count(u.prompt_tokens) ?? count(u.input_tokens) ?? 0,
    completion: count(u.completion_tokens) ?? count(u.output_tokens) ?? 0,
    cached: count(promptDetails.cached_tokens) ?? count(u.cache_read_input_tokens) ??
      count(u.cached_tokens) ??
      0,
    reasoning: count(completionDetails.reasoning_tokens) ?? 0,
  };
}

/** The first choice's assistant message of a chat-completions response. */
export function responseMessage(response: Rec): Rec | undefined {
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  return isPlainObject(choice) && isPlainObject(choice.message) ? choice.message : undefined;
}

/** A response's finish reason (chat completions) or status (Responses API). */
export function finishReasonOf(response: Rec): string | undefined {
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  return str(rec(choice).finish_reason) ?? str(response.status);
}

/** The tool call id an observation answers (`tool_call_id`, or a Responses API `call_id`). */
export function observationCallId(m: Rec): string | undefined {
  return str(m.tool_call_id) ?? (m.type === "function_call_output" ? str(m.call_id) : undefined);
}

/** An observation's text as the model saw it. */
export function observationText(m: Rec): string {
  return m.type === "function_call_output" ? contentText(m.output) : contentText(m.content);
}

/** The timestamp of a message: `extra.timestamp` (v2), else a top-level `timestamp` (v1). */
export function timestampOf(m: Rec): number | undefined {
  return num(rec(m.extra).timestamp) ?? num(m.timestamp);
}

/** The message with its role, or an empty string (Responses API items have none). */
export function roleOf(m: StoredMessage | Rec): string {
  return typeof m.role === "string" ? m.role : "";
}
