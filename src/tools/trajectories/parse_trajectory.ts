/**
 * Build the typed {@link Trajectory} model from parsed trajectory JSON: `mini-swe-agent-1.1`
 * (claudius and upstream v2, chat completions or Responses API), `mini-swe-agent-1` (upstream v1)
 * and the legacy bare list of messages.
 *
 * @module
 */
import { contentText, count, observationCallId, type Rec, rec, roleOf, str } from "./_message.ts";
import { readSteps } from "./_steps.ts";
import type {
  ExitInfo,
  Step,
  StoredMessage,
  Tokens,
  Trajectory,
  TrajectoryConfig,
  TrajectoryFormat,
  TrajectoryTotals,
} from "./types.ts";
import { isPlainObject } from "../../lib/json.ts";

/** Options of {@link parseTrajectory}. */
export interface ParseOptions {
  /** The file the data came from (named in errors, and the instance id's fallback). */
  path?: string;
  /** The text was torn and repaired before parsing. */
  repaired?: boolean;
}

/**
 * Build the model of a trajectory from its parsed JSON.
 *
 * @example
 * ```ts
 * import { parseTrajectory } from "./parse_trajectory.ts";

 * const fence = "`".repeat(3); // a fence written out would end this example
 * const t = parseTrajectory([
 *   { role: "system", content: "You are..." },
 *   { role: "user", content: "Fix it" },
 *   { role: "assistant", content: `${fence}bash\nls\n${fence}` },
 *   { role: "user", content: "<returncode>0</returncode>\n<output>\na.py\n</output>" },
 * ]);
 * t.steps[0]!.actions[0]!.observation!.returncode; // 0
 * ```
 * @param data the parsed file: an object with `messages` (and `info`), or a bare list of messages
 * @param options where it came from
 * @throws {SyntaxError} when `data` is not a trajectory (no list of message objects)
 */
export function parseTrajectory(data: unknown, options: ParseOptions = {}): Trajectory {
  const path = options.path ?? "";
  const { messages: msgs, info, top, format } = shapeOf(data, path || "trajectory");
  const config = configOf(rec(info.config));
  // A bare list is upstream's legacy file, or v1.1 messages dumped alone: their steps carry actions.
  const v2 = format === "mini-swe-agent-1.1" ||
    (format === "list" && msgs.some((m) => Array.isArray(rec(m.extra).actions)));
  const exit = exitOf(msgs, info, v2);
  const { steps, system, instance, firstTs, lastTs } = readSteps(msgs, exit, v2 ? undefined : config);
  const stats = rec(info.model_stats);
  const firstModel = steps.find((s) => s.model)?.model;
  return {
    path,
    format,
    producer: producerOf(info, config),
    repaired: options.repaired ?? false,
    instanceId: str(top.instance_id) ?? fileStem(path),
    messages: msgs,
    system,
    instance,
    steps,
    exit,
    actionFormat: actionFormatOf(msgs),
    config,
    modelName: str(config.model.model_name) ?? firstModel ?? "",
    reportedCost: count(stats.instance_cost),
    reportedApiCalls: count(stats.api_calls),
    miniVersion: str(info.mini_version),
    claudiusVersion: str(info.claudius_version),
    totals: totalsOf(steps, firstTs, lastTs),
    info,
    top,
  };
}

/** The file's layout, its messages (each an object), its `info` and its other top-level fields. */
function shapeOf(
  data: unknown,
  where: string,
): { messages: StoredMessage[]; info: Rec; top: Rec; format: TrajectoryFormat } {
  if (Array.isArray(data)) return { messages: messageList(data, where), info: {}, top: {}, format: "list" };
  if (!isPlainObject(data) || !Array.isArray(data.messages)) {
    throw new SyntaxError(`Cannot read ${where}: not a trajectory (expected a messages list)`);
  }
  const { messages: _, info, trajectory_format, ...top } = data;
  const messages = messageList(data.messages, where);
  const format = trajectory_format === "mini-swe-agent-1" ||
      (trajectory_format === undefined && !messages.some((x) => isPlainObject(x.extra)))
    ? "mini-swe-agent-1"
    : "mini-swe-agent-1.1";
  return { messages, info: rec(info), top, format };
}

