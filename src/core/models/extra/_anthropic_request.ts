/**
 * An OpenAI-shaped conversation as Anthropic's Messages API takes it, translated as litellm's
 * `anthropic_messages_pt` and `AnthropicConfig.transform_request` translate it: system messages go to
 * `system`, consecutive user and tool messages merge into one user turn (tool results as
 * `tool_result` blocks), an assistant's thinking blocks come first, then its text, then its calls as
 * `tool_use` blocks; a `cache_control` marker stays where upstream's `set_cache_control` put it (on a
 * text part, or on the message, which carries it to its block). The parameters are mapped as litellm
 * maps them (`max_tokens`, `stop`, `tool_choice`, `parallel_tool_calls`, `user`, `reasoning_effort`).
 *
 * @module
 */
import { ConfigError } from "../../errors.ts";
import type { Json, WireMessage } from "../../types.ts";
import { isJsonObject, isPlainObject } from "../../../lib/json.ts";
import { parsePythonJson } from "../../../lib/python/pyjson.ts";

type Block = { [key: string]: Json };
/** One message of the Messages API. */
export type AnthropicMessage = { role: "user" | "assistant"; content: Block[] };

/** A conversation translated: the system blocks and the turns. */
export interface Translated {
  system: Block[];
  messages: AnthropicMessage[];
}

/**
 * Translates conversations, each message once: a turn is rebuilt only when one of the messages it is
 * made of is a new object (the last one, which carries the cache marker, is new on every request).
 */
export class MessageTranslator {
  readonly #turns = new WeakMap<WireMessage, { members: WireMessage[]; turn: AnthropicMessage }>();
  readonly #system = new WeakMap<WireMessage, Block[]>();

  /**
   * @param messages the conversation, OpenAI-shaped (`extra` already stripped)
   * @returns the system blocks and the turns, alternating user and assistant as merged
   */
  translate(messages: readonly WireMessage[]): Translated {
    const system: Block[] = [];
    const turns: AnthropicMessage[] = [];
    for (let i = 0; i < messages.length;) {
      const first = messages[i]!;
      if (first.role === "system") {
        let blocks = this.#system.get(first);
        if (blocks === undefined) this.#system.set(first, blocks = systemBlocks(first));
        system.push(...blocks);
        i++;
        continue;
      }
      const assistant = first.role === "assistant";
      let end = i + 1;
      while (end < messages.length && (messages[end]!.role === "assistant") === assistant) {
        if (messages[end]!.role === "system") break;
        end++;
      }
      const members = messages.slice(i, end);
      const cached = this.#turns.get(first);
      let turn: AnthropicMessage;
      if (
        cached && cached.members.length === members.length && cached.members.every((m, k) => m === members[k])
      ) {
        turn = cached.turn;
      } else {
        turn = assistant ? assistantTurn(members) : userTurn(members);
        this.#turns.set(first, { members, turn });
      }
      // A turn with nothing to send (an assistant reply of neither text nor calls) is left out, as
      // litellm leaves it out: Anthropic refuses empty content.
      if (turn.content.length > 0) turns.push(turn);
      i = end;
    }
    const last = turns.at(-1);
    if (last?.role === "assistant") turns[turns.length - 1] = trimmed(last);
    return { system, messages: turns };
  }
}

/** The cache marker a message or part carries, as litellm copies it (`ChatCompletionCachedContent`). */
function marker(source: object): Block {
  const value = "cache_control" in source ? source.cache_control : undefined;
  return isJsonObject(value) ? { cache_control: { ...value } } : {};
}

function systemBlocks(message: WireMessage): Block[] {
  const content: unknown = message.content;
  if (typeof content === "string") {
    // Anthropic refuses empty text blocks; litellm leaves them out.
    return content === "" ? [] : [{ type: "text", text: content, ...marker(message) }];
  }
  if (!Array.isArray(content)) return [];
  return content.filter(isPart).filter((p) => !(p.type === "text" && !p.text)).map((p) => ({
    type: String(p.type ?? "text"),
    text: String(p.text ?? ""),
    ...marker(p),
  }));
}

function userTurn(members: readonly WireMessage[]): AnthropicMessage {
  const content: Block[] = [];
  for (const m of members) {
    if (m.role === "tool") content.push(toolResult(m));
    else content.push(...userBlocks(m));
  }
  return { role: "user", content };
}

