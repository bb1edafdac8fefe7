/**
 * The model as the agent sees it: one {@link ChatClient} (HTTP or scripted) plus the action format
 * (tool calls or one fenced block of text) and the observation / format-error templates.
 *
 * @module
 */
import { ConfigError, FormatError } from "../errors.ts";
import { renderTemplate } from "../../lib/python/template/template.ts";
import { type ConfigInput, type ConfigOf, type Keys, resolveKeys } from "../config/keys.ts";
import { parsePythonJson, pythonJsonError, stringifyPythonJson } from "../../lib/python/pyjson.ts";
import { pyStrip } from "../../lib/python/pyrepr.ts";
import type { PyRegex } from "../../lib/python/pyregex/pyregex.ts";

export type { PyMatch, PyMatchSpan, PyRegex } from "../../lib/python/pyregex/pyregex.ts";
import type {
  Action,
  AssistantMessage,
  ChatClient,
  Completion,
  ExecOutput,
  Json,
  Message,
  Model,
  ObservationExtra,
  ToolCall,
  ToolMessage,
  UserMessage,
  Vars,
  WireMessage,
} from "../types.ts";
import { NOT_EXECUTED } from "../submission.ts";

/** The `bash` function: name, description and parameters, as both APIs declare it. */
export const BASH_FUNCTION = {
  name: "bash",
  description: "Execute a bash command",
  parameters: {
    type: "object",
    properties: { command: { type: "string", description: "The bash command to execute" } },
    required: ["command"],
  },
};

/** The one tool of tool-call mode. */
export const BASH_TOOL: Json = { type: "function", function: BASH_FUNCTION };

/** How actions are written by the model. */
export type ActionFormat = "toolcall" | "text";

/** Upstream's default text-mode format-error template. */
export const DEFAULT_TEXT_FORMAT_ERROR =
  "Please always provide EXACTLY ONE action in triple backticks, found {{actions|length}} actions.";
/** The format-error template of tool-call mode when a config gives none. */
export const DEFAULT_TOOLCALL_FORMAT_ERROR = "{{ error }}";

/** The model keys this layer reads (the rest belong to the client). */
export const CHAT_MODEL_KEYS = {
  observation_template: {
    type: "string",
    template: true,
    default: "{% if output.exception_info %}<exception>{{output.exception_info}}</exception>\n{% endif %}" +
      "<returncode>{{output.returncode}}</returncode>\n<output>\n{{output.output}}</output>",
    defaultDoc: "upstream's",
    doc: "Renders each command result (sees `output.output`, `output.returncode`, `output.exception_info`).",
  },
  format_error_template: {
    type: "string",
    template: true,
    defaultDoc: `\`${DEFAULT_TOOLCALL_FORMAT_ERROR}\` (tool calls), upstream's sentence (text)`,
    doc: "Renders the re-prompt after a malformed reply (sees `error`, `actions`, `finish_reason`, " +
      "`has_tool_calls`).",
  },
  set_cache_control: {
    type: "string|null",
    check: (v) => (v === null || v === "default_end" ? undefined : "must be default_end or null"),
    defaultDoc: "`default_end` for names containing `anthropic`, `sonnet`, `opus` or `claude`, else none",
    doc: '`default_end`: the last message of every request carries `cache_control: {"type": "ephemeral"}` ' +
      "(string content becomes one text part that carries it; a tool message or null content carries it on " +
      "the message), as upstream; `null` turns it off.",
  },
  multimodal_regex: {
    type: "string",
    default: "",
    doc: "Upstream's multimodal content: a Python regex with two groups, the content type and the content " +
      "(upstream's tags: `(?s)<MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>(.+?)</CONTENT_TYPE>(.+?)" +
      "</MSWEA_MULTIMODAL_CONTENT>`). With it, the first two messages and every observation are sent and " +
      "recorded as content parts, as upstream expands them: each match of type `image_url` an image part with " +
      'the content as its URL (a `data:` URL or an address), the text around the matches text parts. `""` ' +
      "(default): off.",
  },
  action_regex: {
    type: "string",
    default: "```mswea_bash_command\\s*\\n(.*?)\\n```",
    doc: "Text mode: the action block, upstream's `re.findall(action_regex, reply, re.DOTALL)` with each " +
      "match stripped, so at most one group. A Python regex, translated exactly or refused with a message " +
      "naming the construct (see Python regexes).",
  },
} as const satisfies Keys;

