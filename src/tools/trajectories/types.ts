/**
 * The typed model of a trajectory as read back: what `stats`, `compare`, `report`, `inspect` and
 * the ATIF export work from. Plain data, built once by `parseTrajectory()`; the raw messages stay
 * available for anything the model does not name.
 *
 * A *step* is one model call: it starts at each assistant message, and a format-error turn (whose
 * assistant reply upstream does not keep) is a step of its own, rebuilt from the raw response kept
 * in the format-error message's `extra`. Step numbers therefore count model calls, like
 * `info.model_stats.api_calls`.
 *
 * @module
 */
import type { ToolCall } from "../../core/types.ts";

/**
 * A message as stored in a trajectory file, whatever wrote it: claudius's typed messages, upstream's
 * (any provider's fields; Responses API items have no `role`), v1's hand-formatted ones. Read its
 * parts through the library (`Step`, `Observation`) rather than by shape.
 */
export type StoredMessage = Record<string, unknown>;

/** The file layouts read. */
export type TrajectoryFormat =
  /** upstream v2 and claudius: `{trajectory_format, messages, info}` with `extra` per message */
  | "mini-swe-agent-1.1"
  /** upstream v1: hand-formatted `{role, content}` messages, text actions, no `extra.actions` */
  | "mini-swe-agent-1"
  /** upstream's early legacy format: a bare JSON list of messages */
  | "list";

/** Token counts of one model call, or a sum of them, from the provider's `usage`. */
export interface Tokens {
  /** Input tokens (`prompt_tokens`, `input_tokens`), cached ones included. */
  prompt: number;
  /** Output tokens (`completion_tokens`, `output_tokens`), reasoning included. */
  completion: number;
  /** Input tokens served from the provider's cache. */
  cached: number;
  /** Output tokens spent on reasoning, when the provider says. */
  reasoning: number;
}

/** What one command produced, as the observation message recorded it. */
export interface Observation {
  /** Index of the observation message in {@link Trajectory.messages}. */
  messageIndex: number;
  /** The tool call it answers (tool-call mode); undefined in text mode. */
  toolCallId: string | undefined;
  /** The observation as the model saw it (the rendered template). */
  content: string;
  /** The command's raw output (`extra.raw_output`); undefined when not kept (ProgramBench drops it). */
  output: string | undefined;
  /** Exit code; -1 for a timeout or an unrun action; undefined when not recorded. */
  returncode: number | undefined;
  /** Why the command could not finish normally ("" when it did). */
  exceptionInfo: string;
  /** The exception's class when recorded (`TimeoutExpired`, ...). */
  exceptionType: string | undefined;
  /** The command hit the environment's timeout. */
  timedOut: boolean;
  /** False for the padding of a tool call left unrun because the run ended earlier in the turn. */
  executed: boolean;
  /** When the observation was recorded (Unix seconds); undefined when not recorded. */
  timestamp: number | undefined;
}

/** One command the model asked for (one tool call, or the one fenced block of text mode). */
export interface StepAction {
  /** Position in the step (0-based). */
  index: number;
  command: string;
  /** The tool call id (tool-call mode). */
  toolCallId: string | undefined;
  /** Its observation; undefined when none was recorded (the run ended during the turn). */
  observation: Observation | undefined;
}

/** How a run ended, from its `exit` message (or `info` when there is none). */
export interface ExitInfo {
  /** `Submitted`, `LimitsExceeded`, ..., or an error class name; "" while running or torn. */
  status: string;
  submission: string;
  /** The exit message's text (the error, for failures). */
  content: string;
  /** Error endings: the error text and stack (upstream's `exception_str`, `traceback`). */
  exceptionStr: string | undefined;
  traceback: string | undefined;
  /** Index of the exit message in {@link Trajectory.messages}; undefined when it has none. */
  messageIndex: number | undefined;
}

