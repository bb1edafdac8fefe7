/**
 * A trajectory read for replaying it (`claudius replay`): its messages, the model calls it records
 * (each reply's raw response and cost, format errors included), the command outputs its
 * observations keep (`extra.raw_output`), its ending, and the config it ran with. A trajectory that
 * cannot be replayed is refused saying why: one that keeps no raw outputs (ProgramBench's runner
 * drops `raw_output`; upstream v1 never kept them), a format error without its response (upstream
 * before 2.4), or input no replay can give (a user's interactive answers, a mechanism's messages).
 *
 * @module
 */
import { errorMessage } from "../../lib/errors.ts";
import { readTrajectory } from "../../core/trajectory.ts";
import type { ExecOutput, Json, Message } from "../../core/types.ts";
import { NOT_EXECUTED } from "../../core/submission.ts";
import { isJson, isJsonObject, isPlainObject, type JsonObject } from "../../lib/json.ts";
import { UsageError } from "../../lib/flags.ts";
import { isV1, type RecordedConfig, recordedConfig } from "../resume/recorded_config.ts";
import type { Registry } from "../../core/episode.ts";

/** One recorded model call. */
export interface RecordedCall {
  /** Index of the message that records it: the reply, or the format-error message. */
  index: number;
  /** The response body as the trajectory keeps it. */
  response: Json;
  /** Dollars. */
  cost: number;
}

/** One recorded command output. */
export interface RecordedOutput {
  /** Index of the observation message. */
  index: number;
  /** Index in {@link Recording.calls} of the reply whose action it observes. */
  call: number;
  /** The tool call it answers (tool-call modes). */
  toolCallId?: string;
  output: ExecOutput;
}

/** A trajectory as a replay reads it. */
export interface Recording {
  path: string;
  /** Every message, the ending included. */
  messages: Message[];
  calls: RecordedCall[];
  outputs: RecordedOutput[];
  /** Index of the ending (`exit`) message; -1 when the run was killed before it recorded one. */
  exitIndex: number;
  /** The ending's status ("" when there is none) and submission. */
  exitStatus: string;
  submission: string;
  /** The config it ran with (claudius's class names), or none when `info` records none. */
  config: RecordedConfig;
  /** The recorded `info.config.environment_type` (the replayed environment's own type). */
  environmentType: string;
  /** Its top-level keys besides the format, messages and info (`instance_id`). */
  top: Record<string, Json>;
  /** Its `info` as recorded (`resumed_from` says what a resumed run went on from). */
  info: Record<string, unknown>;
}

const extraOf = (m: Message): Record<string, unknown> => isPlainObject(m.extra) ? m.extra : {};
/** A message's fields by name, the Responses API's (`type`, `object`, `call_id`) included. */
const fieldsOf = (m: Message): Record<string, unknown> => isPlainObject(m) ? m : {};
/** The keys of an observation's `extra` the model layer writes itself; the others came with the output. */
const OWN_KEYS = new Set(["raw_output", "returncode", "timestamp", "exception_info"]);

function kindOf(m: Message): "call" | "format_error" | "observation" | "exit" | "other" {
  const record = fieldsOf(m);
  const extra = extraOf(m);
  if (m.role === "exit") return "exit";
  if (Array.isArray(extra.actions) && (m.role === "assistant" || record.object === "response")) return "call";
  if (extra.interrupt_type === "FormatError") return "format_error";
  if (m.role === "tool" || record.type === "function_call_output") return "observation";
  if (m.role === "user" && extra.interrupt_type === undefined && "returncode" in extra) return "observation";
  return "other";
}

/** What an observation recorded of its command's output (the values as they are, for a byte-exact replay). */
function outputOf(m: Message, where: string, cannot: (why: string) => UsageError): ExecOutput {
  const extra = extraOf(m);
  if (typeof extra.raw_output !== "string") {
    throw cannot(
      `${where} keeps no raw output (extra.raw_output), so the command's output cannot be played back ` +
        "(ProgramBench's runner drops raw_output from every observation: its trajectories cannot be replayed)",
    );
  }
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extra)) if (!OWN_KEYS.has(k)) rest[k] = v;
  // A value of another type (upstream's None) is carried in `extra`, which keeps its key's place.
  if (typeof extra.returncode !== "number") rest.returncode = extra.returncode;
  if (typeof extra.exception_info !== "string") rest.exception_info = extra.exception_info;
  return {
    output: extra.raw_output,
    returncode: typeof extra.returncode === "number" ? extra.returncode : -1,
    exception_info: typeof extra.exception_info === "string" ? extra.exception_info : "",
    ...(Object.keys(rest).length ? { extra: rest } : {}),
  };
}