/** Prompt-caching markers' modes: `default_end` (the last message of every request), or null for none. */
export type CacheControlMode = "default_end" | null;

/**
 * The `set_cache_control` mode for a model: the configured one (null turns markers off), else
 * `default_end` for names containing `anthropic`, `sonnet`, `opus` or `claude` (any case), as upstream's
 * `get_model` decides.
 *
 * @param modelName the model name as configured, provider prefix included
 * @param configured `model.set_cache_control` when the config sets it (null included), else undefined
 * @throws {ConfigError} for a value other than `default_end` or null
 */
export function cacheControlMode(modelName: string, configured: unknown): CacheControlMode {
  if (configured === undefined) {
    return /anthropic|sonnet|opus|claude/.test(modelName.toLowerCase()) ? "default_end" : null;
  }
  if (configured === null || configured === "default_end") return configured;
  throw new ConfigError(
    `Cannot configure model: model.set_cache_control must be default_end or null, got ${
      JSON.stringify(configured)
    }`,
  );
}

/** The resolved model keys of this layer. */
export type ChatModelConfig = ConfigOf<typeof CHAT_MODEL_KEYS>;

/**
 * Read one call of the `bash` tool as upstream does: the arguments must be JSON (Python's `json`
 * error text otherwise, NaN and Infinity parsed as Python parses them), the tool `bash`, the
 * arguments a mapping with `command`.
 *
 * @param name the called tool's name
 * @param args the arguments text (anything else fails as Python's `json.loads` fails on it)
 * @returns the command (a non-string `command` as JSON, `1e309` as `Infinity`), or the format error
 *   upstream reports
 */
export function bashCall(name: unknown, args: unknown): { command?: string; error: string } {
  let error = "";
  let parsed: unknown = {};
  const jsonError = typeof args === "string" ? pythonJsonError(args) : notText(args);
  if (jsonError !== undefined) error = `Error parsing tool call arguments: ${jsonError}.`;
  else if (typeof args === "string") parsed = parsePythonJson(args);
  if (name !== "bash") error += `Unknown tool '${name}'.`;
  const command = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>).command
    : undefined;
  if (command === undefined) error += "Missing 'command' argument in bash tool call.";
  if (error) return { error: error.trim() };
  return { command: typeof command === "string" ? command : stringifyPythonJson(command) ?? "", error: "" };
}

/** Python's `json.loads` error for a value that is not text. */
function notText(value: unknown): string {
  const type = value === null || value === undefined
    ? "NoneType"
    : Array.isArray(value)
    ? "list"
    : typeof value === "object"
    ? "dict"
    : typeof value === "boolean"
    ? "bool"
    : typeof value === "number"
    ? (Number.isInteger(value) ? "int" : "float")
    : typeof value;
  return `the JSON object must be str, bytes or bytearray, not ${type}`;
}

/** One content part of an expanded multimodal text (see `extra/_multimodal.ts`). */
export type ExpandedPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

/** A text split into parts at each match (upstream's `_expand_content_string`). */
export function expandText(text: string, regex: PyRegex): ExpandedPart[] {
  const matches = regex.finditer(text);
  if (matches.length === 0) return [{ type: "text", text }];
  const parts: ExpandedPart[] = [];
  let last = 0;
  for (const { start, end, groups } of matches) {
    if (start > last) parts.push({ type: "text", text: text.slice(last, start) });
    // A group that did not take part reads as "" (upstream stops with AttributeError there).
    const kind = pyStrip(groups[1] ?? "");
    const value = pyStrip(groups[2] ?? "");
    if (kind === "image_url") parts.push({ type: "image_url", image_url: { url: value } });
    last = end;
  }
  if (last < text.length) parts.push({ type: "text", text: text.slice(last) });
  return parts;
}

