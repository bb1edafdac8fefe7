/**
 * The bytes of a trajectory file as the writer lays them out (see `trajectory_writer.ts`): `info`'s
 * fixed members, its room, the messages and the list's end.
 *
 * @module
 */
import type { Json } from "./types.ts";
import { isPlainObject } from "../lib/json.ts";

/** The members of `info` that stay the same during a run, in the order they are written. */
export const FIXED_INFO = ["config", "mini_version", "claudius_version", "resumed_from"];
/** A kill cannot tear a write that stays inside one page (Linux checks for it between pages). */
export const PAGE = 4096;
/** The least room for the changing members of `info`. */
export const MIN_ROOM = 256;
export const INDENT = "    ";
export const indent = (json: string) => json.replaceAll("\n", "\n" + INDENT);
export const encoder = new TextEncoder();
export const BRACKET = "]".charCodeAt(0);
export const SPACE = 0x20;
export const MESSAGES_KEY = '\n  },\n  "messages": [';

/** `message` without the `extra` keys in `omit` (the message itself is unchanged). */
export function without(message: { extra?: unknown }, omit: string[] | undefined): object {
  const extra = isPlainObject(message.extra) ? message.extra : undefined;
  if (!omit?.length || !extra || !omit.some((k) => k in extra)) return message;
  return { ...message, extra: Object.fromEntries(Object.entries(extra).filter(([k]) => !omit.includes(k))) };
}

/** `info`'s members as written: the fixed ones, and the room's content (the others). */
export function infoParts(info: object): { fixed: string; changing: string } {
  const member = ([k, v]: [string, unknown]) =>
    `\n${INDENT}${JSON.stringify(k)}: ${indent(JSON.stringify(v, null, 2))}`;
  const entries = Object.entries(info).filter(([, v]) => v !== undefined);
  const fixed = FIXED_INFO.flatMap((k) => entries.filter(([key]) => key === k)).map(member).join(",");
  const others = entries.filter(([k]) => !FIXED_INFO.includes(k)).map(member).join(",");
  // The comma between the two parts is the room's: it comes and goes with the room's members.
  return { fixed, changing: fixed && others ? `,${others}` : others };
}

/** The end of the file after `n` messages. */
export const tailText = (n: number) => (n ? "\n  ]\n}\n" : "]\n}\n");

/** The file up to its first message: where the room is and how large. */
export interface Layout {
  bytes: Uint8Array;
  roomAt: number;
  room: number;
  /** The room lies inside one page: rewriting it cannot be torn. */
  atomic: boolean;
}

export function layout(top: Record<string, Json>, fixed: string, changing: Uint8Array): Layout {
  const members = Object.entries(top).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`).join(
    "",
  );
  const before = encoder.encode(`{\n${members}  "info": {${fixed}`);
  const room = Math.max(MIN_ROOM, 2 * changing.length);
  const atomic = room <= PAGE;
  // Spaces (JSON whitespace) push the room to the next page when it would straddle two.
  const pad = atomic && (before.length % PAGE) + room > PAGE ? PAGE - (before.length % PAGE) : 0;
  const after = encoder.encode(MESSAGES_KEY);
  const bytes = new Uint8Array(before.length + pad + room + after.length).fill(SPACE);
  bytes.set(before);
  bytes.set(changing, before.length + pad);
  bytes.set(after, before.length + pad + room);
  return { bytes, roomAt: before.length + pad, room, atomic };
}

/** Whether `f()` ran without throwing. */
export function succeeds(f: () => void): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

export function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
