import { assertEquals } from "../../_support/assert.ts";
import { findTrajectories } from "../../../src/tools/trajectories/find_trajectories.ts";
import {
  MAP_WORKER,
  mapTrajectories,
  mapTrajectoriesParallel,
} from "../../../src/tools/trajectories/map_trajectories.ts";
import { programFile } from "../../_support/episode.ts";
import { trajectoryStats } from "../../../src/tools/trajectories/trajectory_stats.ts";
import { writeSyntheticBatch } from "../../bench/_synthetic.ts";

Deno.test("mapTrajectoriesParallel() gives what mapTrajectories() gives, in order, failures included", async () => {
  const dir = await Deno.makeTempDir();
  await writeSyntheticBatch(dir, 40, 12);
  await Deno.mkdir(`${dir}/inst-17x`);
  await Deno.writeTextFile(`${dir}/inst-17x/inst-17x.traj.json`, '{"messages": 3}');
  const paths = await findTrajectories([dir]);
  assertEquals(paths.length, 41);
  const here = await mapTrajectories(paths, (t) => trajectoryStats(t));
  const there = await mapTrajectoriesParallel(paths, "stats", {}, {
    workers: 3,
    worker: programFile(MAP_WORKER),
  });
  assertEquals(there, here);
  assertEquals(there.results.length, 40);
  assertEquals(there.failures, [{
    path: `${dir}/inst-17x/inst-17x.traj.json`,
    message: `Cannot read ${dir}/inst-17x/inst-17x.traj.json: not a trajectory (expected a messages list)`,
  }]);
});
