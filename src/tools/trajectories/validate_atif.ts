/**
 * A validator of ATIF v1.7 documents enforcing the reference validator's rules: unknown keys are
 * rejected at every level (custom data belongs in `extra`, which is free-form), null fields are
 * omitted rather than null, step ids run 1, 2, 3, ... in order, `source` is `system`, `user` or
 * `agent`, only agent steps carry `model_name`, `reasoning_content`, `tool_calls` and `metrics`, and
 * every observation's `source_call_id` names a tool call of the same step; plus the types of every
 * field. Subagent trajectories are validated the same way.
 *
 * @module
 */
import { ATIF_VERSION } from "./to_atif.ts";
import { isPlainObject } from "../../lib/json.ts";

type Check = (value: unknown, path: string, problems: string[]) => void;

const string: Check = (v, p, out) => {
  if (typeof v !== "string") out.push(`${p}: must be a string`);
};
const count: Check = (v, p, out) => {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) out.push(`${p}: must be a whole number >= 0`);
};
const amount: Check = (v, p, out) => {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) out.push(`${p}: must be a number >= 0`);
};
const bool: Check = (v, p, out) => {
  if (typeof v !== "boolean") out.push(`${p}: must be true or false`);
};
const extra: Check = (v, p, out) => {
  if (!isPlainObject(v)) out.push(`${p}: must be an object`);
};
const array = (item: Check): Check => (v, p, out) => {
  if (!Array.isArray(v)) out.push(`${p}: must be a list`);
  else v.forEach((x, i) => item(x, `${p}[${i}]`, out));
};
const timestamp: Check = (v, p, out) => {
  if (
    typeof v !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$/.test(v) ||
    isNaN(Date.parse(v))
  ) {
    out.push(`${p}: must be an ISO 8601 timestamp`);
  }
};

/** An object with exactly these keys (`required` ones must be present); none may be null. */
function object(fields: Record<string, Check>, required: string[] = []): Check {
  return (v, p, out) => {
    if (!isPlainObject(v)) {
      out.push(`${p}: must be an object`);
      return;
    }
    for (const k of required) if (!(k in v)) out.push(`${p}: missing required key '${k}'`);
    for (const [k, x] of Object.entries(v)) {
      const at = `${p}.${k}`;
      if (!(k in fields)) out.push(`${at}: unknown key (custom data goes in 'extra')`);
      else if (x === null) out.push(`${at}: null (omit a field that has no value)`);
      else fields[k]!(x, at, out);
    }
  };
}

const toolCall = object({ tool_call_id: string, function_name: string, arguments: extra, extra }, [
  "tool_call_id",
  "function_name",
  "arguments",
]);
const result = object({ source_call_id: string, content: string, extra });
const metrics = object({
  prompt_tokens: count,
  completion_tokens: count,
  cached_tokens: count,
  cost_usd: amount,
  extra,
});
const step = object({
  step_id: count,
  source: (v, p, out) => {
    if (v !== "system" && v !== "user" && v !== "agent") out.push(`${p}: must be system, user or agent`);
  },
  message: string,
  timestamp,
  model_name: string,
  reasoning_content: string,
  tool_calls: array(toolCall),
  observation: object({ results: array(result) }, ["results"]),
  metrics,
  llm_call_count: count,
  is_copied_context: bool,
  extra,
}, ["step_id", "source", "message"]);
const agent = object({
  name: string,
  version: string,
  model_name: string,
  tool_definitions: array(extra),
  extra,
}, [
  "name",
  "version",
]);
const finalMetrics = object({
  total_prompt_tokens: count,
  total_completion_tokens: count,
  total_cached_tokens: count,
  total_cost_usd: amount,
  total_steps: count,
  extra,
});

const AGENT_ONLY = ["model_name", "reasoning_content", "tool_calls", "metrics"];

function trajectory(v: unknown, p: string, out: string[]): void {
  object({
    schema_version: (x, at, o) => {
      if (x !== ATIF_VERSION) o.push(`${at}: must be '${ATIF_VERSION}'`);
    },
    session_id: string,
    trajectory_id: string,
    agent,
    steps: array(step),
    notes: string,
    final_metrics: finalMetrics,
    continued_trajectory_ref: string,
    subagent_trajectories: array(trajectory),
    extra,
  }, ["schema_version", "agent", "steps"])(v, p, out);
  if (!isPlainObject(v) || !Array.isArray(v.steps)) return;
  if (v.steps.length === 0) out.push(`${p}.steps: must hold at least one step`);
  v.steps.forEach((s, i) => {
    if (!isPlainObject(s)) return;
    const at = `${p}.steps[${i}]`;
    if (s.step_id !== i + 1) out.push(`${at}.step_id: must be ${i + 1} (ids run 1, 2, 3, ... in order)`);
    if (s.source !== "agent") {
      for (const k of AGENT_ONLY) if (k in s) out.push(`${at}.${k}: only agent steps may carry it`);
    }
    const ids = Array.isArray(s.tool_calls)
      ? s.tool_calls.map((c) => (isPlainObject(c) ? c.tool_call_id : undefined))
      : [];
    if (new Set(ids).size !== ids.length) out.push(`${at}.tool_calls: tool_call_id values must be unique`);
    const results = isPlainObject(s.observation) && Array.isArray(s.observation.results)
      ? s.observation.results
      : [];
    results.forEach((r, k) => {
      if (isPlainObject(r) && r.source_call_id !== undefined && !ids.includes(r.source_call_id)) {
        out.push(
          `${at}.observation.results[${k}].source_call_id: '${r.source_call_id}' names no tool call of this step`,
        );
      }
    });
  });
}

/**
 * Check an ATIF v1.7 document.
 *
 * @example
 * ```ts
 * import { validateAtif } from "./validate_atif.ts";

 * validateAtif({ schema_version: "ATIF-v1.7", agent: { name: "a", version: "1" }, steps: [] });
 * // ["$.steps: must hold at least one step"]
 * ```
 * @param data the parsed document
 * @returns the problems found, each naming where (`$.steps[3].tool_calls[0].arguments: ...`); empty when valid
 */
export function validateAtif(data: unknown): string[] {
  const problems: string[] = [];
  trajectory(data, "$", problems);
  return problems;
}
