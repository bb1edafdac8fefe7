/**
 * Writing the trajectory file (`mini-swe-agent-1.1`) durably at every step without rewriting it.
 *
 * The file holds `info` before the messages, as upstream's does: first the members of `info` that do
 * not change during a run (`config`, the versions), then a small room for the others (`model_stats`,
 * `exit_status`, `submission`, ...) padded with spaces and kept inside one page of the file, then
 * the messages. A save rewrites the room in place when those members changed (one write within one
 * page: a kill cannot tear it, and it needs no new space), then appends the new messages: first
 * whatever lies past the old end of the file (so a full disk fails there, and the file is cut back
 * to the old, complete trajectory), then, over the old end of the list (`\n  ]\n}`), all but the
 * list's closing bracket, then that bracket. Until it is overwritten the old list end hides
 * everything after it: a process killed in the middle of a save leaves a torn end, which
 * `readTrajectory` repairs up to the last whole message, `info` whole. The file is complete JSON
 * after every save and after every failed one. When `info`'s fixed members change or its room is
 * outgrown (a long submission), the whole file is written anew beside it and renamed over it.
 *
 * Per step this writes the new messages and the room's few hundred bytes: the file's own size, not
 * the ~5 KB of `info` twice a step it cost when `info` came last.
 *
 * @module
 */
import { errorMessage } from "../lib/errors.ts";
import { ConfigError } from "./errors.ts";
import type { Json } from "./types.ts";
import {
  BRACKET,
  concat,
  encoder,
  equal,
  INDENT,
  indent,
  infoParts,
  layout,
  SPACE,
  succeeds,
  tailText,
  without,
} from "./_trajectory_layout.ts";

/** The format tag existing tools check. */
export const TRAJECTORY_FORMAT = "mini-swe-agent-1.1";

/** The parts of a trajectory besides its messages. */
export interface TrajectoryHead {
  /** Top-level keys written before `info` and `messages` (e.g. `instance_id` in batch runs). */
  top?: Record<string, Json>;
  /** Keys of each message's `extra` left out of the file (ProgramBench's runner drops `raw_output`). */
  omitExtra?: string[];
  /** Told when the trajectory moves to another file: its path can no longer be written (see `save`). */
  onMoved?: (to: string, why: string) => void;
  /** Where a rescue file goes when none can be made beside the path (default: the temporary directory). */
  rescueDir?: string;
}

/** A save that did not reach the disk; the message names the file, what is in it and what to do. */
export class TrajectorySaveError extends Error {
  /**
   * A save failure described by `message`.
   * @param message one line: the file, the cause, the state of the file, what to do
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TrajectorySaveError";
  }
}

/**
 * Writes a trajectory, appending messages and rewriting only `info`'s room. One writer per file; call
 * {@link TrajectoryWriter.open} before the run (it checks the path and writes an empty trajectory),
 * then {@link TrajectoryWriter.save} with the whole (append-only) message list after every step.
 */
export class TrajectoryWriter {
  /** Where the trajectory is (a rescue file once its own path could no longer be written). */
  path: string;
  #file: Deno.FsFile | undefined;
  #written = 0;
  /** Where the messages' end starts (right after the last message). */
  #tailAt = 0;
  /** The end as it is on disk, to put back when a save fails half way. */
  #tail = new Uint8Array(0);
  /** `info`'s fixed members as on disk. */
  #fixed = "";
  /** `info`'s room: where, how large, whether it can be rewritten in place, and what it holds. */
  #room = { at: 0, size: 0, atomic: false, used: new Uint8Array(0) };
  /** Bytes written so far (for the benchmark's write budget). */
  bytesWritten = 0;
  readonly #head: TrajectoryHead;

  /**
   * A writer of the trajectory at `path`; nothing is written before {@link TrajectoryWriter.open}.
   * @param path where the trajectory goes (parent directories are created)
   * @param head extra top-level keys
   */
  constructor(path: string, head: TrajectoryHead = {}) {
    this.path = path;
    this.#head = head;
  }