function userBlocks(message: WireMessage): Block[] {
  const content: unknown = message.content;
  if (typeof content === "string") return [{ type: "text", text: content, ...marker(message) }];
  if (!Array.isArray(content)) return [];
  return content.filter(isPart).map((part) => ({ ...contentBlock(part), ...marker(part) }));
}

/**
 * A content part as a block: text, or an image (the parts `model.multimodal_regex` makes): a
 * `data:` URL as a base64 source, any other URL as a url source, as the Messages API documents them.
 * @throws {ConfigError} for a part of another kind (claudius sends text and images only)
 */
function contentBlock(part: Record<string, unknown>): Block {
  if (part.type === "text") return { type: "text", text: String(part.text ?? "") };
  if (part.type === "image_url") {
    const image = part.image_url;
    const url = String(isPart(image) ? image.url ?? "" : image ?? "");
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    const source: Block = data
      ? { type: "base64", media_type: data[1]!, data: data[2]! }
      : { type: "url", url };
    return { type: "image", source };
  }
  throw new ConfigError(
    `Cannot send a ${JSON.stringify(part.type)} part to Anthropic's Messages API: claudius's Anthropic ` +
      "client sends text and images only",
  );
}

function toolResult(message: WireMessage): Block {
  const content: unknown = message.content;
  const result: Json = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.filter(isPart).filter((p) => p.type === "text" || p.type === "image_url").map(contentBlock)
    : "";
  return {
    type: "tool_result",
    tool_use_id: String(message.tool_call_id ?? ""),
    content: result,
    ...marker(message),
  };
}

function assistantTurn(members: readonly WireMessage[]): AnthropicMessage {
  const content: Block[] = [];
  for (const m of members) {
    // Thinking blocks first, or Anthropic refuses the turn.
    const thinking: unknown = m.thinking_blocks;
    if (Array.isArray(thinking)) content.push(...thinking.filter(isJsonObject).map((b) => ({ ...b })));
    const text: unknown = m.content;
    if (typeof text === "string" && text !== "") content.push({ type: "text", text, ...marker(m) });
    else if (Array.isArray(text)) {
      for (const part of text.filter(isPart)) {
        if (part.type === "thinking" && part.thinking && isJsonObject(part)) content.push({ ...part });
        else if (part.type === "text" && part.text) {
          content.push({ type: "text", text: String(part.text), ...marker(part) });
        }
      }
    }
    for (const call of m.tool_calls ?? []) {
      if (call.type !== undefined && call.type !== "function") continue;
      content.push({
        type: "tool_use",
        id: call.id,
        name: call.function.name,
        input: toolInput(call.function.arguments),
        ...marker(call),
      });
    }
  }
  return { role: "assistant", content };
}

/**
 * A tool call's arguments as the object Anthropic wants (litellm's `json.loads`). Anthropic's own
 * calls always carry an object; text that is no object (a call another model wrote) becomes `{}`.
 */
function toolInput(args: string): Json {
  try {
    const value = parsePythonJson(args);
    return isJsonObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** The last turn's text without trailing whitespace (Anthropic refuses a final assistant turn that ends in it). */
function trimmed(turn: AnthropicMessage): AnthropicMessage {
  return {
    role: turn.role,
    content: turn.content.map((
      b,
    ) => (b.type === "text" && typeof b.text === "string" ? { ...b, text: b.text.trimEnd() } : b)),
  };
}

function isPart(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An OpenAI function tool as an Anthropic tool (litellm's `_map_tool_helper`). */
export function anthropicTool(tool: Json): Block {
  const fn = isPlainObject(tool) && isPlainObject(tool.function) ? tool.function : {};
  const schema = isPlainObject(fn.parameters) ? fn.parameters : { type: "object", properties: {} };
  const allowed = ["type", "properties", "required", "additionalProperties", "$defs", "definitions"];
  const input_schema: Block = Object.fromEntries(Object.entries(schema).filter(([k]) => allowed.includes(k)));
  const out: Block = { name: String(fn.name ?? ""), input_schema };
  if (fn.description !== undefined) out.description = fn.description;
  return out;
}