/** A {@link Model} over a chat client, in tool-call or text mode. */
export class ChatModel implements Model {
  readonly config: Record<string, unknown>;
  readonly type: string;
  readonly #client: ChatClient;
  readonly #format: ActionFormat;
  readonly #regex: PyRegex | undefined;
  readonly #formatErrorTemplate: string;
  readonly #observationTemplate: string;
  /** `multimodal_regex` compiled, when set. */
  readonly #multimodal: PyRegex | undefined;
  /**
   * Each message as sent (without `extra`), made once per message: the list is append-only and
   * messages are never changed once appended, so a stable object lets the client reuse its
   * serialisation instead of re-serialising the whole history every step.
   */
  readonly #sent = new WeakMap<Message, WireMessage>();
  readonly #now: () => number;
  /** The prompt-caching markers (`set_cache_control: default_end`), loaded at the first request that needs them. */
  #marks: Promise<typeof import("./extra/_cache_control.ts")> | undefined;

  /**
   * A model over `client`, its templates and action format fixed by `config` and `format`.
   * @param config the resolved `model` section
   * @param client the transport
   * @param format tool calls (`toolcall`) or one fenced block per reply (`text`)
   * @param type class name recorded in the trajectory
   * @param actionRegex text mode: `action_regex` compiled by `compileActionRegex` (`extra/_action_regex.ts`)
   * @param multimodalRegex `multimodal_regex` compiled by `compileMultimodalRegex`, when it is set
   * @param now the wall clock in milliseconds, for the messages' `timestamp` (default `Date.now`)
   * @throws {TypeError} when a regex the config needs was not given compiled
   */
  constructor(
    config: ConfigInput<typeof CHAT_MODEL_KEYS>,
    client: ChatClient,
    format: ActionFormat,
    type: string,
    actionRegex?: PyRegex,
    multimodalRegex?: PyRegex,
    now: () => number = Date.now,
  ) {
    this.#now = now;
    const own = resolveKeys(CHAT_MODEL_KEYS, config, "model");
    this.#formatErrorTemplate = own.format_error_template ??
      (format === "text" ? DEFAULT_TEXT_FORMAT_ERROR : DEFAULT_TOOLCALL_FORMAT_ERROR);
    this.config = { ...config, ...own, format_error_template: this.#formatErrorTemplate };
    this.#observationTemplate = own.observation_template;
    this.#client = client;
    this.#format = format;
    if (format === "text") {
      if (actionRegex === undefined) {
        throw new TypeError("ChatModel: text mode needs the compiled action_regex");
      }
      this.#regex = actionRegex;
    }
    if (own.multimodal_regex !== "" && multimodalRegex === undefined) {
      throw new TypeError("ChatModel: model.multimodal_regex is set, but its compiled regex was not given");
    }
    this.#multimodal = own.multimodal_regex === "" ? undefined : multimodalRegex;
    this.type = type;
  }

  /** The system and first user message: upstream's `format_message`, content expanded when multimodal. */
  formatMessage(role: "system" | "user", content: string): Message {
    if (this.#multimodal === undefined) return { role, content };
    return { role, content: expandText(content, this.#multimodal) };
  }

  /** Config fields exposed to templates. */
  templateVars(): Vars {
    return this.config;
  }

  /** Query the model; parse its actions or throw {@link FormatError} with the billed cost. */
  async query(messages: Message[], signal?: AbortSignal): Promise<AssistantMessage> {
    const completion = await this.#complete(messages, signal);
    const actions = this.#parse(completion);
    return {
      ...completion.message,
      role: "assistant",
      extra: { actions, response: completion.response, cost: completion.cost, timestamp: this.#now() / 1000 },
    };
  }

  /** Ask for a reply in prose: no actions parsed, tool calls dropped (see {@link Model.ask}). */
  async ask(messages: Message[], signal?: AbortSignal): Promise<AssistantMessage> {
    const completion = await this.#complete(messages, signal);
    const { tool_calls: _, ...message } = completion.message;
    return {
      ...message,
      role: "assistant",
      extra: {
        actions: [],
        response: completion.response,
        cost: completion.cost,
        timestamp: this.#now() / 1000,
      },
    };
  }

  async #complete(messages: Message[], signal?: AbortSignal): Promise<Completion> {
    const marks = this.config.set_cache_control === "default_end"
      ? await (this.#marks ??= import("./extra/_cache_control.ts"))
      : undefined;
    const prepared = messages.map((m) => {
      let sent = this.#sent.get(m);
      if (sent === undefined) {
        const { extra: _, ...rest } = m;
        this.#sent.set(m, sent = marks ? marks.withoutMarker(rest) : rest);
      }
      return sent;
    });
    // Only the last message differs from its cached form, so only it is serialised anew.
    if (marks && prepared.length > 0) prepared[prepared.length - 1] = marks.markLast(prepared.at(-1)!);
    return await this.#client.complete(
      this.#format === "toolcall" ? { messages: prepared, tools: [BASH_TOOL] } : { messages: prepared },
      signal,
    );
  }

  #parse(c: Completion): Action[] {
    const finish_reason = c.finish_reason;
    if (this.#format === "text") {
      const actions = c.problem === undefined
        ? (this.#regex!.findall(c.message.content ?? "") as string[]).map(pyStrip)
        : [];
      if (actions.length === 1) return [{ command: actions[0]! }];
      const error = c.problem ?? `Expected exactly 1 action, found ${actions.length}.`;
      throw new FormatError({
        role: "user",
        content: renderTemplate(
          this.#formatErrorTemplate,
          { actions, error, finish_reason },
          "model.format_error_template",
        ),
        extra: {
          interrupt_type: "FormatError",
          n_actions: actions.length,
          model_response: c.message.content ?? "",
          cost: c.cost,
          response: c.response,
        },
      });
    }
    const calls: ToolCall[] = c.message.tool_calls ?? [];
    const fail = (error: string, has_tool_calls: boolean): never => {
      throw new FormatError({
        role: "user",
        content: renderTemplate(this.#formatErrorTemplate, {
          error,
          actions: [],
          has_tool_calls,
          finish_reason,
        }, "model.format_error_template"),
        extra: { interrupt_type: "FormatError", cost: c.cost, response: c.response },
      });
    };
    // An unusable shape is not a missing tool call: keep the template's token-limit branch out of it.
    if (c.problem !== undefined) fail(c.problem, true);
    if (calls.length === 0) {
      fail("No tool calls found in the response. Every response MUST include at least one tool call.", false);
    }
    return calls.map((call) => {
      const { command, error } = bashCall(call.function?.name, call.function?.arguments ?? "");
      if (error) fail(error, true);
      return { command: command!, tool_call_id: call.id };
    });
  }

  /** One observation per action: tool messages (tool calls) or user messages (text). */
  formatObservations(
    message: { extra: { actions: Action[] } },
    outputs: ExecOutput[],
    vars: Vars,
  ): (ToolMessage | UserMessage)[] {
    const actions = message.extra.actions;
    const padded = this.#format === "toolcall"
      ? [...outputs, ...Array(Math.max(0, actions.length - outputs.length)).fill(NOT_EXECUTED)]
      : outputs;
    return padded.map((output: ExecOutput, i) => {
      const content = renderTemplate(
        this.#observationTemplate,
        { ...vars, output },
        "model.observation_template",
      );
      const extra: ObservationExtra = {
        raw_output: output.output,
        returncode: output.returncode,
        timestamp: this.#now() / 1000,
        exception_info: output.exception_info,
        ...output.extra,
      };
      const id = actions[i]?.tool_call_id;
      // Upstream expands observations too: a command that prints tagged content shows an image.
      const shown = this.#multimodal ? expandText(content, this.#multimodal) : content;
      return this.#format === "toolcall" && id !== undefined
        ? { content: shown, extra, tool_call_id: id, role: "tool" as const }
        : { role: "user" as const, content: shown, extra };
    });
  }
}
