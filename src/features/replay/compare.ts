/**
 * How a replay compares messages: as JSON text, byte for byte, key order included, except
 * `extra.timestamp` (a clock reading, which a replay takes from the recording); and the first
 * difference between two messages described for a reader: the field, where in it, and a short
 * context of both sides.
 *
 * @module
 */
import { isPlainObject } from "../../lib/json.ts";

/** Where two messages first differ. */
export interface FieldDifference {
  /** The field (`content`, `extra.raw_output`, `tool_calls[0].function.arguments`, ...; "" the whole). */
  path: string;
  /** What differs there, in a few words (`text differs at character 53`, `claudius lacks it`, ...). */
  what: string;
  /** A short excerpt of each side around the difference (JSON-escaped). */
  recorded: string;
  replayed: string;
}

type Tree = Record<string, unknown>;

/**
 * `replayed` with the recording's `extra.timestamp` (the clock is not compared): the recorded value
 * in its place, or none where the recording has none (a file whose clock readings were taken out).
 */
export function withRecordedClock(replayed: unknown, recorded: unknown): unknown {
  if (!isPlainObject(replayed) || !isPlainObject(recorded) || !isPlainObject(replayed.extra)) return replayed;
  const ours = replayed.extra.timestamp;
  const theirs = isPlainObject(recorded.extra) ? recorded.extra.timestamp : undefined;
  if (typeof ours !== "number" || ours === theirs) return replayed;
  if (typeof theirs === "number") return { ...replayed, extra: { ...replayed.extra, timestamp: theirs } };
  if (theirs !== undefined) return replayed;
  const { timestamp: _, ...extra } = replayed.extra;
  return { ...replayed, extra };
}

/** The JSON text a message is compared as (see {@link withRecordedClock}). */
export function comparable(replayed: unknown, recorded: unknown): string {
  return JSON.stringify(withRecordedClock(replayed, recorded)) ?? "undefined";
}

const CONTEXT_BEFORE = 30;
const CONTEXT_AFTER = 50;

/** A JSON-escaped excerpt of `text` around `at`, with ellipses where it was cut. */
function excerpt(text: string, at: number): string {
  const start = Math.max(0, at - CONTEXT_BEFORE);
  const end = Math.min(text.length, at + CONTEXT_AFTER);
  const body = JSON.stringify(text.slice(start, end)).slice(1, -1);
  return `${start > 0 ? "…" : ""}"${body}"${end < text.length ? "…" : ""}`;
}

const shown = (v: unknown) => {
  const text = JSON.stringify(v) ?? "undefined";
  return text.length > CONTEXT_BEFORE + CONTEXT_AFTER
    ? `${text.slice(0, CONTEXT_BEFORE + CONTEXT_AFTER)}…`
    : text;
};

const join = (path: string, key: string | number) =>
  typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/**
 * The first difference between a recorded and a replayed value (the replayed one with the
 * recording's clock), depth first in the recorded value's key order; undefined when their JSON text
 * is the same.
 */
export function firstDifference(
  recorded: unknown,
  replayed: unknown,
  path = "",
): FieldDifference | undefined {
  replayed = path === "" ? withRecordedClock(replayed, recorded) : replayed;
  if (JSON.stringify(recorded) === JSON.stringify(replayed)) return undefined;
  if (typeof recorded === "string" && typeof replayed === "string") {
    let at = 0;
    while (at < recorded.length && at < replayed.length && recorded[at] === replayed[at]) at++;
    const what = at === recorded.length
      ? `claudius's text is longer (from character ${at})`
      : at === replayed.length
      ? `claudius's text is shorter (ends at character ${at})`
      : `text differs at character ${at}`;
    return { path, what, recorded: excerpt(recorded, at), replayed: excerpt(replayed, at) };
  }
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    for (let i = 0; i < Math.min(recorded.length, replayed.length); i++) {
      const d = firstDifference(recorded[i], replayed[i], join(path, i));
      if (d) return d;
    }
    const n = Math.min(recorded.length, replayed.length);
    return {
      path: join(path, n),
      what: `${recorded.length} items recorded, ${replayed.length} from claudius`,
      recorded: shown(recorded[n]),
      replayed: shown(replayed[n]),
    };
  }
  if (isPlainObject(recorded) && isPlainObject(replayed)) {
    // Another kind of message altogether: say so, and show the start of each.
    const kind = (m: Tree) => m.role ?? m.type;
    if (path === "" && kind(recorded) !== kind(replayed)) {
      return {
        path: "",
        what: `claudius records a message of role ${shown(kind(replayed))} where the recording has one of ` +
          `role ${shown(kind(recorded))}`,
        recorded: shown(recorded),
        replayed: shown(replayed),
      };
    }
    return treeDifference(recorded, replayed, path);
  }
  return { path, what: "the values differ", recorded: shown(recorded), replayed: shown(replayed) };
}

function treeDifference(recorded: Tree, replayed: Tree, path: string): FieldDifference {
  for (const [k, v] of Object.entries(recorded)) {
    if (!(k in replayed)) {
      return { path: join(path, k), what: "claudius lacks it", recorded: shown(v), replayed: "(none)" };
    }
    const d = firstDifference(v, replayed[k], join(path, k));
    if (d) return d;
  }
  for (const [k, v] of Object.entries(replayed)) {
    if (!(k in recorded)) {
      return { path: join(path, k), what: "the recording lacks it", recorded: "(none)", replayed: shown(v) };
    }
  }
  return {
    path,
    what: "the same keys in another order",
    recorded: Object.keys(recorded).join(", "),
    replayed: Object.keys(replayed).join(", "),
  };
}
