/**
 * What a trajectory says for resuming it: the config it ran with (as a config source the usual `-c`
 * specs and flags go on top of), the messages to go on from, the counters, and whether its last step
 * was cut short. The predecessor file is only read.
 *
 * @module
 */
import type { Prompts } from "../../core/config/provenance.ts";
import type { ConfigSource } from "../../core/config/load.ts";
import { isV1, v1Exit, v1Messages } from "./_upstream_v1.ts";
import { type RecordedConfig, recordedConfig } from "./recorded_config.ts";
import type { Registry } from "../../core/episode.ts";
import type { AssistantMessage, Json, Message } from "../../core/types.ts";
import type { ResumeLink } from "../../core/trajectory_info.ts";

export type { ResumeLink };
import { UsageError } from "../../lib/flags.ts";
import { type ReadTrajectory, readTrajectory } from "../../core/trajectory.ts";
import { errorMessage } from "../../lib/errors.ts";
import { isJson, isPlainObject } from "../../lib/json.ts";

/** The state a resumed run starts from. */
export interface ResumeState {
  /** The history, without the exit message; a step cut short ends with its assistant message. */
  messages: Message[];
  /** The assistant message whose actions were never (all) observed: they run first. */
  pending?: AssistantMessage;
  nCalls: number;
  cost: number;
  /** Format errors in a row at the end of the history. */
  formatErrors: number;
  /** How long the predecessor ran (its first to its last timestamp), milliseconds. */
  elapsedMs: number;
  /** The environment is a new one (a container): the model is told so. */
  restarted: boolean;
  /** Re-run the recorded commands in the new environment before going on. */
  replay: boolean;
  link: ResumeLink;
  /** The predecessor's `info.config`, as recorded. */
  recordedConfig?: Record<string, unknown>;
}

/** A trajectory read for resuming. */
export interface Predecessor {
  /**
   * The config it ran with, as the first config source; undefined when its `info` is lost (a file
   * torn by a process killed mid-save keeps its whole messages only).
   */
  source?: ConfigSource;
  /** Recorded types that name no claudius class (see {@link RecordedConfig.unknownClasses}). */
  unknownClasses: RecordedConfig["unknownClasses"];
  /** Lines to show before the run (how an upstream v1 config was carried over). */
  notes: string[];
  state: Omit<ResumeState, "restarted" | "replay">;
  /** Its top-level keys besides the format, messages and info (`instance_id`). */
  top: Record<string, Json>;
  /** Where its prompts came from (its `info.prompts`), when it says. */
  prompts?: Prompts;
}

const isObservation = (m: Message) =>
  m.role === "tool" || (m.role === "user" && isPlainObject(m.extra) && "raw_output" in m.extra);

/**
 * Read a trajectory for resuming it.
 * @param path the trajectory (absolute)
 * @param registry the classes whose recorded types are read back
 * @throws {UsageError} the file is missing or holds nothing to continue (a submitted run, no messages)
 * @throws {SyntaxError} nothing can be recovered from it
 */
export async function readPredecessor(path: string, registry: Registry): Promise<Predecessor> {
  const { data, repaired } = await readFile(path);
  if (await beingWritten(path)) {
    throw new UsageError(
      `Cannot resume ${path}: a running claudius is still writing it or resuming it (its run goes on); ` +
        "let that run end first",
    );
  }
  const info: Record<string, unknown> = isPlainObject(data.info) ? data.info : {};
  const v1 = isV1(data, data.messages);
  const { messages, status } = historyOf(path, v1 ? v1Messages(data.messages) : data.messages, info, v1);
  const { tree, unknownClasses, notes } = recordedConfig(info, v1, path, "resume", registry);
  const stats = isPlainObject(info.model_stats) ? info.model_stats : {};
  const counted = countCalls(messages);
  const nCalls = typeof stats.api_calls === "number" ? stats.api_calls : counted.calls;
  const cost = typeof stats.instance_cost === "number" ? stats.instance_cost : counted.cost;
  const top: Record<string, Json> = {};
  for (const [k, v] of Object.entries(data)) {
    if (!["trajectory_format", "messages", "info"].includes(k) && isJson(v)) top[k] = v;
  }
  const link: ResumeLink = {
    trajectory: path,
    exit_status: status,
    messages: messages.length,
    api_calls: nCalls,
    instance_cost: cost,
    repaired,
    ...(isPlainObject(info.resumed_from) ? { resumed_from: info.resumed_from as unknown as ResumeLink } : {}),
  };
  const state = stateAt(messages, link);
  return {
    ...(tree ? { source: { spec: path, path, data: tree } } : {}),
    unknownClasses,
    notes,
    state: { ...state, ...(isPlainObject(info.config) ? { recordedConfig: info.config } : {}) },
    top,
    ...(isPlainObject(info.prompts) && typeof info.prompts.source === "string"
      ? { prompts: info.prompts as Prompts }
      : {}),
  };
}

/**
 * The state to go on from after `messages` (a trajectory's history, its exit message left out), with
 * the counters `link` records: a last step cut short is run again (its observations dropped).
 */
export function stateAt(messages: Message[], link: ResumeLink): Omit<ResumeState, "restarted" | "replay"> {
  const pending = pendingStep(messages);
  const kept = pending ? messages.slice(0, messages.indexOf(pending) + 1) : messages;
  return {
    messages: kept,
    ...(pending ? { pending } : {}),
    nCalls: link.api_calls,
    cost: link.instance_cost,
    formatErrors: pending ? 0 : trailingFormatErrors(messages),
    elapsedMs: recordedSpan(messages),
    link: { ...link, kept: kept.length },
  };
}

