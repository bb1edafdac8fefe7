/**
 * Bedrock's Converse API (`POST /model/{modelId}/converse`) as litellm's `AmazonConverseConfig` speaks
 * it: system messages become `system` blocks; consecutive user and tool messages merge into one user
 * turn (tool results as `toolResult` blocks), consecutive assistant messages into one assistant turn
 * (thinking as `reasoningContent`, then text, then `toolUse` blocks); a `cache_control` marker becomes a
 * `cachePoint` block right after the block it marks, on a tool message too (litellm drops that one, so
 * a tool-calling run would cache only its first step); tools go in `toolConfig`. The answer becomes
 * litellm's OpenAI-shaped `ModelResponse`: text joined into `content`, `toolUse` blocks as `tool_calls`
 * (arguments as Python's `json.dumps` of the input), `stopReason` mapped to a `finish_reason`, and the
 * usage counted as litellm counts it (`prompt_tokens` includes the cache reads and writes).
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import type { Json, ReplyMessage, ToolCall, WireMessage } from "../../types.ts";
import { isJsonObject, isPlainObject, type JsonObject } from "../../../lib/json.ts";
import { parsePythonJson, pyJsonDumps } from "../../../lib/python/pyjson.ts";
import { MalformedBodyError, oneLine, type ParsedBody, parseJson } from "../_wire.ts";

type Block = { [key: string]: Json };
/** One Converse message. */
export interface ConverseMessage {
  role: "user" | "assistant";
  content: Block[];
}

const CACHE_POINT: Block = { cachePoint: { type: "default" } };

function marked(source: object): boolean {
  return "cache_control" in source && isJsonObject((source as { cache_control?: unknown }).cache_control);
}

function isPart(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An image part (a `data:` URL, the parts `model.multimodal_regex` makes) as a Converse image block. */
function imageBlock(part: Record<string, unknown>): Block {
  const image = part.image_url;
  const url = String(isPart(image) ? image.url ?? "" : image ?? "");
  const data = /^data:image\/([a-z]+);base64,(.*)$/s.exec(url);
  if (!data) {
    throw new ConfigError(
      "Cannot send an image to Bedrock's Converse API: only data: URLs are sent (litellm downloads other URLs; " +
        "claudius does not)",
    );
  }
  const format = data[1] === "jpg" ? "jpeg" : data[1]!;
  return { image: { format, source: { bytes: data[2]! } } };
}

/** A user message's blocks: text (empty text left out) and images, a cache point after a marked one. */
function userBlocks(message: WireMessage): Block[] {
  const content: unknown = message.content;
  if (typeof content === "string") {
    if (content === "") return [];
    return marked(message) ? [{ text: content }, CACHE_POINT] : [{ text: content }];
  }
  if (!Array.isArray(content)) return [];
  const out: Block[] = [];
  for (const part of content.filter(isPart)) {
    if (part.type === "text") out.push({ text: String(part.text ?? "") });
    else if (part.type === "image_url") out.push(imageBlock(part));
    else continue;
    if (marked(part)) out.push(CACHE_POINT);
  }
  return out;
}

/** A tool message as a `toolResult` block (its text parts joined), a cache point after it when marked. */
function toolBlocks(message: WireMessage): Block[] {
  const content: unknown = message.content;
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.filter(isPart).filter((p) => p.type === "text").map((p) => String(p.text ?? "")).join("")
    : "";
  const parts = Array.isArray(content) ? content.filter(isPart) : [];
  const result: Block = {
    toolResult: { toolUseId: String(message.tool_call_id ?? crypto.randomUUID()), content: [{ text }] },
  };
  return marked(message) || parts.some(marked) ? [result, CACHE_POINT] : [result];
}

/** A tool call's arguments as the object Converse wants (text that is no object becomes `{}`). */
function toolInput(args: string): Json {
  try {
    const value = parsePythonJson(args);
    return isJsonObject(value) ? value : {};
  } catch {
    return {};
  }
}

function assistantBlocks(message: WireMessage): Block[] {
  const out: Block[] = [];
  const thinking: unknown = message.thinking_blocks;
  if (Array.isArray(thinking)) {
    for (const b of thinking.filter(isPart)) {
      if (b.type !== "thinking") continue;
      const text: Block = { text: String(b.thinking ?? "") };
      if (typeof b.signature === "string") text.signature = b.signature;
      out.push({ reasoningContent: { reasoningText: text } });
    }
  }
  const content: unknown = message.content;
  if (typeof content === "string" && content.trim() !== "") out.push({ text: content });
  else if (Array.isArray(content)) {
    for (const p of content.filter(isPart)) {
      if (p.type === "text" && String(p.text ?? "").trim() !== "") out.push({ text: String(p.text) });
    }
  }
  for (const call of message.tool_calls ?? []) {
    out.push({
      toolUse: { toolUseId: call.id, name: call.function.name, input: toolInput(call.function.arguments) },
    });
  }
  if (marked(message) && out.length > 0) out.push(CACHE_POINT);
  return out;
}

/**
 * An OpenAI-shaped conversation as Converse `system` blocks and messages (user turns and tool results
 * merged, as litellm merges them: Converse wants the roles to alternate).
 *
 * @param messages the conversation (`extra` stripped, cache markers set)
 */
export function converseMessages(
  messages: readonly WireMessage[],
): { system: Block[]; messages: ConverseMessage[] } {
  const system: Block[] = [];
  const turns: ConverseMessage[] = [];
  const push = (role: ConverseMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "system") {
      const content: unknown = m.content;
      if (typeof content === "string" && content !== "") {
        system.push({ text: content });
        if (marked(m)) system.push(CACHE_POINT);
      } else if (Array.isArray(content)) {
        for (const p of content.filter(isPart)) {
          if (p.type !== "text" || !p.text) continue;
          system.push({ text: String(p.text) });
          if (marked(p)) system.push(CACHE_POINT);
        }
      }
    } else if (m.role === "tool") push("user", toolBlocks(m));
    else if (m.role === "assistant") push("assistant", assistantBlocks(m));
    else if (m.role === "user") push("user", userBlocks(m));
  }
  return { system, messages: turns };
}

