/**
 * Clients that answer each model call with a recorded response (`claudius replay`): the body a
 * trajectory keeps in `extra.response` (a Responses API reply: the message itself) goes through the
 * same parsing as a body from the wire, and the call costs what the trajectory says it cost.
 *
 * @module
 */
import type { ChatClient, ChatRequest, Completion, Json } from "../../types.ts";
import type { InputItem, ResponsesClient } from "../model_class.ts";
import { parseCompletionBody } from "../_wire.ts";
import { type ParsedResponse, parseResponsesBody } from "./_responses_body.ts";

/** One recorded call: the response as the trajectory keeps it, and its cost in dollars. */
export interface RecordedReply {
  /** The response body as the trajectory recorded it. */
  response: Json;
  /** What the call cost, in dollars. */
  cost: number;
}

/** Where the replies come from: called once per model call; it throws to end the run (no more calls). */
export type NextReply = () => RecordedReply;

/**
 * A chat client that plays recorded responses.
 *
 * @example
 * ```ts
 * import { RecordedChatClient } from "./recorded.ts";
 * const body = { choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] };
 * const client = new RecordedChatClient(() => ({ response: body, cost: 0.5 }));
 * const { message, cost } = await client.complete({ messages: [] }); // "hi", 0.5
 * ```
 */
export class RecordedChatClient implements ChatClient {
  readonly #next: NextReply;
  /**
   * A client that answers each call with the next recorded reply.
   * @param next the reply to each call
   */
  constructor(next: NextReply) {
    this.#next = next;
  }

  /**
   * The next recorded reply, parsed as the HTTP client parses a body.
   * @throws what `next` throws, and `MalformedBodyError` for a recorded body that is no completion
   */
  complete(_request: ChatRequest, signal?: AbortSignal): Promise<Completion> {
    try {
      signal?.throwIfAborted();
      const { response, cost } = this.#next();
      const parsed = parseCompletionBody(response);
      return Promise.resolve({
        message: parsed.message,
        finish_reason: parsed.finish_reason,
        cost,
        response: parsed.body,
        ...(parsed.problem !== undefined ? { problem: parsed.problem } : {}),
      });
    } catch (e) {
      return Promise.reject(e);
    }
  }
}

/** A Responses API client that plays recorded responses (see {@link RecordedChatClient}). */
export class RecordedResponsesClient implements ResponsesClient {
  readonly #next: NextReply;
  /**
   * A client that answers each call with the next recorded reply.
   * @param next the reply to each call
   */
  constructor(next: NextReply) {
    this.#next = next;
  }

  /**
   * The next recorded response, parsed as the HTTP client parses a body.
   * @throws what `next` throws, and `MalformedBodyError` for a recorded body that is no response
   */
  respond(
    _request: { input: readonly InputItem[]; tools: Json[] },
    signal?: AbortSignal,
  ): Promise<ParsedResponse & { cost: number }> {
    try {
      signal?.throwIfAborted();
      const { response, cost } = this.#next();
      return Promise.resolve({ ...parseResponsesBody(JSON.stringify(response)), cost });
    } catch (e) {
      return Promise.reject(e);
    }
  }
}