/** The response a call recorded: a chat reply's `extra.response`, a Responses API reply itself. */
function responseOf(m: Message, where: string, cannot: (why: string) => UsageError): Json {
  const extra = extraOf(m);
  if (isJson(extra.response)) return extra.response;
  const record: JsonObject = isJsonObject(m) ? m : {};
  if (record.object === "response") {
    const { extra: _, ...response } = record;
    return response;
  }
  throw cannot(
    `${where} records no response (extra.response), so the model's reply cannot be played back` +
      (m.role === "user" ? " (upstream before 2.4 kept none for a format error)" : ""),
  );
}

/** An observation of an action that never ran (the padding upstream gives it). */
function notExecuted(m: Message): boolean {
  const extra = extraOf(m);
  return extra.raw_output === NOT_EXECUTED.output && extra.returncode === NOT_EXECUTED.returncode &&
    extra.exception_info === NOT_EXECUTED.exception_info;
}

/** What a message no replay can give back is. */
function unreplayable(m: Message): string {
  const extra = extraOf(m);
  if (typeof extra.interrupt_type === "string") return `an interruption (${extra.interrupt_type})`;
  if (typeof extra.mechanism === "string") return `a message of the ${extra.mechanism} mechanism`;
  return "a message no model call or command made (a user's input?)";
}

/**
 * Read a trajectory for replaying it.
 * @param path the file (absolute)
 * @param registry the classes whose recorded types are read back
 * @param made messages the replay makes itself besides the loop's (a resumed run's restart note)
 * @throws {UsageError} naming the file (and message) for what cannot be replayed
 */
export async function readRecording(
  path: string,
  registry: Registry,
  made?: (m: Message) => boolean,
): Promise<Recording> {
  const { data } = await readTrajectory(path).catch((e) => {
    if (e instanceof Deno.errors.NotFound) throw new UsageError(`Cannot replay ${path}: no such file`);
    throw new UsageError(`Cannot replay ${path}: ${errorMessage(e)} (not a trajectory?)`);
  });
  const messages = data.messages;
  const info: Record<string, unknown> = isPlainObject(data.info) ? data.info : {};
  const cannot = (why: string) => new UsageError(`Cannot replay ${path}: ${why}`);
  if (isV1(data, messages)) {
    throw cannot("it is an upstream v1 trajectory (mini-swe-agent-1), which keeps no raw command outputs");
  }
  const config = recordedConfig(info, false, path, "replay", registry);
  if (!config.tree) throw cannot("it records no config (info.config), which a replay runs with");
  const recorded = isPlainObject(info.config) ? info.config : {};
  if (isPlainObject(recorded.mechanisms) && Object.keys(recorded.mechanisms).length > 0) {
    throw cannot("it ran with mechanisms (info.config.mechanisms), which a replay does not drive");
  }
  if (messages.length < 2) throw cannot("it has no task messages (the run never reached the model)");
  const calls: RecordedCall[] = [];
  const outputs: RecordedOutput[] = [];
  let exitIndex = -1;
  for (const [i, m] of messages.entries()) {
    if (i < 2) continue;
    const where = `its message ${i + 1} (${m.role ?? fieldsOf(m).type ?? "?"})`;
    const kind = kindOf(m);
    if (exitIndex >= 0) throw cannot(`${where} comes after its ending`);
    if (kind === "exit") exitIndex = i;
    else if (kind === "call" || kind === "format_error") {
      const cost = Number(extraOf(m).cost ?? 0);
      calls.push({
        index: i,
        response: responseOf(m, where, cannot),
        cost: Number.isFinite(cost) ? cost : 0,
      });
    } else if (kind === "observation") {
      if (calls.length === 0) throw cannot(`${where} observes a command before any reply`);
      // Upstream's stand-in for an action a submission or an interruption kept from running: no output.
      if (notExecuted(m)) continue;
      const record = fieldsOf(m);
      const id = record.tool_call_id ?? record.call_id;
      outputs.push({
        index: i,
        call: calls.length - 1,
        ...(typeof id === "string" ? { toolCallId: id } : {}),
        output: outputOf(m, where, cannot),
      });
    } else if (!made?.(m)) throw cannot(`${where} is ${unreplayable(m)}, which a replay cannot give back`);
  }
  const ending = messages[exitIndex];
  const exit = ending ? extraOf(ending) : {};
  const top: Record<string, Json> = {};
  for (const [k, v] of Object.entries(data)) {
    if (!["trajectory_format", "messages", "info"].includes(k) && isJson(v)) top[k] = v;
  }
  return {
    path,
    messages,
    calls,
    outputs,
    exitIndex,
    exitStatus: String(exit.exit_status ?? ""),
    submission: String(exit.submission ?? ""),
    config,
    environmentType: String(recorded.environment_type ?? ""),
    top,
    info,
  };
}