/** Read the file, its failures said as why it cannot be resumed. */
async function readFile(path: string): Promise<ReadTrajectory> {
  try {
    // A pipe or a device would block the read, or never end it.
    const stat = await Deno.stat(path);
    if (!stat.isFile && !stat.isDirectory) {
      throw new UsageError(`Cannot resume ${path}: it is not a regular file (a pipe, device or socket)`);
    }
    return await readTrajectory(path);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if (e instanceof Deno.errors.NotFound) throw new UsageError(`Cannot resume ${path}: no such file`);
    if (e instanceof Deno.errors.IsADirectory) {
      throw new UsageError(`Cannot resume ${path}: it is a directory`);
    }
    const why = errorMessage(e).replace(/^Cannot (read|recover) trajectory \S+: /, "");
    throw new UsageError(`Cannot resume ${path}: ${why} (not a trajectory?)`);
  }
}

/**
 * The history to go on from (the exit message dropped) and the status it ended with.
 * @throws {UsageError} a message without a role, a submitted run, a run that never reached the model
 */
function historyOf(
  path: string,
  all: Message[],
  info: Record<string, unknown>,
  v1: boolean,
): { messages: Message[]; status: string } {
  const stray = all.findIndex((m) => !isPlainObject(m) || typeof m.role !== "string");
  if (stray >= 0) {
    throw new UsageError(`Cannot resume ${path}: its message ${stray + 1} has no role (not a trajectory?)`);
  }
  // v1 ended a run with a user message and kept the status in info.
  const exitAt = v1 ? v1Exit(all, info) : all.at(-1)?.role === "exit" ? all.length - 1 : -1;
  const status = exitAt < 0 ? "" : String((v1 ? info.exit_status : all[exitAt]?.extra?.exit_status) ?? "");
  if (status === "Submitted") {
    throw new UsageError(`Cannot resume ${path}: it ended with Submitted, there is nothing to continue`);
  }
  const messages = exitAt >= 0 ? all.slice(0, exitAt) : all.slice();
  if (messages.length < 2) {
    throw new UsageError(
      `Cannot resume ${path}: it has no task messages (the run never reached the model): run it again instead`,
    );
  }
  return { messages, status };
}

/** A live run holds an exclusive lock on its trajectory until it ends (see TrajectoryWriter.open). */
/**
 * Hold the predecessor for the whole resumed run (an exclusive lock on its file), so that a second
 * `claudius resume` of it, or of it while its own run still writes it, is refused at once.
 * @returns the file to close when the run ends
 * @throws {UsageError} when another process holds it
 */
export async function holdPredecessor(path: string): Promise<Deno.FsFile> {
  const file = await Deno.open(path, { read: true });
  if (!(await file.tryLock(true).catch(() => false))) {
    file.close();
    throw new UsageError(
      `Cannot resume ${path}: a running claudius is still writing it or resuming it (its run goes on); ` +
        "let that run end first",
    );
  }
  return file;
}

async function beingWritten(path: string): Promise<boolean> {
  const file = await Deno.open(path, { read: true }).catch(() => undefined);
  if (file === undefined) return false;
  try {
    return !(await file.tryLock(false).catch(() => true));
  } finally {
    file.close();
  }
}

/**
 * The last assistant message when its actions were not all observed (the process stopped during
 * the step: a signal while a command ran, or a save torn between observations).
 */
function pendingStep(messages: Message[]): AssistantMessage | undefined {
  let i = messages.length - 1;
  let observed = 0;
  while (i >= 0 && isObservation(messages[i]!)) {
    i--;
    observed++;
  }
  const m = messages[i];
  if (m?.role !== "assistant" || !Array.isArray(m.extra?.actions)) return undefined;
  return observed < m.extra.actions.length ? m : undefined;
}

/** Format errors in a row at the end (each a user message with `interrupt_type: FormatError`). */
function trailingFormatErrors(messages: Message[]): number {
  let n = 0;
  for (let i = messages.length - 1; i >= 0; i--, n++) {
    const m = messages[i]!;
    if (m.role !== "user" || !isPlainObject(m.extra) || m.extra.interrupt_type !== "FormatError") break;
  }
  return n;
}

/** Calls and cost from the messages (each assistant reply and each format error is one billed call). */
function countCalls(messages: Message[]): { calls: number; cost: number } {
  let calls = 0;
  let cost = 0;
  for (const m of messages) {
    const formatError = m.role === "user" && isPlainObject(m.extra) &&
      m.extra.interrupt_type === "FormatError";
    if (m.role !== "assistant" && !formatError) continue;
    calls++;
    cost += Number(isPlainObject(m.extra) ? m.extra.cost ?? 0 : 0) || 0;
  }
  return { calls, cost };
}

/** Milliseconds from the first to the last message timestamp (unix seconds in `extra.timestamp`). */
function recordedSpan(messages: Message[]): number {
  // A loop, not Math.max(...times): a long trajectory has more timestamps than a call takes arguments.
  let first = Infinity;
  let last = -Infinity;
  for (const m of messages) {
    const t = Number(isPlainObject(m.extra) ? m.extra.timestamp : undefined);
    if (!Number.isFinite(t) || t <= 0) continue;
    if (t < first) first = t;
    if (t > last) last = t;
  }
  return last >= first ? Math.round((last - first) * 1000) : 0;
}
