/**
 * A trajectory as ATIF v1.7 (the Agent Trajectory Interchange Format of Harbor), keeping what the
 * existing mini-swe-agent converter loses: each observation's link to its tool call, format-error
 * turns as agent steps of their own, the exit status and submission (root `extra`), the model's
 * real reasoning text, the exact cost of each call, and `final_metrics.total_steps`.
 *
 * Mapping: the system prompt and the task are a `system` and a `user` step; each model call is one
 * `agent` step (its text, reasoning, tool calls, observation results, tokens and cost). In text
 * mode the one action of a reply becomes a tool call `bash` with a made-up id
 * (`extra.synthesized`), so its observation can be linked too. A format-error turn's feedback is an
 * observation result with no `source_call_id`; the rejected calls go to `extra.rejected_tool_calls`.
 * Other messages inside a turn (none in claudius's runs) become `user` / `system` steps. A resumed
 * trajectory (`info.resumed_from`, `claudius resume`) marks the steps of its predecessor's messages
 * `is_copied_context: true` and names the predecessor in root `extra.resumed_from`; ATIF's
 * `continued_trajectory_ref` belongs in the predecessor, which a resume never changes.
 *
 * @module
 */
import { BASH_TOOL } from "../../core/models/model.ts";
import type { Json } from "../../core/types.ts";
import { isJsonObject, isPlainObject } from "../../lib/json.ts";
import { contentText, roleOf } from "./_message.ts";
import type { Step, StoredMessage, Trajectory } from "./types.ts";

/** The schema version written and validated. */
export const ATIF_VERSION = "ATIF-v1.7";

/** ATIF's tool call. */
export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, Json>;
  extra?: Record<string, Json>;
}

/** ATIF's observation result. */
export interface AtifResult {
  source_call_id?: string;
  content?: string;
  extra?: Record<string, Json>;
}

/** ATIF's per-step metrics. */
export interface AtifMetrics {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  cost_usd?: number;
  extra?: Record<string, Json>;
}

/** ATIF's step. */
export interface AtifStep {
  step_id: number;
  source: "system" | "user" | "agent";
  message: string;
  timestamp?: string;
  model_name?: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifResult[] };
  metrics?: AtifMetrics;
  llm_call_count?: number;
  is_copied_context?: boolean;
  extra?: Record<string, Json>;
}

/** ATIF's root. */
export interface AtifTrajectory {
  schema_version: string;
  session_id?: string;
  agent: {
    name: string;
    version: string;
    model_name?: string;
    tool_definitions?: Json[];
    extra?: Record<string, Json>;
  };
  steps: AtifStep[];
  final_metrics?: {
    total_prompt_tokens?: number;
    total_completion_tokens?: number;
    total_cached_tokens?: number;
    total_cost_usd?: number;
    total_steps?: number;
    extra?: Record<string, Json>;
  };
  extra?: Record<string, Json>;
}

/** `T` with the keys that may be undefined made optional and never undefined. */
type Defined<T> =
  & { [K in keyof T as undefined extends T[K] ? never : K]: T[K] }
  & { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> };

/** Drop the keys whose value is undefined (ATIF omits absent fields; it has no nulls). */
function defined<T extends object>(o: T): Defined<T> {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o as Defined<T>;
}

const iso = (seconds: number | undefined) =>
  seconds === undefined ? undefined : new Date(Math.round(seconds * 1000)).toISOString();

/** A tool call's arguments as an object: parsed JSON, else the raw text under `raw`. */
function args(text: string): Record<string, Json> {
  try {
    const v = JSON.parse(text);
    if (isJsonObject(v)) return v;
  } catch { /* kept raw below */ }
  return { raw: text };
}