/** The list, when every entry is an object. @throws {SyntaxError} naming the first that is not */
function messageList(list: unknown[], where: string): StoredMessage[] {
  if (list.every(isPlainObject)) return list;
  const bad = list.findIndex((m) => !isPlainObject(m));
  throw new SyntaxError(`Cannot read ${where}: message ${bad + 1} is not an object`);
}

/** "toolcall" when any message is a tool call or its result, else "text". */
function actionFormatOf(msgs: StoredMessage[]): "toolcall" | "text" {
  return msgs.some((m) =>
      roleOf(m) === "tool" || observationCallId(m) !== undefined ||
      (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) ||
      (Array.isArray(m.output) && m.output.some((o) => isPlainObject(o) && o.type === "function_call"))
    )
    ? "toolcall"
    : "text";
}

function producerOf(info: Rec, config: TrajectoryConfig): Trajectory["producer"] {
  if (typeof info.claudius_version === "string") return "claudius";
  const upstream = typeof info.mini_version === "string" ||
    String(config.agentType ?? "").startsWith("minisweagent.");
  return upstream ? "mini-swe-agent" : "unknown";
}

function configOf(c: Rec): TrajectoryConfig {
  return {
    agent: rec(c.agent),
    model: rec(c.model),
    environment: rec(c.environment),
    agentType: str(c.agent_type),
    modelType: str(c.model_type),
    environmentType: str(c.environment_type),
  };
}

/** The file name without `.traj.json` / `.json`. */
function fileStem(path: string): string {
  return (path.split("/").pop() ?? "").replace(/(\.traj)?\.json$/, "");
}

/** The exit message (role `exit`), or for v1 files the closing user message of a finished run. */
function exitOf(msgs: StoredMessage[], info: Rec, v2: boolean): ExitInfo {
  let index = msgs.findLastIndex((m) => roleOf(m) === "exit");
  const status = str(info.exit_status) ?? "";
  if (index < 0 && !v2 && status && roleOf(msgs.at(-1) ?? {}) === "user" && msgs.length > 2) {
    index = msgs.length - 1;
  }
  const m = index >= 0 ? msgs[index] : undefined;
  const extra = rec(m?.extra);
  return {
    status: str(extra.exit_status) ?? status,
    submission: str(extra.submission) ?? str(info.submission) ?? "",
    content: m ? contentText(m.content) : "",
    exceptionStr: str(extra.exception_str) ?? str(info.exception_str),
    traceback: str(extra.traceback) ?? str(info.traceback),
    messageIndex: index >= 0 ? index : undefined,
  };
}

function totalsOf(
  steps: Step[],
  startedAt: number | undefined,
  endedAt: number | undefined,
): TrajectoryTotals {
  const tokens: Tokens = { prompt: 0, completion: 0, cached: 0, reasoning: 0 };
  const t: TrajectoryTotals = {
    modelCalls: steps.length,
    formatErrors: 0,
    commands: 0,
    timeouts: 0,
    cost: 0,
    tokens,
    callsWithUsage: 0,
    modelSeconds: 0,
    commandSeconds: 0,
    wallSeconds: startedAt !== undefined && endedAt !== undefined ? endedAt - startedAt : 0,
    startedAt,
    endedAt,
  };
  for (const s of steps) {
    if (s.kind === "format_error") t.formatErrors++;
    t.cost += s.cost;
    if (s.usage) {
      t.callsWithUsage++;
      tokens.prompt += s.usage.prompt;
      tokens.completion += s.usage.completion;
      tokens.cached += s.usage.cached;
      tokens.reasoning += s.usage.reasoning;
    }
    t.modelSeconds += s.modelSeconds ?? 0;
    t.commandSeconds += s.commandSeconds ?? 0;
    for (const a of s.actions) {
      if (a.observation?.executed) t.commands++;
      if (a.observation?.timedOut) t.timeouts++;
    }
  }
  return t;
}
