/**
 * The trajectory file (`mini-swe-agent-1.1`): written by {@link TrajectoryWriter} (see
 * `trajectory_writer.ts`: `info` first, then messages appended, durable at every step), read back by
 * {@link readTrajectory}, which repairs a file torn by a kill in the middle of a save
 * ({@link parseTrajectoryText}: one validating pass finds where the messages, and the top-level keys,
 * end, and the text is closed after the last whole one).
 *
 * @module
 */
import type { Message } from "./types.ts";
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

/**
 * Parse the text of a trajectory (any layout: claudius's, upstream's, the legacy list, compact).
 * When the text is torn (a writer killed mid-save), keep every whole message and every top-level
 * key that was complete; a torn `info` is dropped.
 *
 * @example
 * ```ts
 * import { parseTrajectoryText } from "./trajectory.ts";
 * parseTrajectoryText('{"messages": [{"role": "user"}, {"ro', "t.json");
 * // { data: { messages: [{ role: "user" }] }, repaired: true }
 * ```
 * @param text the file's text
 * @param source named in errors
 * @returns the parsed value (an object, or an array for the legacy list) and whether it was repaired
 * @throws {SyntaxError} when the text has no messages array to recover
 */
export function parseTrajectoryText(text: string, source: string): { data: unknown; repaired: boolean } {
  try {
    return { data: JSON.parse(text), repaired: false };
  } catch (error) {
    const scan = scanTorn(text);
    if (scan.rootEnd > 0) return { data: JSON.parse(text.slice(0, scan.rootEnd)), repaired: true };
    if (scan.messagesStart < 0) {
      const why = text.trim() ? "no messages array" : "the file is empty";
      throw new SyntaxError(`Cannot recover trajectory ${source}: ${why}`, { cause: error });
    }
    const closer = scan.rootIsArray ? "]" : "]}";
    const candidates = [scan.messagesStart + 1, ...scan.messageEnds].map((end) =>
      text.slice(0, end) + closer
    );
    // Whole top-level keys after the messages (claudius writes `info` last).
    const lastMember = scan.memberEnds.at(-1) ?? -1;
    if (scan.messagesEnd > 0 && lastMember >= scan.messagesEnd) {
      candidates.push(text.slice(0, lastMember) + "}");
    }
    // The last candidate that parses: whatever follows a tear cannot reach back before it.
    for (const candidate of candidates.reverse()) {
      try {
        return { data: JSON.parse(candidate), repaired: true };
      } catch { /* an earlier boundary */ }
    }
    throw new SyntaxError(`Cannot recover trajectory ${source}: no whole message`, { cause: error });
  }
}

/** Where a torn JSON text's structure ends, found by one validating pass. */
interface TornScan {
  /** Offsets just past each whole element of the messages array. */
  messageEnds: number[];
  /** Offsets just past each whole value of a top-level key (root object only). */
  memberEnds: number[];
  /** Offset of the messages array's `[`, -1 when none was found. */
  messagesStart: number;
  /** Offset just past the messages array's `]`, -1 when it was not closed. */
  messagesEnd: number;
  /** Offset just past the root value when it was closed (trailing bytes follow), else -1. */
  rootEnd: number;
  /** The root is the legacy bare list of messages. */
  rootIsArray: boolean;
}

const VALUE = 0, VALUE_OR_CLOSE = 1, KEY = 2, KEY_OR_CLOSE = 3, COLON = 4, COMMA_OR_CLOSE = 5;
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/**
 * Walk the JSON structure until it ends or breaks (a tear, or stale bytes behind it), recording
 * where the messages array (root key `messages`, or the root list) and each of its elements end.
 */
function scanTorn(text: string): TornScan {
  return new TornScanner(text).run();
}

