/**
 * The reductions of one trajectory that `mapTrajectoriesParallel()` can run in worker threads, by
 * name (a worker receives the name and the argument, never a function). Each takes the trajectory
 * and one structured-cloneable argument and returns structured-cloneable data. Add one entry per
 * tool that reads many files.
 *
 * @module
 */
import { reportMapper } from "./report_trajectory.ts";
import type { ClassifyOptions } from "./action_types.ts";
import { trajectoryStats } from "./trajectory_stats.ts";
import type { Trajectory } from "./types.ts";

/** The mappers by name. */
export const TRAJECTORY_MAPPERS = {
  /** `trajectoryStats()`: one `claudius stats` row. */
  stats: (t: Trajectory, options: ClassifyOptions) => trajectoryStats(t, options),
  /** `reportMapper()`: one `claudius report` record (figures and shape). */
  report: reportMapper,
};

/** A mapper's name. */
export type MapperName = keyof typeof TRAJECTORY_MAPPERS;
/** A mapper's argument and result types. */
export type MapperArg<N extends MapperName> = Parameters<typeof TRAJECTORY_MAPPERS[N]>[1];
export type MapperResult<N extends MapperName> = ReturnType<typeof TRAJECTORY_MAPPERS[N]>;
