/**
 * The three small contracts of claudius (Model, Environment, Agent) and the plain data that flows
 * between them. Everything here is data or an interface: no behaviour.
 *
 * @module
 */

import type { Json } from "../lib/json.ts";
import type {
  Action,
  AssistantMessage,
  Message,
  ReplyMessage,
  ToolMessage,
  UserMessage,
  WireMessage,
} from "./messages.ts";

export type { Json };
export type {
  Action,
  AssistantExtra,
  AssistantMessage,
  ContentPart,
  CopiedExtra,
  ExitExtra,
  ExitMessage,
  HumanCommandExtra,
  InterruptExtra,
  MechanismExtra,
  Message,
  ObservationExtra,
  ReplyMessage,
  Role,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
  WireMessage,
} from "./messages.ts";

/** Template variables: plain data handed to the Jinja2-compatible renderer. */
export type Vars = Record<string, unknown>;

/**
 * What running one action produced. A command that fails, times out or cannot start is still an
 * output (returncode -1 and `exception_info` set): the model sees it, the run goes on.
 */
export interface ExecOutput {
  /** Merged stdout and stderr, decoded like Python's text mode (bounded, see the environment). */
  output: string;
  /** The command's exit status; -1 when it could not finish. */
  returncode: number;
  /** Empty unless the command could not finish normally (timeout, spawn failure). */
  exception_info: string;
  /** Extra keys copied into the observation message's `extra` (e.g. `exception_type`). */
  extra?: Record<string, unknown>;
}

/** A program to run on the host: argv, working directory and environment (undefined: inherit). */
export interface HostCommand {
  /** The program and its arguments. */
  argv: string[];
  /** Working directory (default: the host's current one). */
  cwd?: string;
  /** Environment variables (default: inherit the host's). */
  env?: Record<string, string>;
}

/** Where commands run: the host (`local`), a container (`docker`), a sandbox (`bubblewrap`). */
export interface Environment {
  /** The environment's resolved config, as saved in the trajectory and exposed to templates. */
  readonly config: Record<string, unknown>;
  /** Short class name recorded as `info.config.environment_type`. */
  readonly type: string;
  /** Prepare the environment (start a container, probe uname). Called once before the first step. */
  start(signal?: AbortSignal): Promise<void>;
  /** Run one action in a fresh shell. Never throws for command failures; `signal` aborts it. */
  execute(action: Action, signal?: AbortSignal): Promise<ExecOutput>;
  /** Config fields plus the uname of where commands run (`system`, `node`, `release`, `version`, `machine`). */
  templateVars(): Vars;
  /**
   * The host command that runs `argv` where commands run, in the working directory (artifacts stream
   * its stdout to host files). Environments without it do not support artifacts.
   * @throws {Error} when it cannot (e.g. the container was never started)
   */
  hostCommand?(argv: string[]): HostCommand;
  /** Release everything (kill processes, remove the container). Safe to call twice. */
  close(): Promise<void>;
  /**
   * Why this environment's engine (not its task) failed, if it did: a batch stops giving that
   * engine work. Undefined for environments without an engine, and while the engine is well.
   */
  engineFault?(): EngineFault | undefined;
}

/** An engine that failed an environment, as a batch reads it. */
export interface EngineFault {
  /**
   * `down`: the engine does not answer or cannot be reached (no more work goes to it); `start`: it
   * answered but could not start the container or sandbox (the image is missing, a pull failed),
   * which a batch reads as the engine's fault once it repeats.
   */
  kind: "down" | "start";
  /** The engine's address (`--docker-host`), or "" for the default. */
  host: string;
  /** One line: what failed, in the engine's words. */
  message: string;
}

/** One chat completion, parsed once at the client boundary into our own shape. */
export interface Completion {
  /** The assistant message exactly as the provider returned it (role, content, tool_calls, ...). */
  message: ReplyMessage;
  /** Why the reply ended (`stop`, `tool_calls`, `length`, ...), as the provider said. */
  finish_reason: string | null;
  /** Cost of this call in dollars (provider-reported, else computed from configured prices, else 0). */
  cost: number;
  /** The whole raw response body, for the trajectory. */
  response: Json;
  /** Why the served response cannot be used (an odd shape): the model sees it as a format error. */
  problem?: string;
}

/** The request the model layer sends: messages already stripped of `extra`. */
export interface ChatRequest {
  /** The conversation so far, as the API takes it. */
  messages: WireMessage[];
  /** Tool definitions (tool-call mode) or undefined (text mode). */
  tools?: Json[];
}

/** A transport that turns a chat request into a completion: the HTTP client, or a scripted replay. */
export interface ChatClient {
  /** Send one request and parse the reply (the HTTP client retries what can be retried). */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<Completion>;
}

/** The model as the agent sees it: query for the next assistant message, render observations. */
export interface Model {
  /** The model's resolved config, as saved in the trajectory and exposed to templates. */
  readonly config: Record<string, unknown>;
  /** Class name recorded as `info.config.model_type`. */
  readonly type: string;
  /**
   * Ask the model for its next message. Returns the assistant message with `extra.actions`,
   * `extra.response`, `extra.cost` and `extra.timestamp`. Throws `FormatError` (carrying the
   * format-error user message, with the call's cost) when the reply has no valid action(s).
   */
  query(messages: readonly Message[], signal?: AbortSignal): Promise<AssistantMessage>;
  /**
   * Ask for a reply in prose (summaries, plans): the same request as {@link Model.query}, but no
   * actions are parsed (`extra.actions` is empty) and tool calls are dropped from the message
   * (kept in `extra.response`), so the message can stay in the conversation.
   */
  ask?(messages: readonly Message[], signal?: AbortSignal): Promise<AssistantMessage>;
  /** Render one observation message per action (padding unrun tool calls). */
  formatObservations(
    message: { extra: { actions: Action[] } },
    outputs: ExecOutput[],
    vars: Vars,
  ): (ToolMessage | UserMessage)[];
  /** Config fields exposed to templates. */
  templateVars(): Vars;
  /**
   * The system or first user message in the model's own shape (upstream's `format_message`);
   * without it, `{role, content}`.
   */
  formatMessage?(role: "system" | "user", content: string): Message;
}

