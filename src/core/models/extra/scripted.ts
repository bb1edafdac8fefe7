/**
 * A chat client that replays a script (see `_script.ts`): the fake model tests and users share.
 * Replies go through the same body -> parse path as the HTTP client, so trajectories look real.
 *
 * @module
 */
import type { ChatClient, ChatRequest, Completion, Model } from "../../types.ts";
import { ConfigError } from "../../errors.ts";
import { resolveKeys } from "../../config/keys.ts";
import { resolvePath } from "../../../lib/paths.ts";
import { isFault, loadScript, parseScript, type ScriptReply, toCompletionBody } from "./_script.ts";
import { SCRIPTED_KEYS } from "../_keys.ts";
import { chatModel } from "../chat.ts";
import type { ModelContext } from "../model_class.ts";

export {
  loadScript,
  parseScript,
  type ScriptFault,
  type ScriptMessageReply,
  type ScriptReply,
} from "./_script.ts";
import { parseCompletionBody } from "../_wire.ts";

/** Options of {@link ScriptedClient}. */
export interface ScriptedClientOptions {
  /** Echoed as the response's `model`. */
  model_name: string;
  /** Cost of a reply that sets no `cost` of its own, in dollars. Default 0. */
  cost_per_call?: number;
  /** Index of the first reply to play (a resumed run goes on where its predecessor stopped). Default 0. */
  first?: number;
  /**
   * Keep a copy of every request in {@link ScriptedClient.requests} (tests that check what the model was
   * sent). Default false: each request holds the whole conversation, so the copies would grow with the
   * square of the steps (4,000 steps: 4.4 GB).
   */
  record?: boolean;
}

/**
 * Replays scripted replies in order, one per `complete()` call.
 *
 * @example
 * ```ts
 * import { ScriptedClient } from "./scripted.ts";
 * const client = new ScriptedClient([{ commands: ["echo hi"] }], { model_name: "scripted", record: true });
 * const { message } = await client.complete({ messages: [] });
 * // client.calls === 1, client.requests[0] is a copy of the request
 * ```
 */
export class ScriptedClient implements ChatClient {
  /** Every request received, in order (copies), when the client was made with `record: true`; else empty. */
  readonly requests: ChatRequest[] = [];
  #calls = 0;
  #replies: readonly ScriptReply[];
  #options: ScriptedClientOptions;

  /**
   * A client that answers each call with the next reply of the script.
   * @param replies the script (from `loadScript` or written inline)
   * @param options model name and default cost
   */
  constructor(replies: readonly ScriptReply[], options: ScriptedClientOptions) {
    this.#replies = replies;
    this.#options = options;
  }

  /** Number of `complete()` calls so far (recorded or not). */
  get calls(): number {
    return this.#calls;
  }

  /**
   * Return the next scripted reply.
   *
   * @param request recorded in {@link ScriptedClient.requests} when `record` is set
   * @param signal when already aborted, the call rejects with its reason
   * @throws {Error} when the script has run out or the next entry is a fault (only the fake server plays those)
   */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<Completion> {
    try {
      signal?.throwIfAborted();
      const index = (this.#options.first ?? 0) + this.#calls++;
      if (this.#options.record) this.requests.push(structuredClone(request));
      const reply = this.#replies[index];
      if (reply === undefined) {
        const n = this.#replies.length;
        throw new Error(`Cannot query scripted model: script has ${n} replies, reply ${n + 1} was requested`);
      }
      if (isFault(reply)) {
        throw new Error(
          `Cannot query scripted model: reply ${
            index + 1
          } is a "${reply.fault}" fault, which only the fake server plays`,
        );
      }
      const cost = reply.cost ?? this.#options.cost_per_call;
      const body = toCompletionBody(
        cost === undefined ? reply : { ...reply, cost },
        index,
        this.#options.model_name,
      );
      const parsed = parseCompletionBody(body);
      return Promise.resolve({
        message: parsed.message,
        finish_reason: parsed.finish_reason,
        cost: cost ?? 0,
        response: parsed.body,
        ...(parsed.problem !== undefined ? { problem: parsed.problem } : {}),
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/**
 * The registry's constructor of `model_class: scripted` and `scripted_textbased` (see `classes.ts`): the
 * script goes on at reply `priorCalls` (a resumed run's).
 * @throws {ConfigError} naming `model.script` or `model.replies` when the script is missing or malformed
 */
export async function createModel(context: ModelContext): Promise<Model> {
  const { name, own, deps, priorCalls } = context;
  const c = resolveKeys(SCRIPTED_KEYS, own, "model");
  const config = { ...own, ...c };
  if (deps.clients) return await chatModel(context, deps.clients.chat, config);
  const script = c.script === undefined ? undefined : resolvePath(c.script, deps.cwd);
  const replies = await (async () => {
    if (c.replies !== undefined) return parseScript(c.replies, "model.replies");
    if (script !== undefined) return await loadScript(script);
  })().catch((e: Error) => {
    // A missing or malformed script is the config's fault: exit 2, naming the key.
    const where = c.replies !== undefined ? "model.replies" : `model.script '${script}'`;
    throw new ConfigError(`Cannot load ${where}: ${e.message.replace(/^Cannot load script \S+: /, "")}`);
  });
  if (!replies) throw new ConfigError(`model.model_class '${name}' needs model.script or model.replies`);
  const client = new ScriptedClient(replies, { model_name: c.model_name, first: priorCalls });
  return await chatModel(context, client, config);
}
