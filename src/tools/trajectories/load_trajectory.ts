/**
 * Read one trajectory file into the typed model, repairing a torn file (see `src/core/trajectory.ts`).
 *
 * @module
 */
import { parseTrajectoryText } from "../../core/trajectory.ts";
import { parseTrajectory } from "./parse_trajectory.ts";
import type { Trajectory } from "./types.ts";

/**
 * Read and model the trajectory at `path` (any format `parseTrajectory` reads; torn files repaired).
 *
 * @example
 * ```ts ignore
 * import { loadTrajectory } from "./load_trajectory.ts";
 * const t = await loadTrajectory("runs/2026-01-01T00-00-00Z.traj.json");
 * console.log(t.exit.status, t.steps.length, t.totals.cost);
 * ```
 * @param path the file
 * @throws {Deno.errors.NotFound} when the file is missing
 * @throws {SyntaxError} when it is not a trajectory, or nothing can be recovered from it
 */
export async function loadTrajectory(path: string): Promise<Trajectory> {
  const { data, repaired } = parseTrajectoryText(await Deno.readTextFile(path), path);
  return parseTrajectory(data, { path, repaired });
}
