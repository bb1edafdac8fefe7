/**
 * The messages of the one linear list that is the trajectory: their shape on the wire, the
 * `extra` metadata claudius keeps with each kind, and the actions parsed from a reply.
 *
 * @module
 */

import type { Json } from "../lib/json.ts";

/** One OpenAI-style function call made by the model. */
export interface ToolCall {
  /** The provider's id for the call; its observation answers it by this id. */
  id: string;
  /** Always `function` (the one kind of tool). */
  type: "function";
  /** The function's name (`bash`) and its arguments as a JSON string. */
  function: { name: string; arguments: string };
}

/** A message role. `exit` ends the run and is never sent to the API. */
export type Role = "system" | "user" | "assistant" | "tool" | "exit";

/**
 * A message as it travels to and from the API: role, content, and every other field the provider
 * returned (`tool_calls`, `reasoning_content`, ...), never `extra`.
 */
export interface WireMessage {
  /** Who speaks; `exit` marks the run's last message. */
  role: Role;
  /** Text, or parts (multimodal content, a cache marker on a text part). */
  content: string | null | ContentPart[];
  /** The function calls of an assistant reply in tool-call mode. */
  tool_calls?: ToolCall[];
  /** A tool message: the call it answers. */
  tool_call_id?: string;
  /** Every other field the provider returned (`reasoning_content`, ...), kept as it came. */
  [key: string]: unknown;
}

/** `extra` of an assistant message: the parsed actions, the raw response, the call's cost. */
export interface AssistantExtra {
  /** The bash commands parsed from the reply, in order. */
  actions: Action[];
  /** The whole raw response body. */
  response: Json;
  /** Dollars. */
  cost: number;
  /** Unix seconds. */
  timestamp: number;
  /** Other keys (a mechanism's), kept as written. */
  [key: string]: unknown;
}

/** `extra` of an observation (a tool message, or a user message in text mode). */
export interface ObservationExtra {
  /** The command's output (bounded, see the environment). */
  raw_output: string;
  /** The command's exit status; -1 when it could not finish. */
  returncode: number;
  /** Unix seconds. */
  timestamp: number;
  /** Why the command could not finish normally (timeout, spawn failure), else empty. */
  exception_info: string;
  /** Keys the environment added (`exception_type`, ...). */
  [key: string]: unknown;
}

/**
 * `extra` of a user message that interrupts the flow: a format error (`FormatError`, with the billed
 * `cost` and `response`), or an interactive event (`UserRejection`, ...).
 */
export interface InterruptExtra {
  /** What interrupted (`FormatError`, `UserRejection`, ...). */
  interrupt_type: string;
  /** A format error's billed cost, in dollars. */
  cost?: number;
  /** A format error's raw response body. */
  response?: Json;
  /** Keys of the interruption (the user's input, ...). */
  [key: string]: unknown;
}

/**
 * `extra` of a message an opt-in mechanism added (src/features/mechanisms/): `mechanism` names the switch
 * (`compression`, `nudge`, `planning`, ...); see the README's "Rich mechanisms" section.
 */
export interface MechanismExtra {
  /** The mechanism's switch (`compression`, `nudge`, `planning`, ...). */
  mechanism: string;
  /** Keys of the mechanism's own. */
  [key: string]: unknown;
}

/** `extra` of a copy of the task after a context restart (see `src/features/mechanisms/_window.ts`). */
export interface CopiedExtra {
  /** Marks the message as a copy. */
  is_copied_context: true;
  /** The index of the message it copies. */
  copied_from: number;
  /** Other keys the copied message had. */
  [key: string]: unknown;
}

/** `extra` of a command typed by the user in human mode (upstream's `User command:` message). */
export interface HumanCommandExtra {
  /** The command the user typed, as the action that ran. */
  actions: Action[];
  /** Other keys of the interactive agent. */
  [key: string]: unknown;
}

/** `extra` of the exit message: the run's ending. */
export interface ExitExtra {
  /** How the run ended (`Submitted`, `LimitsExceeded`, ...), upstream's names. */
  exit_status: string;
  /** What the agent submitted (empty unless it submitted). */
  submission: string;
  /** Unexpected errors: the message and the stack (upstream's names). */
  exception_str?: string;
  /** The stack of the unexpected error. */
  traceback?: string;
  /** Other keys of the ending. */
  [key: string]: unknown;
}

/** The system prompt (no metadata). */
export interface SystemMessage extends WireMessage {
  /** The system prompt's role. */
  role: "system";
  /** Metadata, if any. */
  extra?: Record<string, unknown>;
}
/** The task, an observation (text mode), or an interruption (format error, user input). */
export interface UserMessage extends WireMessage {
  /** The task's, an observation's or an interruption's role. */
  role: "user";
  /** What the message is: an observation, an interruption, a mechanism's, a typed command, a copy. */
  extra?: ObservationExtra | InterruptExtra | MechanismExtra | HumanCommandExtra | CopiedExtra;
}
/** The model's reply, as the provider returned it, plus what claudius parsed from it. */
export interface AssistantMessage extends WireMessage {
  /** The model's role. */
  role: "assistant";
  /** The reply's text (a reply is never in parts). */
  content: string | null;
  /** The parsed actions, the raw response and the call's cost. */
  extra: AssistantExtra;
}
/** A model's reply as parsed from the wire, before claudius adds its `extra`. */
export interface ReplyMessage extends WireMessage {
  /** The model's role. */
  role: "assistant";
  /** The reply's text (text parts joined). */
  content: string | null;
}
/** An observation of one tool call. */
export interface ToolMessage extends WireMessage {
  /** An observation's role in tool-call mode. */
  role: "tool";
  /** The tool call this observation answers. */
  tool_call_id: string;
  /** The command's output and status. */
  extra: ObservationExtra;
}
/** The last message of every run. */
export interface ExitMessage extends WireMessage {
  /** The role that ends the run. */
  role: "exit";
  /** How the run ended and what was submitted. */
  extra: ExitExtra;
}

/**
 * One entry of the linear message list, which is also the trajectory. `extra` holds metadata (typed
 * per kind above) and is stripped before messages go to the API.
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage | ExitMessage;

/** A bash command the model asked for. `tool_call_id` is set in tool-call mode. */
export interface Action {
  /** The command line, run in a fresh shell. */
  command: string;
  /** The tool call it came from, in tool-call mode. */
  tool_call_id?: string;
}

/** One part of a multi-part content (`{type: "text", text}`, an image, with a cache marker...). */
export type ContentPart = { [key: string]: Json };
