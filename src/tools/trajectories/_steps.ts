/**
 * The steps of a trajectory as {@link parseTrajectory} reads them: one per model call, from each
 * assistant message (or format-error turn) to the next, with their actions, observations and
 * timing; `mini-swe-agent-1.1` steps from `extra.actions`, v1 and legacy ones from the reply's
 * fenced block.
 *
 * @module
 */
import { NOT_EXECUTED } from "../../core/submission.ts";
import {
  contentText,
  count,
  finishReasonOf,
  num,
  observationCallId,
  observationText,
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
import type { ExitInfo, Observation, Step, StepAction, StoredMessage, TrajectoryConfig } from "./types.ts";
import { isPlainObject } from "../../lib/json.ts";

/** Upstream v1's default action block, and v2's text-mode one: what a legacy file without config used. */
const LEGACY_ACTION = /```(?:bash|mswea_bash_command)\s*\n(.*?)\n```/gs;

/** What {@link readSteps} finds. */
export interface StepsRead {
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
export function readSteps(
  msgs: StoredMessage[],
  exit: ExitInfo,
  legacy: TrajectoryConfig | undefined,
): StepsRead {
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

function legacyActionRegex(config: TrajectoryConfig): RegExp {
  const source = str(config.agent.action_regex) ?? str(config.model.action_regex);
  if (source === undefined) return LEGACY_ACTION;
  try {
    return new RegExp(source.replace(/\(\?P<(\w+)>/g, "(?<$1>"), "gs");
  } catch {
    return LEGACY_ACTION;
  }
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
  const actions = Array.isArray(extra.actions) ? extra.actions.filter(isPlainObject) : [];
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
    executed: exceptionInfo !== NOT_EXECUTED.exception_info,
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
