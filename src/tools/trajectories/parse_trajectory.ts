/**
 * Build the typed {@link Trajectory} model from parsed trajectory JSON: `mini-swe-agent-1.1`
 * (claudius and upstream v2, chat completions or Responses API), `mini-swe-agent-1` (upstream v1)
 * and the legacy bare list of messages.
 *
 * @module
 */
import {
  contentText,
  count,
  finishReasonOf,
  isRec,
  num,
  observationCallId,
  observationText,
  type Rec,
  rec,
  replyReasoning,
  replyResponse,
  replyText,
  replyToolCalls,
  responseMessage,
  roleOf,
  str,
  timestampOf,
  usageOf,
} from "./_message.ts";
import type {
  ExitInfo,
  Observation,
  Step,
  StepAction,
  StoredMessage,
  Tokens,
  Trajectory,
  TrajectoryConfig,
  TrajectoryFormat,
  TrajectoryTotals,
} from "./types.ts";

/** Options of {@link parseTrajectory}. */
export interface ParseOptions {
  /** The file the data came from (named in errors, and the instance id's fallback). */
  path?: string;
  /** The text was torn and repaired before parsing. */
  repaired?: boolean;
}

/** Upstream v1's default action block, and v2's text-mode one: what a legacy file without config used. */
const LEGACY_ACTION = /```(?:bash|mswea_bash_command)\s*\n(.*?)\n```/gs;

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
  if (!isRec(data) || !Array.isArray(data.messages)) {
    throw new SyntaxError(`Cannot read ${where}: not a trajectory (expected a messages list)`);
  }
  const { messages: _, info, trajectory_format, ...top } = data;
  const messages = messageList(data.messages, where);
  const format = trajectory_format === "mini-swe-agent-1" ||
      (trajectory_format === undefined && !messages.some((x) => isRec(x.extra)))
    ? "mini-swe-agent-1"
    : "mini-swe-agent-1.1";
  return { messages, info: rec(info), top, format };
}

/** The list, when every entry is an object. @throws {SyntaxError} naming the first that is not */
function messageList(list: unknown[], where: string): StoredMessage[] {
  if (list.every(isRec)) return list;
  const bad = list.findIndex((m) => !isRec(m));
  throw new SyntaxError(`Cannot read ${where}: message ${bad + 1} is not an object`);
}

