/**
 * Where a trajectory's prompts came from, as the reading tools show it (`stats`, `compare`, `report`):
 * a few words from its `info.prompts` (`upstream 2.4.6`, `claudius 0.1.0`, `file my.yaml`, `mixed`),
 * and a key that two runs share only when their prompts are the same files, byte for byte (the
 * source, the release and every file's sha256).
 *
 * @module
 */
import { isPlainObject } from "../../lib/json.ts";

/** What a trajectory without `info.prompts` (upstream's own, an older claudius's) shows. */
export const UNRECORDED = "unrecorded";

type Record_ = Record<string, unknown>;

function short(p: Record_): string {
  const source = String(p.source);
  const version = typeof p.version === "string" ? ` ${p.version}` : "";
  const modified = p.modified === true ? " modified" : "";
  if (source === "upstream" || source === "claudius") return `${source}${version}${modified}`;
  if (source === "file") return `file ${String(p.path ?? "").replace(/^.*\//, "")}${modified}`;
  return source;
}

/**
 * The prompts' source in a few words.
 *
 * @example
 * ```ts
 * import { promptsLabel } from "./prompts_source.ts";
 * promptsLabel({ prompts: { source: "upstream", version: "2.4.6", sha256: {} } }); // "upstream 2.4.6"
 * promptsLabel({}); // "unrecorded"
 * ```
 */
export function promptsLabel(info: Record_): string {
  const p = info.prompts;
  if (!isPlainObject(p) || typeof p.source !== "string") return UNRECORDED;
  if (p.source !== "mixed" || !Array.isArray(p.parts)) return short(p);
  return `mixed (${p.parts.filter(isPlainObject).map(short).join(" + ")})`;
}

/** A record's identity: its source, release and digests (paths and origins left out). */
function identity(p: Record_): unknown {
  const sha = isPlainObject(p.sha256)
    ? Object.fromEntries(Object.entries(p.sha256).sort(([a], [b]) => (a < b ? -1 : 1)))
    : p.sha256;
  return {
    source: p.source,
    ...(p.source === "claudius" || p.source === "upstream" ? { version: p.version } : {}),
    ...(sha !== undefined ? { sha256: sha } : {}),
    ...(p.keys !== undefined ? { keys: p.keys } : {}),
  };
}

/** A key two trajectories share exactly when their prompts are the same files (see the module doc). */
export function promptsKey(info: Record_): string {
  const p = info.prompts;
  if (!isPlainObject(p) || typeof p.source !== "string") return UNRECORDED;
  const parts = p.source === "mixed" && Array.isArray(p.parts)
    ? p.parts.filter(isPlainObject).map(identity)
    : identity(p);
  return JSON.stringify(parts);
}

/**
 * Runs counted by their prompts' source, most first, as one line's text.
 *
 * @example
 * ```ts
 * import { promptsSummary } from "./prompts_source.ts";
 * promptsSummary({ "upstream 2.4.6": 3, "claudius 0.1.0": 1 }); // "upstream 2.4.6 (3 runs), claudius 0.1.0 (1 run)"
 * ```
 */
export function promptsSummary(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([label, n]) => `${label} (${n} run${n === 1 ? "" : "s"})`)
    .join(", ");
}