/** The agent step of one model call (without its step id). */
export function atifAgentStep(step: Step, t: Trajectory): Omit<AtifStep, "step_id"> {
  const extra: Record<string, Json> = { step_number: step.number };
  if (step.finishReason !== undefined) extra.finish_reason = step.finishReason;
  const results: AtifResult[] = [];
  if (step.kind === "format_error") {
    extra.format_error = true;
    if (step.toolCalls.length) {
      extra.rejected_tool_calls = step.toolCalls.map((c) => ({
        tool_call_id: c.id,
        function_name: c.function.name,
        arguments: c.function.arguments,
      }));
    }
    if (step.formatError !== undefined) {
      results.push({ content: step.formatError, extra: { format_error: true } });
    }
  }
  const toolCalls = actionCalls(step, results);
  if (t.exit.status === "Submitted" && step === t.steps.at(-1)) extra.submitted = true;
  // The model the run was configured with, as the root's agent.model_name; the provider's own name
  // for it (`response.model`, often dated or without the provider prefix) stays in extra.
  const model = t.modelName || step.model;
  if (step.model !== undefined && step.model !== model) extra.response_model = step.model;
  return defined({
    source: "agent" as const,
    message: step.text,
    timestamp: iso(step.timestamp),
    model_name: model || undefined,
    reasoning_content: step.reasoning,
    tool_calls: toolCalls.length ? toolCalls : undefined,
    observation: results.length ? { results } : undefined,
    metrics: stepMetrics(step),
    llm_call_count: 1,
    extra,
  });
}

/** The step's actions as tool calls (a text-mode action gets a made-up id), their observations added to `results`. */
function actionCalls(step: Step, results: AtifResult[]): AtifToolCall[] {
  return step.actions.map((a) => {
    const id = a.toolCallId ?? `text-${step.number}-${a.index}`;
    const call = step.toolCalls.find((c) => c.id === a.toolCallId);
    const o = a.observation;
    if (o) {
      const oe: Record<string, Json> = {};
      if (o.returncode !== undefined) oe.returncode = o.returncode;
      if (o.exceptionInfo) oe.exception_info = o.exceptionInfo;
      if (o.exceptionType) oe.exception_type = o.exceptionType;
      if (o.timedOut) oe.timed_out = true;
      if (!o.executed) oe.executed = false;
      results.push({ source_call_id: id, content: o.content, extra: oe });
    }
    return defined({
      tool_call_id: id,
      function_name: call?.function.name ?? "bash",
      arguments: call ? args(call.function.arguments) : { command: a.command },
      extra: a.toolCallId === undefined ? { synthesized: "text-mode action" } : undefined,
    });
  });
}

/** The call's tokens and cost (none when the trajectory does not record it: upstream v1, not $0). */
function stepMetrics(step: Step): AtifMetrics {
  const u = step.usage;
  const metricsExtra: Record<string, Json> = {};
  if (u?.reasoning) metricsExtra.reasoning_tokens = u.reasoning;
  if (!step.costRecorded) metricsExtra.cost_recorded = false;
  return defined({
    prompt_tokens: u?.prompt,
    completion_tokens: u?.completion,
    cached_tokens: u?.cached,
    cost_usd: step.costRecorded ? step.cost : undefined,
    extra: Object.keys(metricsExtra).length ? metricsExtra : undefined,
  });
}

/** Options of {@link toAtif}. */
export interface AtifOptions {
  /**
   * The root's `session_id` (a live run's own, unique per run); default: the trajectory's
   * `instance_id`, else its file name.
   */
  sessionId?: string;
}

/**
 * Convert a trajectory to ATIF v1.7.
 *
 * @example
 * ```ts ignore
 * import { loadTrajectory } from "./load_trajectory.ts";

 * import { toAtif } from "./to_atif.ts";

 * const atif = toAtif(await loadTrajectory("runs/x.traj.json"));
 * atif.steps.filter((s) => s.source === "agent").length; // the model calls
 * ```
 */
