/**
 * The trajectory file (`mini-swe-agent-1.1`), kept durable at every step without rewriting it:
 * messages are only ever appended, and the small tail (`], "info": {...}}`) is rewritten after
 * them. The file is complete JSON after every save; a process killed in the middle of a save leaves
 * at worst a torn tail, which {@link readTrajectory} repairs up to the last whole message.
 *
 * @module
 */
import type { Json, Message } from "./types.ts";

/** The format tag existing tools check. */
export const TRAJECTORY_FORMAT = "mini-swe-agent-1.1";

/** The parts of a trajectory besides its messages. */
export interface TrajectoryHead {
  /** Top-level keys written before `messages` (e.g. `instance_id` in batch runs). */
  top?: Record<string, Json>;
}

const INDENT = "    ";
const indent = (json: string) => json.replaceAll("\n", "\n" + INDENT);

/**
 * Appends messages to a trajectory file and rewrites only its tail. One writer per file; call
 * {@link TrajectoryWriter.save} with the whole (append-only) message list after every step.
 */
export class TrajectoryWriter {
  readonly path: string;
  #file: Deno.FsFile | undefined;
  #written = 0;
  #tailAt = 0;
  /** Bytes written so far (for the benchmark's write budget). */
  bytesWritten = 0;
  readonly #head: TrajectoryHead;

  /**
   * @param path where the trajectory goes (parent directories are created)
   * @param head extra top-level keys
   */
  constructor(path: string, head: TrajectoryHead = {}) {
    this.path = path;
    this.#head = head;
  }

  async #open(): Promise<Deno.FsFile> {
    if (this.#file) return this.#file;
    const dir = this.path.replace(/\/[^/]*$/, "");
    if (dir && dir !== this.path) await Deno.mkdir(dir, { recursive: true });
    this.#file = await Deno.open(this.path, { write: true, create: true, truncate: true });
    const top = { trajectory_format: TRAJECTORY_FORMAT, ...this.#head.top };
    const head = "{\n" +
      Object.entries(top).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`)
        .join("") +
      '  "messages": [';
    await this.#write(head, 0);
    this.#tailAt = head.length;
    return this.#file;
  }

  async #write(text: string, at: number): Promise<number> {
    const bytes = new TextEncoder().encode(text);
    const file = this.#file!;
    await file.seek(at, Deno.SeekMode.Start);
    let off = 0;
    while (off < bytes.length) off += await file.write(bytes.subarray(off));
    this.bytesWritten += bytes.length;
    return bytes.length;
  }

  /**
   * Append the messages not yet written and rewrite the tail with `info`. Messages already written
   * must not have changed (the list is append-only).
   */
  async save(messages: readonly object[], info: object): Promise<void> {
    await this.#open();
    let body = "";
    for (let i = this.#written; i < messages.length; i++) {
      body += (i === 0 ? "\n" : ",\n") + INDENT + indent(JSON.stringify(messages[i], null, 2));
    }
    const tail = (messages.length ? "\n  ]" : "]") + ',\n  "info": ' +
      JSON.stringify(info, null, 2).replaceAll("\n", "\n  ") +
      "\n}\n";
    const written = await this.#write(body + tail, this.#tailAt);
    await this.#file!.truncate(this.#tailAt + written);
    this.#tailAt += written - new TextEncoder().encode(tail).length; // the body's bytes, not re-encoded
    this.#written = messages.length;
  }

  /** Close the file (the content is already complete). */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
  }
}

/** A trajectory as read back: complete, or repaired from a torn tail. */
export interface ReadTrajectory {
  data: Record<string, unknown> & { messages: Message[]; info: Record<string, unknown> };
  /** True when the file was torn and was repaired up to its last whole message. */
  repaired: boolean;
}

/**
 * Read a trajectory; if the process that wrote it died mid-save, recover every whole message.
 * @throws {SyntaxError} when nothing can be recovered
 */
export async function readTrajectory(path: string): Promise<ReadTrajectory> {
  const text = await Deno.readTextFile(path);
  try {
    return { data: JSON.parse(text), repaired: false };
  } catch {
    // Each message ends with a line that is exactly "    }" (JSON strings hold no raw newlines).
    const end = text.lastIndexOf("\n    }");
    const start = text.indexOf('"messages": [');
    if (start < 0) throw new SyntaxError(`Cannot recover trajectory ${path}: no messages array`);
    const body = end > start ? text.slice(0, end + 6) : text.slice(0, start + 13);
    const data = JSON.parse(body + "\n  ]\n}");
    const info = /\n {2}"info": (\{[\s\S]*\})\n\}\n?$/.exec(text.slice(end));
    let parsedInfo: Record<string, unknown> = { exit_status: "", submission: "" };
    try {
      if (info) parsedInfo = JSON.parse(info[1]!);
    } catch { /* torn info: keep the minimal one */ }
    return { data: { ...data, info: parsedInfo }, repaired: true };
  }
}