/** One model call. */
export interface Step {
  /** 1-based position among the steps (model calls), format-error turns included. */
  number: number;
  /** `actions`: a usable reply; `format_error`: a reply the harness rejected. */
  kind: "actions" | "format_error";
  /** Index of the message that starts the step (the assistant reply, or the format-error message). */
  messageIndex: number;
  /** Index just past the step's last message (the next step's start, or the end). */
  endIndex: number;
  /**
   * The assistant reply. For a format-error turn of a `mini-swe-agent-1.1` file it is rebuilt from
   * the raw response (tool-call mode) or `extra.model_response` (text mode), with `extra.rebuilt`.
   */
  reply: StoredMessage;
  /** The reply's text ("" when it had none). */
  text: string;
  /** The model's reasoning text (`reasoning_content`, `reasoning`, Responses API summaries). */
  reasoning: string | undefined;
  /** The tool calls as the model sent them (also for a rejected reply). */
  toolCalls: ToolCall[];
  /** The commands that were parsed from the reply (none for a format error). */
  actions: StepAction[];
  /** The format-error message the model was shown (format-error turns only). */
  formatError: string | undefined;
  /** The call's billed cost in dollars (0 when not recorded). */
  cost: number;
  /**
   * The trajectory records this call's cost (`extra.cost`). Upstream v1 recorded no cost per call,
   * and v2 before 2.4 none for a format error (nor counted it in `instance_cost`).
   */
  costRecorded: boolean;
  /** Token counts from the raw response's `usage`; undefined when it had none. */
  usage: Tokens | undefined;
  /** The model that answered (`response.model`). */
  model: string | undefined;
  finishReason: string | undefined;
  /** When the reply was recorded (Unix seconds); undefined when not recorded. */
  timestamp: number | undefined;
  /** From the end of the previous step to this reply (model call plus harness); undefined when unknown. */
  modelSeconds: number | undefined;
  /** From this reply to its last observation (the commands); undefined when unknown. */
  commandSeconds: number | undefined;
}

/** Sums over a trajectory's steps. */
export interface TrajectoryTotals {
  /** Model calls (steps), format errors included. */
  modelCalls: number;
  formatErrors: number;
  /** Commands run (observations recorded as executed). */
  commands: number;
  /** Commands that hit the timeout. */
  timeouts: number;
  /** Sum of the per-call costs in dollars. */
  cost: number;
  /** Sum of the calls' token counts (calls without `usage` count 0). */
  tokens: Tokens;
  /** Calls whose response carried `usage`. */
  callsWithUsage: number;
  /** Sum of the steps' known model times (seconds). */
  modelSeconds: number;
  /** Sum of the steps' command times (seconds). */
  commandSeconds: number;
  /** First to last recorded timestamp (seconds); 0 when fewer than two are known. */
  wallSeconds: number;
  /** First and last recorded timestamps (Unix seconds). */
  startedAt: number | undefined;
  endedAt: number | undefined;
}

/** The `info.config` block (empty records when absent). */
export interface TrajectoryConfig {
  agent: Record<string, unknown>;
  model: Record<string, unknown>;
  environment: Record<string, unknown>;
  agentType: string | undefined;
  modelType: string | undefined;
  environmentType: string | undefined;
}

/** A trajectory, read back. */
export interface Trajectory {
  /** The file it came from ("" when parsed from memory). */
  path: string;
  format: TrajectoryFormat;
  /** Who wrote it: `claudius` (it records `info.claudius_version`), `mini-swe-agent`, or `unknown`. */
  producer: "claudius" | "mini-swe-agent" | "unknown";
  /** True when the file was torn and its whole messages were recovered. */
  repaired: boolean;
  /** Top-level `instance_id` (batch runs), else the file name without `.traj.json` / `.json`. */
  instanceId: string;
  /** The message list as stored. */
  messages: StoredMessage[];
  /** The system prompt and the first user message (the task as rendered); "" when absent. */
  system: string;
  instance: string;
  /** The model calls, in order. */
  steps: Step[];
  exit: ExitInfo;
  /** Tool calls (`toolcall`) or one fenced block per reply (`text`). */
  actionFormat: "toolcall" | "text";
  config: TrajectoryConfig;
  /** `info.config.model.model_name`, else the first response's model, else "". */
  modelName: string;
  /** `info.model_stats` as recorded (undefined when absent). */
  reportedCost: number | undefined;
  reportedApiCalls: number | undefined;
  /** `info.mini_version` and `info.claudius_version`. */
  miniVersion: string | undefined;
  claudiusVersion: string | undefined;
  totals: TrajectoryTotals;
  /** The whole `info` block as stored. */
  info: Record<string, unknown>;
  /** Other top-level keys (`instance_id`, ...), `messages`/`info`/`trajectory_format` excluded. */
  top: Record<string, unknown>;
}
