/**
 * Trajectories another one of the same set went on from (`claudius resume`): a resume's figures
 * include its predecessor's calls and cost, so totals count each chain once, by its newest link.
 *
 * @module
 */
import { resolve } from "node:path";
import { isJsonObject } from "../../lib/json.ts";

/** A trajectory's file and, for a resume, its predecessor's (`info.resumed_from.trajectory`). */
export interface Linked {
  path: string;
  resumedFrom?: string | undefined;
}

/** The predecessor a resumed trajectory names in `info.resumed_from`, if any. */
export function resumedFromOf(info: Record<string, unknown>): string | undefined {
  const link = info.resumed_from;
  return isJsonObject(link) && typeof link.trajectory === "string" ? link.trajectory : undefined;
}

/**
 * The rows of `rows` that another row resumed (compared as absolute paths).
 *
 * @example
 * ```ts
 * import { superseded } from "./superseded.ts";
 * const rows = [{ path: "/r/a.traj.json" }, { path: "/r/a.resume1.traj.json", resumedFrom: "/r/a.traj.json" }];
 * superseded(rows).has(rows[0]!); // true
 * ```
 */
export function superseded<T extends Linked>(rows: readonly T[]): Set<T> {
  const from = new Set(rows.flatMap((r) => (r.resumedFrom ? [resolve(r.resumedFrom)] : [])));
  return new Set(rows.filter((r) => from.has(resolve(r.path))));
}
