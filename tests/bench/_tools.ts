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
    const floorArgs = ["run", ...runFlags(), `${REPO}tests/bench/_parse_floor.ts`, dir];
    const runArgs = ["run", ...runFlags(), `${REPO}main.ts`, "stats", "--json", dir];
    const floor = await runWatched(Deno.execPath(), floorArgs);
    const run = await runWatched(Deno.execPath(), runArgs, { pollMs: 250 });
    if (run.code !== 0) throw new Error(`Cannot measure stats: claudius exited ${run.code}\n${run.stderr}`);
    const s = (r: { spawnedAt: number; exitedAt: number }) => (r.exitedAt - r.spawnedAt) / 1000;
    // CPU seconds of all threads: what the wall time would be on one idle core, whatever the load.
    const floorCpu = await cpuSeconds(floorArgs);
    const runCpu = await cpuSeconds(runArgs);
    return [
      {
        figure: `stats: ${TRAJECTORIES} trajectories of ${STEPS} steps (${
          round(bytes / 1e6, 0)
        } MB), spawn -> exit`,
        value: `${round(s(run), 2)} s`,
        floor: `${round(s(floor), 2)} s (a Deno process, same flags, that reads and JSON.parses every file)`,
        ratio: `${round(s(run) / s(floor), 2)}x`,
        budget: `< ${BUDGET_S} s`,
        met: s(run) < BUDGET_S,
      },
      {
        figure: "stats: CPU time, user + sys of all threads (a second run)",
        value: `${round(runCpu, 2)} s`,
        floor: `${round(floorCpu, 2)} s`,
        ratio: `${round(runCpu / floorCpu, 2)}x`,
        budget: "",
        met: null,
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

/** User + system CPU seconds of `deno ARGS` (all its threads), through `/usr/bin/time`. */
export async function cpuSeconds(args: string[]): Promise<number> {
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "cpu %U %S", Deno.execPath(), ...args],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(new TextDecoder().decode(out.stderr));
  if (!out.success || !m) throw new Error(`Cannot time deno ${args.join(" ")}: exit ${out.code}`);
  return Number(m[1]) + Number(m[2]);
}