/** "toolcall" when any message is a tool call or its result, else "text". */
function actionFormatOf(msgs: StoredMessage[]): "toolcall" | "text" {
  return msgs.some((m) =>
      roleOf(m) === "tool" || observationCallId(m) !== undefined ||
      (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) ||
      (Array.isArray(m.output) && m.output.some((o) => isRec(o) && o.type === "function_call"))
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

/** What {@link readSteps} finds. */
interface StepsRead {
  steps: Step[];
  system: string;
  instance: string;
  firstTs: number | undefined;
  lastTs: number | undefined;
}

/**
 * The steps between the prologue (system prompt, task) and the exit message, with the prologue's
 * texts and the first and last timestamps seen.
 * @param legacy the config of a v1 or legacy file (its action regex), undefined for v1.1
 */
function readSteps(msgs: StoredMessage[], exit: ExitInfo, legacy: TrajectoryConfig | undefined): StepsRead {
  const legacyRegex = legacy ? legacyActionRegex(legacy) : LEGACY_ACTION;
  const exitAt = exit.messageIndex ?? msgs.length;
  const starts: { at: number; reply: StoredMessage }[] = [];
  for (const [at, m] of msgs.entries()) {
    if (at !== exit.messageIndex && isStepStart(m)) starts.push({ at, reply: m });
  }
  let firstTs: number | undefined, lastTs: number | undefined;
  const seen = (t: number | undefined) => {
    if (t === undefined) return;
    if (firstTs === undefined || t < firstTs) firstTs = t;
    if (lastTs === undefined || t > lastTs) lastTs = t;
  };
  let system = "", instance = "";
  const prologueEnd = starts[0]?.at ?? exitAt;
  for (const m of msgs.slice(0, prologueEnd)) {
    seen(timestampOf(m));
    if (roleOf(m) === "system" && !system) system = contentText(m.content);
    else if (roleOf(m) === "user" && !instance) instance = contentText(m.content);
  }
  let prevEnd = legacy ? lastTs : undefined;
  const steps = starts.map(({ at, reply }, k) => {
    const span = { number: k + 1, start: at, end: Math.min(starts[k + 1]?.at ?? msgs.length, exitAt) };
    const step = legacy ? stepLegacy(msgs, reply, span, legacyRegex) : stepV2(msgs, reply, span);
    prevEnd = timeStep(step, prevEnd);
    return step;
  });
  for (const m of msgs.slice(prologueEnd)) seen(timestampOf(m));
  return { steps, system, instance, firstTs, lastTs };
}

/**
 * Set the step's model time (since the previous step ended) and command time (to its last
 * observation). @returns when the step ended, else `prevEnd`
 */
function timeStep(step: Step, prevEnd: number | undefined): number | undefined {
  if (step.timestamp !== undefined && prevEnd !== undefined) step.modelSeconds = step.timestamp - prevEnd;
  let lastObservation: number | undefined;
  for (const a of step.actions) {
    const t = a.observation?.timestamp;
    if (t !== undefined && (lastObservation === undefined || t > lastObservation)) lastObservation = t;
  }
  if (step.timestamp !== undefined && lastObservation !== undefined) {
    step.commandSeconds = lastObservation - step.timestamp;
  }
  return lastObservation ?? step.timestamp ?? prevEnd;
}

function isStepStart(m: StoredMessage): boolean {
  const extra = rec(m.extra);
  return roleOf(m) === "assistant" || extra.interrupt_type === "FormatError" ||
    (roleOf(m) === "" && Array.isArray(extra.actions));
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

function legacyActionRegex(config: TrajectoryConfig): RegExp {
  const source = str(config.agent.action_regex) ?? str(config.model.action_regex);
  if (source === undefined) return LEGACY_ACTION;
  try {
    return new RegExp(source.replace(/\(\?P<(\w+)>/g, "(?<$1>"), "gs");
  } catch {
    return LEGACY_ACTION;
  }
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

function emptyStep(number: number, start: number, end: number, reply: StoredMessage): Step {
  const response = replyResponse(reply);
  const extra = rec(reply.extra);
  return {
    number,
    kind: "actions",
    messageIndex: start,
    endIndex: end,
    reply,
    text: replyText(reply),
    reasoning: replyReasoning(reply),
    toolCalls: replyToolCalls(reply),
    actions: [],
    formatError: undefined,
    cost: count(extra.cost) ?? 0,
    costRecorded: count(extra.cost) !== undefined,
    usage: usageOf(response),
    model: str(response.model),
    finishReason: finishReasonOf(response),
    timestamp: timestampOf(reply),
    modelSeconds: undefined,
    commandSeconds: undefined,
  };
}

/** Where a step is: its number, and its messages `[start, end)` (the first is its reply). */
interface StepSpan {
  number: number;
  start: number;
  end: number;
}

/** A step of a `mini-swe-agent-1.1` file (extra.actions, observations linked by call id or order). */
function stepV2(msgs: StoredMessage[], first: StoredMessage, span: StepSpan): Step {
  const { number, start, end } = span;
  const extra = rec(first.extra);
  if (extra.interrupt_type === "FormatError") {
    const response = rec(extra.response);
    const rebuilt: StoredMessage = Array.isArray(response.output)
      ? { ...response, role: "assistant", content: null, extra: { rebuilt: true } }
      : {
        ...responseMessage(response),
        role: "assistant",
        content: str(extra.model_response) ?? str(responseMessage(response)?.content) ?? null,
        extra: { rebuilt: true },
      };
    const step = emptyStep(number, start, end, rebuilt);
    return {
      ...step,
      kind: "format_error",
      formatError: contentText(first.content),
      cost: count(extra.cost) ?? 0,
      costRecorded: count(extra.cost) !== undefined,
      usage: usageOf(response),
      model: str(response.model),
      finishReason: finishReasonOf(response),
      timestamp: timestampOf(first),
    };
  }
  const step = emptyStep(number, start, end, first);
  const actions = Array.isArray(extra.actions) ? extra.actions.filter(isRec) : [];
  const observations: Observation[] = [];
  for (const [k, m] of msgs.slice(start + 1, end).entries()) {
    const i = start + 1 + k;
    const mx = rec(m.extra);
    const callId = observationCallId(m);
    if (
      callId !== undefined || (roleOf(m) === "user" && mx.interrupt_type === undefined && "returncode" in mx)
    ) {
      observations.push(observationOf(m, i, callId));
    }
  }
  step.actions = actions.map((a, index): StepAction => {
    const toolCallId = str(a.tool_call_id);
    const observation = toolCallId !== undefined
      ? observations.find((o) => o.toolCallId === toolCallId)
      : observations[index];
    return { index, command: actionCommand(a.command), toolCallId, observation };
  });
  return step;
}

function actionCommand(command: unknown): string {
  return typeof command === "string" ? command : JSON.stringify(command ?? "");
}

function observationOf(m: StoredMessage, index: number, toolCallId: string | undefined): Observation {
  const extra = rec(m.extra);
  const exceptionInfo = str(extra.exception_info) ?? "";
  const exceptionType = str(extra.exception_type);
  return {
    messageIndex: index,
    toolCallId,
    content: observationText(m),
    output: str(extra.raw_output),
    returncode: num(extra.returncode),
    exceptionInfo,
    exceptionType,
    timedOut: exceptionType === "TimeoutExpired" || /timed out/i.test(exceptionInfo),
    executed: exceptionInfo !== "action was not executed",
    timestamp: timestampOf(m),
  };
}

/**
 * A step of an upstream v1 file or a legacy list: the action is the reply's one fenced block; a reply
 * with none or several was a format error (the next user message says so); else the next user
 * message is the observation.
 */
function stepLegacy(msgs: StoredMessage[], reply: StoredMessage, span: StepSpan, re: RegExp): Step {
  const { number, start, end } = span;
  const step = emptyStep(number, start, end, reply);
  re.lastIndex = 0;
  const found = [...step.text.matchAll(re)].map((m) => (m[1] ?? m[0]).trim());
  const next = start + 1 < end ? msgs[start + 1] : undefined;
  const nextText = next && roleOf(next) === "user" ? contentText(next.content) : undefined;
  const [command] = found;
  if (found.length !== 1 || command === undefined) {
    return { ...step, kind: "format_error", formatError: nextText };
  }
  const code = nextText === undefined ? undefined : /<returncode>(-?\d+)<\/returncode>/.exec(nextText)?.[1];
  const timedOut = nextText !== undefined && code === undefined && /timed out/i.test(nextText);
  const observation: Observation | undefined = next === undefined || nextText === undefined ? undefined : {
    messageIndex: start + 1,
    toolCallId: undefined,
    content: nextText,
    output: undefined,
    returncode: code !== undefined ? Number(code) : timedOut ? -1 : undefined,
    exceptionInfo: timedOut ? nextText : "",
    exceptionType: undefined,
    timedOut,
    executed: true,
    timestamp: timestampOf(next),
  };
  step.actions = [{ index: 0, command, toolCallId: undefined, observation }];
  return step;
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