/** The walk's state: the open containers, what may come next, and where the messages are. */
class TornScanner {
  readonly #scan: TornScan = {
    messageEnds: [],
    memberEnds: [],
    messagesStart: -1,
    messagesEnd: -1,
    rootEnd: -1,
    rootIsArray: false,
  };
  readonly #text: string;
  readonly #stack: boolean[] = []; // true = array
  #expect = VALUE;
  #rootKey = "";
  #messagesDepth = -1;

  constructor(text: string) {
    this.#text = text;
  }

  /** The scan, complete or up to where the text breaks. */
  run(): TornScan {
    const text = this.#text;
    for (let i = 0; i >= 0 && i < text.length;) i = this.#token(i);
    return this.#scan;
  }

  /** Read the token at `i`. @returns the index after it, or -1 where the structure breaks or ends */
  #token(i: number): number {
    const c = this.#text.charAt(i);
    if (c === " " || c === "\n" || c === "\r" || c === "\t") return i + 1;
    if (c === '"') return this.#string(i);
    if (c === "{" || c === "[") return this.#open(c === "[", i);
    if (c === "}" || c === "]") return this.#close(c === "]", i);
    if (c === ",") {
      if (this.#expect !== COMMA_OR_CLOSE) return -1;
      this.#expect = this.#stack.at(-1) ? VALUE : KEY;
      return i + 1;
    }
    if (c === ":") {
      if (this.#expect !== COLON) return -1;
      this.#expect = VALUE;
      return i + 1;
    }
    SCALAR.lastIndex = i;
    if (!this.#valueHere() || !SCALAR.test(this.#text)) return -1;
    if (SCALAR.lastIndex >= this.#text.length) return -1; // a number cut at the end may be short
    return this.#done(SCALAR.lastIndex, false) ? -1 : SCALAR.lastIndex;
  }

  #valueHere(): boolean {
    return this.#expect === VALUE || this.#expect === VALUE_OR_CLOSE;
  }

  /** A string at `i`: a key (the root's are remembered) or a value. */
  #string(i: number): number {
    const text = this.#text;
    let j = i + 1;
    while (true) {
      j = text.indexOf('"', j);
      if (j < 0) return -1;
      let slashes = 0;
      while (text[j - 1 - slashes] === "\\") slashes++;
      if (slashes % 2 === 0) break;
      j++;
    }
    if (this.#expect === KEY || this.#expect === KEY_OR_CLOSE) {
      if (this.#stack.length === 1) this.#rootKey = text.slice(i + 1, j);
      this.#expect = COLON;
    } else if (!this.#valueHere() || this.#done(j + 1, false)) return -1;
    return j + 1;
  }

  /** `{` or `[` at `i`; the messages array is the root list or the root's `messages`. */
  #open(isArray: boolean, i: number): number {
    if (!this.#valueHere()) return -1;
    const depth = this.#stack.length;
    if (isArray && depth === 0) this.#scan.rootIsArray = true;
    if (isArray && (depth === 0 || (depth === 1 && this.#rootKey === "messages"))) {
      if (this.#messagesDepth > 0) return -1; // a second messages array: not a trajectory layout we know
      this.#messagesDepth = depth + 1;
      this.#scan.messagesStart = i;
    }
    this.#stack.push(isArray);
    this.#expect = isArray ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
    return i + 1;
  }

  /** `}` or `]` at `i`, when it closes what is open. */
  #close(isArray: boolean, i: number): number {
    const closable = isArray ? this.#expect === VALUE_OR_CLOSE : this.#expect === KEY_OR_CLOSE;
    if (this.#stack.at(-1) !== isArray || (this.#expect !== COMMA_OR_CLOSE && !closable)) return -1;
    if (this.#stack.length === this.#messagesDepth) this.#scan.messagesEnd = i + 1;
    this.#stack.pop();
    return this.#done(i + 1, !isArray) ? -1 : i + 1;
  }

  /** A value ended at `end`; true stops the scan (the root ended, or a message that is no object). */
  #done(end: number, object: boolean): boolean {
    const scan = this.#scan;
    const depth = this.#stack.length;
    if (depth === 0) {
      scan.rootEnd = end;
      return true;
    }
    if (depth === this.#messagesDepth && scan.messagesEnd < 0) {
      // A message is an object: anything else there is a torn tail read as a value (e.g. `"info"`).
      if (!object) return true;
      scan.messageEnds.push(end);
    }
    if (depth === 1 && !scan.rootIsArray) scan.memberEnds.push(end);
    this.#expect = COMMA_OR_CLOSE;
    return false;
  }
}
