/**
 * The trajectory file (`mini-swe-agent-1.1`): written by {@link TrajectoryWriter} (see
 * `trajectory_writer.ts`: `info` first, then messages appended, durable at every step), read back by
 * {@link readTrajectory}, which repairs a file torn by a kill in the middle of a save.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { parseTrajectoryText } from "./trajectory_repair.ts";
import { isPlainObject } from "../lib/json.ts";

export {
  TRAJECTORY_FORMAT,
  type TrajectoryHead,
  TrajectorySaveError,
  TrajectoryWriter,
} from "./trajectory_writer.ts";

/** A trajectory as read back: complete, or repaired from a torn tail. */
export interface ReadTrajectory {
  /** The parsed file: its messages and its `info` block, with every other top-level key. */
  data: Record<string, unknown> & { messages: Message[]; info: Record<string, unknown> };
  /** True when the file was torn and was repaired up to its last whole message. */
  repaired: boolean;
}

/**
 * Read a trajectory; if the process that wrote it died mid-save, recover every whole message.
 * Upstream's legacy format (a bare list of messages) reads as `{messages, info: {}}`-like data.
 * @throws {SyntaxError} when nothing can be recovered
 */
export async function readTrajectory(path: string): Promise<ReadTrajectory> {
  // A pipe (a model can put one at a trajectory's path) or a device would block the read for ever.
  if (!(await Deno.stat(path)).isFile) {
    throw new TypeError(`Cannot read trajectory ${path}: it is not a regular file`);
  }
  const { data, repaired } = parseTrajectoryText(await Deno.readTextFile(path), path);
  const record = Array.isArray(data) ? { messages: data } : data;
  if (!isPlainObject(record)) throw new SyntaxError(`Cannot read trajectory ${path}: no messages`);
  const info = isPlainObject(record.info) ? record.info : { exit_status: "", submission: "" };
  if (!Array.isArray(record.messages)) throw new SyntaxError(`Cannot read trajectory ${path}: no messages`);
  return { data: { ...record, messages: record.messages as Message[], info }, repaired };
}
