/**
 * Upstream's Responses API model classes (`litellm_response`, `openrouter_response`, and
 * `openai_response` for any compatible endpoint): stateless requests to `/responses` whose `input`
 * is the whole conversation, each earlier response flattened back into its output items (reasoning
 * items included), the flat `bash` function tool, and `function_call_output` observations.
 *
 * @module
 */
import { ConfigError, FormatError } from "../../errors.ts";
import {
  BASH_FUNCTION,
  bashCall,
  CHAT_MODEL_KEYS,
  DEFAULT_TOOLCALL_FORMAT_ERROR,
  expandText,
} from "../model.ts";
import {
  type HttpClientDeps,
  httpConfig,
  httpDeps,
  multimodalRegex,
  type OPENAI_KEYS,
  protocolOf,
} from "../chat.ts";
import { OpenAIClient } from "../openai.ts";
import type { InputItem, ModelContext, ResponsesClient } from "../model_class.ts";
import { renderTemplate } from "../../../lib/python/template/template.ts";
import { type ConfigInput, resolveKeys } from "../../config/keys.ts";
import type {
  Action,
  AssistantMessage,
  ExecOutput,
  Json,
  Message,
  Model,
  ToolMessage,
  UserMessage,
  Vars,
} from "../../types.ts";
import type { ParsedResponse } from "./_responses_body.ts";
import { NOT_EXECUTED } from "../../submission.ts";
import type { PyRegex } from "../../../lib/python/pyregex/pyregex.ts";

export type { ParsedResponse } from "./_responses_body.ts";
export type { InputItem, ResponsesClient };

/**
 * The client of a Responses API class (`POST <base_url>/responses`).
 *
 * @throws {ConfigError} for an Anthropic model, whose API has no `/responses`, or as the constructor does
 */
export function responsesClient(input: ConfigInput<typeof OPENAI_KEYS>, deps: HttpClientDeps): OpenAIClient {
  const protocol = deps.gateway === undefined ? protocolOf(input) : "chat";
  if (protocol === "bedrock" || protocol === "vertex") {
    throw new ConfigError(
      `Cannot configure model: "${input.model_name}" is served by ${
        protocol === "bedrock" ? "Bedrock's Converse API" : "Vertex AI"
      } here, which has no Responses API; use model_class litellm (tool calls) or litellm_textbased`,
    );
  }
  if (protocol === "anthropic") {
    throw new ConfigError(
      `Cannot configure model: "${input.model_name}" is served by Anthropic's Messages API, which has no ` +
        "Responses API; use model_class litellm (the Messages API, tool calls) or an OpenAI-compatible " +
        "gateway's model name (openrouter/...)",
    );
  }
  return new OpenAIClient(input, deps);
}

/** The one tool, in the Responses API's flat shape (no nested `function`). */
export const BASH_TOOL_RESPONSE: Json = { type: "function", ...BASH_FUNCTION };

/** How the first messages look: litellm's plain `{role, content}`, or OpenRouter's typed message. */
export type MessageStyle = "plain" | "typed";

/*
 * Upstream stores Responses API messages in their own shapes: the assistant message is the response
 * object itself (`object: "response"`, no `role`), observations are `function_call_output` items, and
 * OpenRouter's class types its user messages. They travel through the agent as the message types it
 * knows (it reads only `extra` and the `exit` role), hence the casts at this class's boundary.
 */

/** A {@link Model} over the Responses API. */
export class ResponsesModel implements Model {
  readonly config: Record<string, unknown>;
  readonly type: string;
  readonly #client: ResponsesClient;
  readonly #style: MessageStyle;
  readonly #formatErrorTemplate: string;
  readonly #observationTemplate: string;
  /** Each message's input items, made once per message (messages never change once appended). */
  readonly #items = new WeakMap<Message, InputItem[]>();
  /** `multimodal_regex` compiled, when set (litellm's class expands its first messages only). */
  readonly #multimodal: PyRegex | undefined;
  readonly #now: () => number;

