/**
 * One meaning of "submitted" in every tool: the run ended `Submitted`, an empty submission included
 * (tool-call and ProgramBench runs submit files, not text), never a non-empty text of another ending.
 */
import { assertEquals } from "../../_support/assert.ts";
import { syntheticTrajectory } from "../../_support/synthetic_trajectory.ts";
import { parseTrajectory } from "../../../src/tools/trajectories/parse_trajectory.ts";
import { totalStats, trajectoryStats } from "../../../src/tools/trajectories/trajectory_stats.ts";
import { compareRuns } from "../../../src/tools/trajectories/compare_runs.ts";
import { reportTrajectory } from "../../../src/tools/trajectories/report_trajectory.ts";
import { fillEntry, newEntry } from "../../../src/tools/inspect/_index.ts";
import type { Trajectory } from "../../../src/tools/trajectories/types.ts";

/** A synthetic run ending `status` with `submission` as its exit message's text. */
function run(id: string, status: string, submission: string): Trajectory {
  const { messages, info } = syntheticTrajectory({ steps: 2, status, instanceId: id });
  const exit = messages.at(-1)!;
  exit.extra = { ...(exit.extra as Record<string, unknown>), submission };
  return parseTrajectory(
    { instance_id: id, messages, info: { ...info, submission } },
    { path: `/runs/${id}.traj.json` },
  );
}

Deno.test("stats, compare, report and inspect count the same runs as submitted: those that ended Submitted", () => {
  const runs = [
    run("files", "Submitted", ""), // a tool-call run's empty submission: submitted
    run("text", "Submitted", "the answer\n"),
    run("limited", "LimitsExceeded", "half an answer"), // text, but it did not submit
  ];
  const expected = [true, true, false];
  const rows = runs.map((t) => trajectoryStats(t));
  assertEquals(totalStats(rows).exitStatuses.Submitted, 2);
  const comparison = compareRuns({ label: "a", rows }, { label: "b", rows });
  assertEquals([comparison.a.submitted, comparison.a.emptySubmissions], [2, 1]);
  assertEquals(runs.map((t) => reportTrajectory(t, 0).submitted), expected);
  assertEquals(
    runs.map((t) => {
      const entry = newEntry(t.path);
      fillEntry(entry, t, "stamp");
      return entry.info?.submitted;
    }),
    expected,
  );
});
