/**
 * Prompt-caching markers as upstream sets them (`set_cache_control: default_end`): the last message
 * of every request carries `cache_control: {"type": "ephemeral"}`, and no other message does. Upstream
 * turns it on for model names that look like Anthropic's unless the config sets the key
 * (`cacheControlMode` in `model.ts`); loaded only then.
 *
 * @module
 */
import type { ContentPart, WireMessage } from "../../types.ts";

/** The one marker value. */
const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * A message as sent under a mode: any marker it carries removed (upstream clears older markers before
 * setting the new one). Messages without markers are returned as they are.
 */
export function withoutMarker(message: WireMessage): WireMessage {
  let out = message;
  if ("cache_control" in out) {
    const { cache_control: _, ...rest } = out;
    out = rest;
  }
  const parts = out.content;
  if (Array.isArray(parts) && parts.length === 1 && parts[0] && "cache_control" in parts[0]) {
    const { cache_control: _, ...part } = parts[0];
    out = { ...out, content: [part] };
  }
  return out;
}

/**
 * A copy of the last message of a request with the marker set: string content becomes one text part
 * that carries it; null content, and tool messages (a text part without it), carry it on the message.
 *
 * @example
 * ```ts
 * import { markLast } from "./_cache_control.ts";
 * markLast({ role: "user", content: "hi" });
 * // { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }
 * ```
 */
export function markLast(message: WireMessage): WireMessage {
  if (message.content === null || message.content === undefined) {
    return { ...message, cache_control: { ...EPHEMERAL } };
  }
  const [head = {}, ...rest]: ContentPart[] = Array.isArray(message.content)
    ? message.content
    : [{ type: "text", text: message.content }];
  const first: ContentPart = { ...head, cache_control: { ...EPHEMERAL } };
  if (message.role === "tool") {
    const { cache_control: _, ...bare } = first;
    return { ...message, content: [bare, ...rest], cache_control: { ...EPHEMERAL } };
  }
  return { ...message, content: [first, ...rest] };
}