/**
 * What an opt-in mechanism sees of the loop (see {@link Hooks}): the state, read-only, and the three
 * ways to act on it. Nothing else writes the agent's state.
 *
 * @typeParam C the agent's resolved config
 */
export interface LoopView<C = Readonly<Record<string, unknown>>> {
  /** The trajectory so far. */
  readonly messages: readonly Message[];
  /** Model calls so far (the loop's and the mechanisms'). */
  readonly nCalls: number;
  /** Dollars spent so far. */
  readonly cost: number;
  /** The resolved `agent` section. */
  readonly config: Readonly<C>;
  /** The model the loop queries. */
  readonly model: Model;
  /** The environment commands run in. */
  readonly env: Environment;
  /** The variables the run was given (`task`, `instance`, ...). */
  readonly runVars: Readonly<Vars>;
  /** Every template variable as the loop renders them now. */
  vars(): Vars;
  /** Whole seconds since the run began (as the wall-time limit counts them). */
  elapsedSeconds(): number;
  /** Throw the ending a limit reached asks for (`LimitsExceeded`, `TimeExceeded`, the global limits). */
  checkLimits(): void;
  /** Run a command in the environment, aborted with the loop's current step. */
  execute(action: Action): Promise<ExecOutput>;
  /** Append messages to the trajectory (and show them). */
  append(...messages: Message[]): void;
  /**
   * The one way to call the model: checks the limits, counts the call and bills it (a reply that
   * fails to parse is billed too). `tools` queries for actions, `prose` asks for text.
   * @throws {LimitsExceeded} or {@link FormatError} as {@link Model.query} does
   */
  call(messages: readonly Message[], kind: "tools" | "prose"): Promise<AssistantMessage>;
}

/**
 * The few points where opt-in mechanisms join the loop (see `src/features/mechanisms/`), each given
 * a {@link LoopView}. Without hooks the loop is upstream's, byte for byte.
 *
 * @typeParam C the agent's resolved config
 */
export interface Hooks<C = Readonly<Record<string, unknown>>> {
  /** Before the first two messages are rendered: extra template variables, text appended to the task. */
  start?(loop: LoopView<C>): Promise<{ vars: Vars; append: string }>;
  /** Before each query's limit check: may append messages and make model calls of its own. */
  beforeQuery?(loop: LoopView<C>): Promise<void>;
  /** The messages the model is sent (default: all of them). */
  context?(messages: readonly Message[]): readonly Message[];
  /** Run an action in place of the environment; undefined leaves it to the environment. */
  execute?(action: Action, loop: LoopView<C>): Promise<ExecOutput | undefined>;
  /** See each output before the submission check; returns the output the loop goes on with. */
  observe?(action: Action, output: ExecOutput, loop: LoopView<C>): Promise<ExecOutput>;
  /** Keys for the trajectory's `info` (`config` is merged into `info.config`). */
  info?(): Record<string, unknown>;
  /** A resumed run (`claudius resume`): take up the state the predecessor's messages record. */
  resume?(messages: readonly Message[]): void;
}

/** The state a loop starts from when it goes on from an earlier run (`claudius resume`). */
export interface LoopState {
  /** The predecessor's messages (its exit message left out). */
  messages: Message[];
  /** The predecessor's model calls. */
  nCalls: number;
  /** The predecessor's spend, in dollars. */
  cost: number;
  /** Format errors in a row at the end of `messages`. */
  formatErrors: number;
}

/**
 * What an agent needs besides its model and environment (all injected; nothing global).
 * @typeParam A the agent, as `save` is given it
 * @typeParam C its resolved `agent` section, as the hooks see it
 */
export interface LoopDeps<A, C> {
  /** Wall clock in milliseconds (default `Date.now`). */
  now?: () => number;
  /** Persists the trajectory: after every step, and after every reply. */
  save?: (agent: A) => Promise<void>;
  /** Called with every message as it is appended (verbose display). */
  onMessage?: (message: Message) => void;
  /** Aborted on Ctrl-C / SIGTERM; its `reason` (an `InterruptAgentFlow`) ends the run. */
  signal?: AbortSignal;
  /** Opt-in mechanisms (src/features/mechanisms/); none by default. */
  hooks?: Hooks<C>;
  /** Runs after the limit checks, before a call is counted; throws to end the run (global limits). */
  beforeCall?: () => void;
  /** When the run began, in milliseconds (default: now); a resumed run began in an earlier process. */
  startedAt?: number;
  /** Credential values replaced by `[REDACTED]` in command outputs (see `secret_redactor.ts`). */
  secrets?: readonly string[];
  /** Go on from an earlier run's state (`claudius resume`) instead of an empty history. */
  initial?: LoopState;
}

/**
 * What a streamed reply shows while it arrives: each attempt starts, then its text in pieces, then
 * ends (whether it came whole or was cut).
 */
export type StreamEvent = { type: "start" } | { type: "text"; text: string } | { type: "end" };

/** Receives {@link StreamEvent}s (the interactive screen). */
export type StreamSink = (event: StreamEvent) => void;