  /**
   * A model over the Responses API `client`, its templates fixed by `config`.
   * @param config the resolved `model` section
   * @param client the transport
   * @param style `typed` (OpenRouter: `{type: "message", role, content: [{type: "input_text", ...}]}`)
   *   or `plain` (litellm: `{role, content}`) system and user messages
   * @param type class name recorded in the trajectory
   * @param multimodalRegex `multimodal_regex` compiled, when it is set
   * @param now the wall clock in milliseconds, for the messages' `timestamp` (default `Date.now`)
   */
  constructor(
    config: ConfigInput<typeof CHAT_MODEL_KEYS>,
    client: ResponsesClient,
    style: MessageStyle,
    type: string,
    multimodalRegex?: PyRegex,
    now: () => number = Date.now,
  ) {
    this.#now = now;
    const own = resolveKeys(CHAT_MODEL_KEYS, config, "model");
    this.#formatErrorTemplate = own.format_error_template ?? DEFAULT_TOOLCALL_FORMAT_ERROR;
    this.#observationTemplate = own.observation_template;
    this.config = { ...config, ...own, format_error_template: this.#formatErrorTemplate };
    this.#client = client;
    this.#style = style;
    this.type = type;
    this.#multimodal = own.multimodal_regex === "" ? undefined : multimodalRegex;
  }

  /** Config fields exposed to templates. */
  templateVars(): Vars {
    return this.config;
  }

  /**
   * Upstream's `format_message` of the class: litellm's (plain) is the chat class's, multimodal
   * expansion included; OpenRouter's types the message and expands nothing. Observations are never
   * expanded (upstream's Responses classes ignore the key there).
   */
  formatMessage(role: "system" | "user", content: string): Message {
    if (this.#style === "plain") {
      const shown = this.#multimodal ? expandText(content, this.#multimodal) : content;
      return role === "system" ? { role, content: shown } : { role, content: shown };
    }
    return { type: "message", role, content: [{ type: "input_text", text: content }] };
  }

  /**
   * Query the model with the whole conversation; the assistant message is the response object
   * itself (with `extra`), as upstream stores it.
   * @throws {FormatError} when the response has no valid `bash` call (with the billed cost)
   */
  async query(messages: Message[], signal?: AbortSignal): Promise<AssistantMessage> {
    const input = messages.flatMap((m) => {
      let items = this.#items.get(m);
      if (items === undefined) this.#items.set(m, items = inputItems(m));
      return items;
    });
    const r = await this.#client.respond({ input, tools: [BASH_TOOL_RESPONSE] }, signal);
    const actions = this.#parse(r);
    const extra = { actions, cost: r.cost, timestamp: this.#now() / 1000 };
    return { ...r.body, extra } as unknown as AssistantMessage;
  }

  #parse(r: ParsedResponse & { cost: number }): Action[] {
    const fail = (error: string, has_tool_calls: boolean): never => {
      const text = renderTemplate(
        this.#formatErrorTemplate,
        { error, actions: [], has_tool_calls, finish_reason: r.finish_reason },
        "model.format_error_template",
      );
      throw new FormatError({
        type: "message",
        role: "user",
        content: [{ type: "input_text", text }],
        extra: { interrupt_type: "FormatError", cost: r.cost, response: r.body },
      });
    };
    const calls = r.output.filter((item) => item.type === "function_call");
    if (calls.length === 0) {
      fail("No tool calls found in the response. Every response MUST include at least one tool call.", false);
    }
    return calls.map((call) => {
      const { command, error } = bashCall(call.name ?? "None", call.arguments ?? "{}");
      if (error) fail(error, true);
      return { command: command!, tool_call_id: String(call.call_id || call.id) };
    });
  }

  /** One `function_call_output` per action (unrun calls padded as upstream). */
  formatObservations(
    message: AssistantMessage,
    outputs: ExecOutput[],
    vars: Vars,
  ): (ToolMessage | UserMessage)[] {
    const actions: Action[] = message.extra.actions;
    const padded = [...outputs, ...Array(Math.max(0, actions.length - outputs.length)).fill(NOT_EXECUTED)];
    return actions.map((action, i) => {
      const output: ExecOutput = padded[i]!;
      const content = renderTemplate(
        this.#observationTemplate,
        { ...vars, output },
        "model.observation_template",
      );
      const extra = {
        raw_output: output.output,
        returncode: output.returncode,
        timestamp: this.#now() / 1000,
        exception_info: output.exception_info,
        ...output.extra,
      };
      const item = { extra, type: "function_call_output", call_id: action.tool_call_id, output: content };
      return item as unknown as ToolMessage;
    });
  }
}

/** A message as input items: a stored response becomes its output items; others lose `extra`. */
function inputItems(message: Message): InputItem[] {
  const strip = (item: InputItem): InputItem => {
    const { extra: _, ...rest } = item;
    return rest;
  };
  if (message.object === "response") {
    const output = message.output;
    return Array.isArray(output)
      ? output.filter((o): o is InputItem => typeof o === "object" && o !== null && !Array.isArray(o)).map(
        strip,
      )
      : [];
  }
  return [strip(message)];
}

/**
 * The client of a Responses API class as a run builds it (its cost limit checked before the first
 * call), and the config the trajectory records. A run and a check before one build it so.
 * @throws {ConfigError} for an Anthropic model, a bad key or value, or a cost limit that cannot be enforced
 */
export async function httpClient(
  context: ModelContext,
): Promise<{ client: OpenAIClient; config: Record<string, unknown> }> {
  const { input, config } = await httpConfig(context);
  const client = responsesClient(input, await httpDeps(context));
  await client.ready();
  return { client, config };
}

/** The registry's constructor of the Responses API classes (`openai_response`, ...; see `classes.ts`). */
export async function createModel(context: ModelContext): Promise<Model> {
  const { row, deps } = context;
  const style = row.style ?? "plain";
  const replayed = deps.clients?.responses;
  if (replayed) {
    const { config } = await httpConfig(context);
    return new ResponsesModel(config, replayed, style, row.type, await multimodalRegex(config), deps.now);
  }
  const { client, config } = await httpClient(context);
  const limits = deps.limits;
  // Counted for the global limits as GlobalLimits.count counts chat calls.
  const counted: ResponsesClient = limits
    ? { respond: (r, s) => client.respond(r, s).then((out) => (limits.add(out.cost), out)) }
    : client;
  return new ResponsesModel(config, counted, style, row.type, await multimodalRegex(config), deps.now);
}