/** An OpenAI function tool as a Converse `toolSpec` (litellm's `_bedrock_tools_pt`). */
export function converseTool(tool: Json): Block {
  const fn = isPlainObject(tool) && isPlainObject(tool.function) ? tool.function : {};
  const schema = isPlainObject(fn.parameters) ? fn.parameters : { type: "object", properties: {} };
  const spec: Block = { name: String(fn.name ?? ""), inputSchema: { json: schema } };
  if (typeof fn.description === "string" && fn.description !== "") spec.description = fn.description;
  return { toolSpec: spec };
}

/** litellm's `map_finish_reason` for Converse's stop reasons. */
const FINISH: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter",
  model_context_window_exceeded: "length",
};

/** Converse's usage as litellm's `Usage` (the prompt counts the cache reads and writes). */
function converseUsage(usage: Block): Block {
  const n = (v: Json | undefined) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
  const read = n(usage.cacheReadInputTokens);
  const write = n(usage.cacheWriteInputTokens);
  const prompt = n(usage.inputTokens) + read + write;
  const completion = n(usage.outputTokens);
  return {
    completion_tokens: completion,
    prompt_tokens: prompt,
    total_tokens: typeof usage.totalTokens === "number" ? usage.totalTokens : prompt + completion,
    prompt_tokens_details: { cached_tokens: read },
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
  };
}

/**
 * Parse a Converse answer into litellm's OpenAI-shaped message and response. A served answer is never
 * rejected for its shape: what cannot be used is a `problem` the model sees as a format error.
 *
 * @param model the model id, echoed as the response's `model` (Converse's answer names none)
 * @throws {MalformedBodyError} when the body is not JSON
 */
export function parseConverseBody(
  text: string | Json,
  model: string,
  now = Math.floor(Date.now() / 1000),
): ParsedBody {
  let data: Json;
  if (typeof text === "string") {
    try {
      data = parseJson(text);
    } catch {
      const shown = text.length === 0 ? "empty" : JSON.stringify(oneLine(text, 80));
      throw new MalformedBodyError(`Cannot parse Converse answer: body is not JSON (${shown})`);
    }
  } else data = text;
  const body = isPlainObject(data) ? data : {};
  const output = isPlainObject(body.output) ? body.output : {};
  const message = isPlainObject(output.message) ? output.message : undefined;
  const blocks = message && Array.isArray(message.content)
    ? message.content.filter((b): b is JsonObject => isPlainObject(b))
    : [];
  let content = "";
  const calls: ToolCall[] = [];
  const reasoning: Block[] = [];
  blocks.forEach((block, index) => {
    if (typeof block.text === "string") content += block.text;
    if (isPlainObject(block.toolUse)) {
      const use = block.toolUse;
      calls.push({
        ...{ index },
        function: { arguments: pyJsonDumps(use.input ?? {}), name: String(use.name ?? "") },
        id: String(use.toolUseId ?? ""),
        type: "function",
      });
    }
    if (isPlainObject(block.reasoningContent)) reasoning.push(block.reasoningContent);
  });
  const reply: ReplyMessage = { content, role: "assistant" };
  if (calls.length > 0) reply.tool_calls = calls;
  reply.function_call = null;
  if (reasoning.length > 0) {
    const texts = reasoning.map((r) => (isPlainObject(r.reasoningText) ? r.reasoningText : {}));
    reply.reasoning_content = texts.map((t) => (typeof t.text === "string" ? t.text : "")).join("");
    reply.thinking_blocks = texts.map((t) => {
      const b: Block = { type: "thinking" };
      if (typeof t.text === "string") b.thinking = t.text;
      if (typeof t.signature === "string") b.signature = t.signature;
      return b;
    });
    reply.provider_specific_fields = { reasoningContentBlocks: reasoning };
  }
  const stop = typeof body.stopReason === "string" ? FINISH[body.stopReason] ?? body.stopReason : null;
  const usage = converseUsage(isPlainObject(body.usage) ? body.usage : {});
  const response: Block = {
    id: `chatcmpl-${crypto.randomUUID()}`,
    created: now,
    model,
    object: "chat.completion",
    system_fingerprint: null,
    choices: [{ finish_reason: stop, index: 0, message: reply as Block }],
    usage,
  };
  const parsed: ParsedBody = { message: reply, finish_reason: stop, usage, body: response };
  if (message === undefined) parsed.problem = "The response has no message (output.message is missing).";
  return parsed;
}
