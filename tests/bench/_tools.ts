/**
 * The trajectory tools' benchmark scenario: `claudius stats` over 1,000 synthetic trajectories of
 * 100 steps (a batch directory of ~450 MB), beside the floor of merely reading and parsing them.
 *
 * @module
 */
import { runFlags, runWatched } from "./_child.ts";
import { REPO } from "./_episode.ts";
import type { Row } from "./_report.ts";
import { round } from "./_stats.ts";
import { writeSyntheticBatch } from "./_synthetic.ts";

const TRAJECTORIES = 1000;
const STEPS = 100;
const BUDGET_S = 5;

/** Time `claudius stats --json` over the synthetic batch and its floor (read + JSON.parse). */
export async function statsScenario(tmp: string): Promise<Row[]> {
  const dir = `${tmp}/synthetic`;
  const bytes = await writeSyntheticBatch(dir, TRAJECTORIES, STEPS);
  try {
    const floor = await runWatched(Deno.execPath(), [
      "run",
      "--allow-read",
      `${REPO}tests/bench/_parse_floor.ts`,
      dir,
    ]);
    const run = await runWatched(Deno.execPath(), [
      "run",
      ...runFlags(),
      `${REPO}main.ts`,
      "stats",
      "--json",
      dir,
    ], {
      pollMs: 250,
    });
    if (run.code !== 0) throw new Error(`Cannot measure stats: claudius exited ${run.code}\n${run.stderr}`);
    const s = (r: { spawnedAt: number; exitedAt: number }) => (r.exitedAt - r.spawnedAt) / 1000;
    return [
      {
        figure: `stats: ${TRAJECTORIES} trajectories of ${STEPS} steps (${
          round(bytes / 1e6, 0)
        } MB), spawn -> exit`,
        value: `${round(s(run), 2)} s`,
        floor: `${round(s(floor), 2)} s (a Deno process that reads and JSON.parses every file)`,
        ratio: `${round(s(run) / s(floor), 2)}x`,
        budget: `< ${BUDGET_S} s`,
        met: s(run) < BUDGET_S,
      },
      {
        figure: "stats: peak RSS",
        value: `${round(run.peakRssKiB / 1024, 1)} MiB`,
        floor: "",
        ratio: "",
        budget: "",
        met: null,
      },
    ];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