  /**
   * Check the path, create the file (and its directories) and write a trajectory with no messages,
   * before anything is paid for or run. Only a regular file (or a new one) will do: the file is
   * rewritten in place after every step.
   *
   * @param info the `info` block of the empty trajectory
   * @param opts `exclusive`: fail rather than overwrite an existing file
   * @throws {ConfigError} naming the path when it cannot be written
   */
  async open(info: object, opts: { exclusive?: boolean } = {}): Promise<void> {
    if (this.#file) return;
    const cannot = (why: string, cause?: unknown) =>
      new ConfigError(`Cannot write the trajectory to '${this.path}': ${why}`, { cause });
    if (this.path === "-") {
      throw cannot("'-' (stdout) is not supported: the file is rewritten after every step; give a file path");
    }
    const dir = this.path.replace(/\/[^/]*$/, "");
    if (dir && dir !== this.path) {
      await Deno.mkdir(dir, { recursive: true }).catch((e) => {
        throw cannot(`cannot create its directory: ${e.message}`, e);
      });
    }
    const stat = await Deno.stat(this.path).catch(() => undefined);
    if (stat && !stat.isFile) {
      const what = stat.isDirectory ? "a directory" : "not a regular file (a device, pipe or socket)";
      throw cannot(`it is ${what}; the file is rewritten after every step, so give a file path`);
    }
    try {
      this.#file = await Deno.open(this.path, {
        write: true,
        ...(opts.exclusive ? { createNew: true } : { create: true }),
      });
    } catch (e) {
      throw cannot(errorMessage(e), e);
    }
    // A second writer (another run given the same path) would interleave its saves with ours and leave
    // a file neither can read back: one writer per file, held until close (the kernel frees it on death).
    if (!await this.#file.tryLock(true).catch(() => true)) {
      this.close();
      throw cannot("another process is writing it (a run with the same -o?); give each run its own file");
    }
    if (!opts.exclusive) {
      await this.#file.truncate(0).catch((e) => {
        this.close();
        throw cannot(errorMessage(e), e);
      });
    }
    try {
      this.#writeAt(this.#start(info, 0), 0);
    } catch (e) {
      this.close();
      await Deno.remove(this.path).catch(() => {});
      throw cannot(errorMessage(e), e);
    }
  }

  /** The file's bytes up to the end of its first `n` messages' list (laid out anew), state set. */
  #start(info: object, n: number, messages: readonly object[] = []): Uint8Array {
    const { fixed, changing } = infoParts(info);
    const changingBytes = encoder.encode(changing);
    const top = { trajectory_format: TRAJECTORY_FORMAT, ...this.#head.top };
    const l = layout(top, fixed, changingBytes);
    const body = encoder.encode(this.#messagesText(messages, 0, n));
    const tail = encoder.encode(tailText(n));
    this.#fixed = fixed;
    this.#room = { at: l.roomAt, size: l.room, atomic: l.atomic, used: changingBytes };
    this.#tailAt = l.bytes.length + body.length;
    this.#tail = tail;
    this.#written = n;
    return concat(l.bytes, body, tail);
  }

  #messagesText(messages: readonly object[], from: number, to: number): string {
    let body = "";
    for (let i = from; i < to; i++) {
      const message = without(messages[i]!, this.#head.omitExtra);
      body += (i === 0 ? "\n" : ",\n") + INDENT + indent(JSON.stringify(message, null, 2));
    }
    return body;
  }

  /**
   * Write `bytes` at `at`. Synchronous, like every write of a save: a few kilobytes into the page
   * cache take microseconds, while each asynchronous file call is a hop to a worker thread and back
   * (about 0.1-0.7 ms of the event loop's time apiece, and a batch's episodes share that loop).
   */
  #writeAt(bytes: Uint8Array, at: number, file = this.#file!): void {
    file.seekSync(at, Deno.SeekMode.Start);
    let off = 0;
    while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    this.bytesWritten += bytes.length;
  }

  /**
   * Rewrite `info`'s room and append the messages not yet written. Messages already written must not
   * have changed (the list is append-only). When the write fails (a full disk), the file keeps the
   * previous save's messages, complete JSON.
   *
   * @throws {TrajectorySaveError} naming the file, what it still holds and what to do
   */
  async save(messages: readonly object[], info: object): Promise<void> {
    const replaced = this.#file !== undefined && this.#replaced(this.#file);
    if (replaced) {
      // A command removed the file or its directory (or put another file there): our writes would go
      // to an unlinked inode. Write it all again at its path, as upstream's whole-file saves do.
      this.close();
    }
    if (!this.#file) {
      await (replaced ? this.open(info).catch((e) => this.#rescue(info, e)) : this.open(info));
      return this.#append(messages);
    }
    const { fixed, changing } = infoParts(info);
    const changingBytes = encoder.encode(changing);
    const room = this.#room;
    const same = equal(changingBytes, room.used);
    if (fixed !== this.#fixed || (!same && (!room.atomic || changingBytes.length > room.size))) {
      return this.#rewrite(messages, info);
    }
    if (!same) {
      // Over what the room held before, spaces after the new members; one write, inside one page.
      const bytes = new Uint8Array(Math.max(changingBytes.length, room.used.length)).fill(SPACE);
      bytes.set(changingBytes);
      try {
        this.#writeAt(bytes, room.at);
      } catch (e) {
        throw this.#saveError(e, false);
      }
      room.used = changingBytes;
    }
    this.#append(messages);
  }

  /** Append the messages not written yet (see the module doc for the order of the writes). */
  #append(messages: readonly object[]): void {
    if (messages.length === this.#written) return;
    const bodyBytes = encoder.encode(this.#messagesText(messages, this.#written, messages.length));
    const tail = encoder.encode(tailText(messages.length));
    const bytes = concat(bodyBytes, tail);
    const at = this.#tailAt;
    const oldEnd = at + this.#tail.length;
    const inPlace = oldEnd - at;
    const file = this.#file!;
    // 1. What lies past the old end: the only write that needs new space. On failure the file is
    //    cut back to the old end, which is the previous save, untouched.
    if (bytes.length > inPlace) {
      try {
        this.#writeAt(bytes.subarray(inPlace), oldEnd);
      } catch (e) {
        throw this.#saveError(e, succeeds(() => file.truncateSync(oldEnd)));
      }
    }
    // 2. Over the old end, in space the file already holds: first all but its lead (`\n  ]`, up to
    //    the list's closing bracket), then the lead. Until the lead is overwritten the old list end
    //    hides everything after it: a kill or a short write anywhere reads as the previous save,
    //    never as a message glued from new and stale bytes. Then drop what is left of the old end.
    try {
      const lead = Math.min(this.#tail.indexOf(BRACKET) + 1, inPlace);
      if (inPlace > lead) this.#writeAt(bytes.subarray(lead, inPlace), at + lead);
      this.#writeAt(bytes.subarray(0, lead), at);
      if (bytes.length < inPlace) file.truncateSync(at + bytes.length);
    } catch (e) {
      const tail = this.#tail;
      throw this.#saveError(e, succeeds(() => (this.#writeAt(tail, at), file.truncateSync(oldEnd))));
    }
    this.#tailAt = at + bodyBytes.length;
    this.#tail = tail;
    this.#written = messages.length;
  }

  /**
   * The whole file anew (its fixed `info` changed, or its room is too small): written beside it and
   * renamed over it, so that a failure or a kill leaves the previous save whole.
   */
  #rewrite(messages: readonly object[], info: object): void {
    const state = {
      fixed: this.#fixed,
      room: this.#room,
      tailAt: this.#tailAt,
      tail: this.#tail,
      n: this.#written,
    };
    const bytes = this.#start(info, messages.length, messages);
    const tmp = `${this.path}.${Deno.pid}.tmp`;
    let file: Deno.FsFile | undefined;
    try {
      file = Deno.openSync(tmp, { write: true, create: true, truncate: true });
      file.lockSync(true);
      this.#writeAt(bytes, 0, file);
      Deno.renameSync(tmp, this.path);
    } catch (e) {
      file?.close();
      succeeds(() => Deno.removeSync(tmp));
      [this.#fixed, this.#room, this.#tailAt, this.#tail, this.#written] = [
        state.fixed,
        state.room,
        state.tailAt,
        state.tail,
        state.n,
      ];
      throw this.#saveError(e, true);
    }
    this.#file?.close();
    this.#file = file;
  }

  /**
   * The path cannot be written any more (a pipe put in its place, its directory made read-only): the
   * run goes on in a file beside it, else in `rescueDir`, else in the temporary directory, and `onMoved`
   * says where. Every paid step stays on disk.
   * @throws the error of the path when no rescue file can be made either
   */
  async #rescue(info: object, cause: unknown): Promise<void> {
    const base = this.path.slice(this.path.lastIndexOf("/") + 1).replace(/(\.traj)?\.json$/, "");
    const dir = this.path.includes("/") ? this.path.slice(0, this.path.lastIndexOf("/")) : ".";
    const name = `${base}.rescued-${Deno.pid}-${Date.now().toString(36)}.traj.json`;
    const why = cause instanceof Error ? cause.message : String(cause);
    const inTemp = () => Deno.makeTempFile({ prefix: "claudius-", suffix: `-${name}` });
    const rescueDir = this.#head.rescueDir;
    const candidates: [() => Promise<string>, boolean][] = [
      [() => Promise.resolve(`${dir}/${name}`), true],
      ...(rescueDir
        ? [[() => Promise.resolve(`${rescueDir}/${name}`), true] as [() => Promise<string>, boolean]]
        : []),
      [inTemp, false],
    ];
    for (const [candidate, exclusive] of candidates) {
      const previous = this.path;
      try {
        this.path = await candidate();
        await this.open(info, { exclusive });
        this.#head.onMoved?.(this.path, why);
        return;
      } catch {
        this.path = previous;
      }
    }
    throw cause;
  }

  /** The path no longer names the open file. */
  #replaced(file: Deno.FsFile): boolean {
    let atPath: Deno.FileInfo;
    try {
      atPath = Deno.statSync(this.path);
    } catch {
      return true;
    }
    const open = file.statSync();
    return atPath.ino !== open.ino || atPath.dev !== open.dev;
  }

  #saveError(cause: unknown, intact: boolean): TrajectorySaveError {
    const why = cause instanceof Error ? cause.message : String(cause);
    const state = intact
      ? `it still holds the run up to the previous step (${this.#written} messages) as valid JSON`
      : `its last step may be torn (claudius's readTrajectory() recovers every whole message)`;
    return new TrajectorySaveError(
      `Cannot save trajectory ${this.path}: ${why}; ${state}; free space (or fix the cause) and rerun`,
      { cause },
    );
  }

  /** Close the file (the content is already complete). */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
  }
}
