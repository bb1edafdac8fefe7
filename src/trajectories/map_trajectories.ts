/**
 * Read many trajectory files and reduce each to what the caller needs, a few at a time, so a
 * thousand large files never sit in memory together.
 *
 * @module
 */
import { loadTrajectory } from "./load_trajectory.ts";
import type { Trajectory } from "./types.ts";

/** A file that could not be read as a trajectory. */
export interface ReadFailure {
  path: string;
  /** One line naming the file and what was wrong. */
  message: string;
}

/** What {@link mapTrajectories} returns: results in the order of `paths`, and the failures. */
export interface Mapped<T> {
  results: T[];
  failures: ReadFailure[];
}

/**
 * Load each file and map it with `fn`; unreadable files are collected as failures, not thrown.
 *
 * @example
 * ```ts ignore
 * import { mapTrajectories } from "./map_trajectories.ts";
 * const { results, failures } = await mapTrajectories(paths, (t) => t.exit.status);
 * ```
 * @param paths the files (see `findTrajectories`)
 * @param fn reduces one trajectory (the trajectory itself is dropped afterwards)
 * @param concurrency files read at once (default 4)
 */
export async function mapTrajectories<T>(
  paths: readonly string[],
  fn: (t: Trajectory) => T,
  concurrency = 4,
): Promise<Mapped<T>> {
  const slots: ({ ok: T } | { fail: ReadFailure })[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      const path = paths[i]!;
      try {
        slots[i] = { ok: fn(await loadTrajectory(path)) };
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        slots[i] = {
          fail: { path, message: message.includes(path) ? message : `Cannot read ${path}: ${message}` },
        };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, paths.length)) }, worker));
  const results: T[] = [];
  const failures: ReadFailure[] = [];
  for (const slot of slots) {
    if ("ok" in slot) results.push(slot.ok);
    else failures.push(slot.fail);
  }
  return { results, failures };
}