export function toAtif(t: Trajectory, options: AtifOptions = {}): AtifTrajectory {
  // A resumed run (`claudius resume`) begins with its predecessor's messages: copied context.
  const resumed = isJsonObject(t.info.resumed_from) ? t.info.resumed_from : undefined;
  const steps = atifSteps(t, typeof resumed?.messages === "number" ? resumed.messages : 0);
  const tok = t.totals.tokens;
  const rootExtra: Record<string, Json> = { exit_status: t.exit.status, submission: t.exit.submission };
  if (t.exit.exceptionStr !== undefined) rootExtra.exception_str = t.exit.exceptionStr;
  if (t.exit.traceback !== undefined) rootExtra.traceback = t.exit.traceback;
  if (t.instanceId) rootExtra.instance_id = t.instanceId;
  if (resumed) rootExtra.resumed_from = resumed;
  const agentExtra: Record<string, Json> = { trajectory_format: t.format, action_format: t.actionFormat };
  for (const [k, v] of Object.entries({ ...t.config, miniVersion: t.miniVersion })) {
    if (typeof v === "string") agentExtra[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  }
  return defined({
    schema_version: ATIF_VERSION,
    session_id: options.sessionId ?? (t.instanceId || undefined),
    agent: defined({
      name: t.producer === "mini-swe-agent" ? "mini-swe-agent" : "claudius",
      version: (t.producer === "mini-swe-agent" ? t.miniVersion : t.claudiusVersion) ?? "unknown",
      model_name: t.modelName || undefined,
      tool_definitions: t.actionFormat === "toolcall" ? [BASH_TOOL] : undefined,
      extra: agentExtra,
    }),
    steps,
    final_metrics: {
      total_prompt_tokens: tok.prompt,
      total_completion_tokens: tok.completion,
      total_cached_tokens: tok.cached,
      total_cost_usd: t.reportedCost ?? t.totals.cost,
      total_steps: steps.length,
      extra: defined({
        model_calls: t.totals.modelCalls,
        format_errors: t.totals.formatErrors,
        api_calls: t.reportedApiCalls,
        reasoning_tokens: tok.reasoning || undefined,
      }),
    },
    extra: rootExtra,
  });
}

/**
 * The steps in order: the prologue's messages, then each model call and any other message inside
 * its turn; the first `copied` messages' steps are marked copied context, as are the copies after a
 * context restart's marker (whose boundary names a step, not a message).
 */
function atifSteps(t: Trajectory, copied: number): AtifStep[] {
  const steps: AtifStep[] = [];
  /** The ATIF step of each message that has one. */
  const stepOf = new Map<number, number>();
  const add = (s: Omit<AtifStep, "step_id">, index: number, copy = false) => {
    stepOf.set(index, steps.length + 1);
    steps.push({
      step_id: steps.length + 1,
      ...s,
      ...(index < copied || copy ? { is_copied_context: true } : {}),
    });
  };
  const other = (m: StoredMessage, index: number) => {
    const role = roleOf(m);
    const x = isPlainObject(m.extra) ? m.extra : {};
    // A restart of the context (compression, reroll): its marker, then copies of the first messages.
    const extra: Record<string, Json> = role === "user" || role === "system" ? {} : { role };
    if (isJsonObject(x.context_management)) extra.context_management = x.context_management;
    add(
      defined({
        source: role === "user" ? "user" as const : "system" as const,
        message: contentText(m.content),
        extra: Object.keys(extra).length ? extra : undefined,
      }),
      index,
      x.is_copied_context === true,
    );
  };
  const prologueEnd = t.steps[0]?.messageIndex ?? t.exit.messageIndex ?? t.messages.length;
  t.messages.slice(0, prologueEnd).forEach((m, i) => i !== t.exit.messageIndex && other(m, i));
  for (const step of t.steps) {
    add(atifAgentStep(step, t), step.messageIndex);
    const used = new Set<number>([step.messageIndex]);
    for (const a of step.actions) if (a.observation) used.add(a.observation.messageIndex);
    if (step.kind === "format_error" && t.format !== "mini-swe-agent-1.1") used.add(step.messageIndex + 1);
    const first = step.messageIndex + 1;
    t.messages.slice(first, step.endIndex).forEach((m, k) => !used.has(first + k) && other(m, first + k));
  }
  for (const s of steps) {
    const cm = s.extra?.context_management;
    if (isJsonObject(cm) && typeof cm.boundary === "number") {
      s.extra = {
        ...s.extra,
        context_management: { ...cm, boundary: stepOf.get(cm.boundary) ?? cm.boundary },
      };
    }
  }
  return steps;
}
