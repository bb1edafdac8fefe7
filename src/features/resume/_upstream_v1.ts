/**
 * Trajectories of upstream v1 (`trajectory_format: mini-swe-agent-1`) as a resume reads them. v1's
 * agent read every reply as text (one fenced block, its `agent.action_regex`), rendered observations
 * with `agent.action_observation_template`, kept each message's `timestamp` beside its content, and
 * ended a run with a user message (the exit status in `info.exit_status`). A resumed v1 run goes on
 * in claudius's text mode with the same regex and templates.
 *
 * @module
 */
import type { ConfigTree } from "../../core/config/load.ts";
import type { Message } from "../../core/types.ts";
import { isPlainObject } from "../../lib/json.ts";

/** v1's defaults of the agent keys that moved to the model in v2. */
const V1_DEFAULTS = {
  action_regex: "```bash\\s*\\n(.*?)\\n```",
  action_observation_template: "Observation: {{output}}",
  format_error_template: "Please always provide EXACTLY ONE action in triple backticks.",
};

/** Whether a trajectory file is upstream v1's (tagged so, or untagged with no message carrying `extra` actions). */
export function isV1(data: Record<string, unknown>, messages: readonly Message[]): boolean {
  if (data.trajectory_format === "mini-swe-agent-1") return true;
  if (data.trajectory_format !== undefined) return false;
  return isPlainObject(data.info) && typeof data.info.mini_version === "string" &&
    data.info.claudius_version === undefined &&
    !messages.some((m) => isPlainObject(m.extra) && Array.isArray(m.extra.actions));
}

/**
 * v1's messages as claudius keeps them: the `timestamp` beside the content moves into `extra` (it is
 * metadata; left there it would be sent to the model).
 */
export function v1Messages(messages: readonly Message[]): Message[] {
  return messages.map((m) => {
    const record = m as unknown as Record<string, unknown>;
    if (!("timestamp" in record)) return m;
    const { timestamp, ...rest } = record;
    const extra = isPlainObject(rest.extra) ? rest.extra : {};
    return { ...rest, extra: { timestamp, ...extra } } as unknown as Message;
  });
}

/**
 * The index of v1's closing message (a user message after the last reply, when `info.exit_status`
 * says the run ended), or -1.
 */
export function v1Exit(messages: readonly Message[], info: Record<string, unknown>): number {
  const status = typeof info.exit_status === "string" ? info.exit_status : "";
  return status && messages.length > 2 && messages.at(-1)?.role === "user" ? messages.length - 1 : -1;
}

/**
 * v1's recorded agent and model sections as v2 keys: the action regex and the observation and
 * format-error templates move from `agent` to `model` (v1's defaults where the run used them);
 * `timeout_template` is dropped (claudius shows a timeout through the observation template).
 * @returns the two sections and one note saying what changed
 */
export function v1Sections(
  agent: ConfigTree,
  model: ConfigTree,
): { agent: ConfigTree; model: ConfigTree; note: string } {
  const {
    action_regex = V1_DEFAULTS.action_regex,
    action_observation_template = V1_DEFAULTS.action_observation_template,
    format_error_template = V1_DEFAULTS.format_error_template,
    timeout_template: _,
    ...rest
  } = agent;
  return {
    agent: rest,
    model: {
      ...model,
      action_regex,
      observation_template: action_observation_template,
      format_error_template,
    },
    note:
      "note: an upstream v1 trajectory: going on in text mode with its agent.action_regex and templates " +
      "(now model.action_regex, model.observation_template, model.format_error_template); a timeout shows " +
      "through the observation template, v1's agent.timeout_template is not used",
  };
}
