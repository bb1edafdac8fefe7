/**
 * The context window: which of the trajectory's messages the model is sent. The trajectory keeps
 * every message; a restart (compression, reroll) appends a boundary marker and copies of the first
 * two messages, and later queries see only what follows the marker. Side calls (routing) are kept
 * in the trajectory but never sent again.
 *
 * The marker, for readers of trajectories (and the ATIF exporter): a `system` message whose
 * `extra.context_management` is `{type, boundary, ...}` with `type` `compaction` or `reroll` and
 * `boundary` the index (in `messages`) of the first message of the new context; the copies after it
 * carry `extra.is_copied_context: true` and `extra.copied_from` (the index of the original).
 *
 * @module
 */
import type { LoopView, Message } from "../../core/types.ts";

/** Tracks where the model's context starts and which messages it never sees. */
export class ContextWindow {
  #start = 0;
  readonly #excluded = new Set<Message>();

  /** Index of the first message of the current context. */
  get start(): number {
    return this.#start;
  }

  /** The messages the model is sent: `messages` itself until a restart or a side call. */
  view(messages: readonly Message[]): readonly Message[] {
    if (this.#start === 0 && this.#excluded.size === 0) return messages;
    const tail = this.#start === 0 ? messages : messages.slice(this.#start);
    return this.#excluded.size === 0 ? tail : tail.filter((m) => !this.#excluded.has(m));
  }

  /**
   * Take up the window a predecessor's messages record (a resumed run): the last restart marker's
   * boundary, and its side calls (`extra.side_call`) left out.
   */
  restore(messages: readonly Message[]): void {
    this.#start = 0;
    messages.forEach((m) => {
      const extra = m.extra as
        | { context_management?: { boundary?: unknown }; side_call?: unknown }
        | undefined;
      const boundary = extra?.context_management?.boundary;
      if (m.role === "system" && typeof boundary === "number") this.#start = boundary;
      if (extra?.side_call !== undefined) this.#excluded.add(m);
    });
  }

  /** Keep these messages out of every later request (side calls). */
  exclude(...messages: Message[]): void {
    for (const m of messages) this.#excluded.add(m);
  }

  /**
   * Append a boundary marker, copies of the first two messages (system prompt and task), then
   * `after`; from now on the model sees the copies and what follows them.
   *
   * @param loop the loop whose trajectory gets the messages
   * @param type `compaction` or `reroll`
   * @param content the marker's text (for people reading the trajectory)
   * @param details more keys of `extra.context_management`
   * @param after messages that open the new context after the copies (e.g. the summary)
   */
  restart(
    loop: LoopView,
    type: string,
    content: string,
    details: Record<string, unknown>,
    ...after: Message[]
  ): void {
    const boundary = loop.messages.length + 1;
    const marker: Message = {
      role: "system",
      content,
      extra: { context_management: { type, boundary, ...details } },
    };
    const copies = loop.messages.slice(0, 2).map(copyOf);
    loop.append(marker, ...copies, ...after);
    this.#start = boundary;
  }
}

/** `text` as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A copy of the system prompt or the task (message `i`), marked as copied context. */
function copyOf(m: Message, i: number): Message {
  const extra = { is_copied_context: true as const, copied_from: i };
  if (m.role === "system") return { ...m, extra };
  if (m.role === "user") return { ...m, extra };
  throw new Error(`Cannot restart the context: message ${i} is ${m.role}, not the system prompt or the task`);
}
