/**
 * `deno task bench`: claudius as a subprocess against the in-process loopback fake server (answering
 * at once from a script). The side-by-side scenarios (`vs`: start-up, a 1,000-step run, batches at
 * W=8 and W=32) run upstream mini-swe-agent v2.4.6 against the same server in the same run and give
 * each figure's ratio; the floor scenarios put every figure beside its physical floor measured in the
 * same run. Prints Markdown tables and writes the run's figures to `tests/bench/results/<start>.json`.
 *
 * Floor scenarios: start-up; a 1,000-step episode whose every command prints ~2,000 characters (per-step
 * gap, growth, peak RSS, bytes written); SIGKILL recovery; a 1 GB output flood; the per-action cost
 * of `true` in the local and (when an engine answers) the docker and podman environments;
 * `claudius stats` over 1,000 synthetic trajectories. Arguments pick scenarios by name (`vs` or `vs-startup vs-long
 * vs-mixed vs-batch8 vs-batch32`, `breakdown`, `startup long sigkill flood true docker podman stats report inspect`); none runs
 * them all.
 *
 * @module
 */
import { breakdownScenario } from "./_breakdown.ts";
import { runFlags } from "./_child.ts";
import { REPO } from "./_episode.ts";
import { engineTrue, flood, localTrue, longEpisode, sigkill, startup } from "./_floor_scenarios.ts";
import { machine, machineLine, markdownTable, type Row, VS_HEADER } from "./_report.ts";
import { round } from "./_stats.ts";
import { statsScenario } from "./_tools.ts";
import { inspectScenario, reportScenario } from "./_viewers.ts";
import { batchVs, longVs, mixedVs, type Sides, sides, startupVs } from "./_vs.ts";

const log = (line: string) => console.error(`bench: ${line}`);

/** A named scenario: its rows, or a throw. */
export type Scenario = [name: string, run: (tmp: string) => Promise<Row[]>];

/**
 * Run the scenarios named in `only` (all when empty) in order. A scenario that throws becomes a
 * failed row and the next one runs; `save` gets the rows so far after every scenario, so a later
 * failure or a kill never loses the figures already taken.
 */
export async function runScenarios(
  scenarios: readonly Scenario[],
  only: readonly string[],
  tmp: string,
  save: (rows: Row[], done: string[]) => Promise<void>,
): Promise<Row[]> {
  const rows: Row[] = [];
  const done: string[] = [];
  for (const [name, run] of scenarios) {
    if (only.length > 0 && !only.includes(name)) continue;
    log(name);
    try {
      rows.push(...await run(tmp));
    } catch (e) {
      const why = (e instanceof Error ? e.message : String(e)).split("\n")[0]!;
      log(`${name} failed: ${e instanceof Error ? e.stack : why}`);
      rows.push({
        figure: `scenario \`${name}\``,
        value: "failed",
        floor: why,
        ratio: "",
        budget: "",
        met: false,
      });
    }
    done.push(name);
    await save(rows, done);
  }
  return rows;
}

/** The side-by-side scenarios (`vs` names them all). */
const VS = ["vs-startup", "vs-long", "vs-mixed", "vs-batch8", "vs-batch32"];

/** Scenario names as given, `vs` expanded. */
export function expandNames(args: readonly string[]): string[] {
  return args.flatMap((a) => (a === "vs" ? VS : [a]));
}

/** Where a run's figures go: one file per run, named by its start (UTC). */
export function resultsPath(started: Date): string {
  const stamp = started.toISOString().replace(/\.\d+Z$/, "Z").replaceAll(":", "-");
  return `${REPO}tests/bench/results/${stamp}.json`;
}

if (import.meta.main) {
  const started = performance.now();
  const path = resultsPath(new Date());
  const tmp = await Deno.makeTempDir({ prefix: "claudius-bench-" });
  const raw: Record<string, unknown> = {};
  const m = machine();
  const names = expandNames(Deno.args);
  const vsRows = new Set<Row>();
  const isVs = (r: Row) => vsRows.has(r) || r.figure.startsWith("scenario `vs-");
  const vs = (run: (t: string, s: Sides) => Promise<Row[]>) => async (t: string) => {
    const rows = await run(t, await sides(t, raw));
    rows.forEach((r) => vsRows.add(r));
    return rows;
  };
  await Deno.mkdir(`${REPO}tests/bench/results`, { recursive: true });
  const save = (rows: Row[], done: string[]) =>
    Deno.writeTextFile(
      path,
      JSON.stringify(
        {
          machine: m,
          seconds: round((performance.now() - started) / 1000, 1),
          command: `deno task bench ${Deno.args.join(" ")}`.trim(),
          commit: gitCommit(),
          flags: runFlags(),
          scenarios_done: done,
          side_by_side: rows.filter(isVs),
          rows: rows.filter((r) => !isVs(r)),
          raw,
        },
        null,
        2,
      ) + "\n",
    );
  let rows: Row[];
  try {
    rows = await runScenarios(
      [
        ["vs-startup", vs(startupVs)],
        ["vs-long", vs(longVs)],
        ["vs-mixed", vs(mixedVs)],
        ["vs-batch8", vs((t, s) => batchVs(t, s, 8))],
        ["vs-batch32", vs((t, s) => batchVs(t, s, 32))],
        ["breakdown", breakdownScenario],
        ["startup", startup],
        ["long", async (t) => {
          const long = await longEpisode(t);
          raw.long_episode = long.json;
          return long.rows;
        }],
        ["sigkill", sigkill],
        ["flood", flood],
        ["true", localTrue],
        ["docker", (t) => engineTrue(t, "docker")],
        ["podman", (t) => engineTrue(t, "podman")],
        ["stats", statsScenario],
        ["report", reportScenario],
        ["inspect", inspectScenario],
      ],
      names,
      tmp,
      save,
    );
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  const seconds = round((performance.now() - started) / 1000, 1);
  const flags = runFlags().join(" ");
  const side = rows.filter(isVs), floor = rows.filter((r) => !isVs(r));
  console.log(
    `Machine: ${machineLine(m)}. Command: \`deno task bench ${
      Deno.args.join(" ")
    }\` (${seconds} s); claudius ` +
      `runs as \`deno run ${flags} main.ts ...\`${
        raw.claudius ? ` (side by side: as installed by \`deno task install\`)` : ""
      }${raw.upstream ? `; upstream: ${raw.upstream}` : ""}.\n`,
  );
  if (side.length) console.log(`${markdownTable(side, VS_HEADER)}\n`);
  if (floor.length) console.log(`${markdownTable(floor)}\n`);
  console.log(`Figures: ${path.slice(REPO.length)}`);
  Deno.exit(rows.every((r) => r.met !== false) ? 0 : 1);
}

/** The commit the figures were taken at (with `+dirty` when the tree had changes). */
function gitCommit(): string {
  const git = (args: string[]) =>
    new TextDecoder().decode(new Deno.Command("git", { args, cwd: REPO, stderr: "null" }).outputSync().stdout)
      .trim();
  return git(["rev-parse", "--short", "HEAD"]) +
    (git(["status", "--porcelain", "--untracked-files=no"]) ? "+dirty" : "");
}
