/**
 * Upstream's MSWEA_GLOBAL_COST_LIMIT / MSWEA_GLOBAL_CALL_LIMIT: across the episodes of a batch and in a
 * single run (real scripted episodes, real bash, real files).
 */
import { assert, assertEquals, assertThrows } from "../../_support/assert.ts";
import { GlobalLimits } from "../../../src/core/extra/global_limits.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { runBatch } from "../../../src/batch/run_batch.ts";
import { runEpisode } from "../../../src/core/episode.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import { config, step, submit, writeBatch } from "../../_support/batch.ts";
import { batchDeps } from "../../_support/episode.ts";

Deno.test("GlobalLimits: upstream's conditions (cost above the limit, calls at it), read from the environment", () => {
  const cost = GlobalLimits.fromEnv({ MSWEA_GLOBAL_COST_LIMIT: "1.5" });
  cost.add(1.5);
  assert(!cost.exceeded, "at the cost limit is not past it");
  cost.add(0.01);
  assert(cost.exceeded);
  const calls = GlobalLimits.fromEnv({ MSWEA_GLOBAL_CALL_LIMIT: "2" });
  calls.add(0);
  assert(!calls.exceeded);
  calls.add(0);
  assert(calls.exceeded, "a third call would be refused");
  assertEquals(calls.describe(), "Global cost/call limit: $0.0000 / 2");
  assert(!GlobalLimits.fromEnv({}).active);
  assertThrows(
    () => GlobalLimits.fromEnv({ MSWEA_GLOBAL_CALL_LIMIT: "2.5" }),
    ConfigError,
    "MSWEA_GLOBAL_CALL_LIMIT",
  );
  assertThrows(
    () => GlobalLimits.fromEnv({ MSWEA_GLOBAL_COST_LIMIT: "x" }),
    ConfigError,
    "MSWEA_GLOBAL_COST_LIMIT",
  );
  // Python's float() and int() refuse hexadecimal, so must claudius.
  assertThrows(() => GlobalLimits.fromEnv({ MSWEA_GLOBAL_CALL_LIMIT: "0x10" }), ConfigError, "'0x10'");
});

Deno.test("a single run refuses the call past MSWEA_GLOBAL_CALL_LIMIT: RuntimeError, every made call kept", async () => {
  const fx = await writeBatch([{ id: "one", replies: [step("true"), step("true"), submit("never")] }]);
  const cfg = await config(["model.model_class=scripted", `model.script=${fx.scripts}/one.json`]);
  const logs: string[] = [];
  const path = `${fx.dir}/one.traj.json`;
  const error = await runEpisode(cfg, { task: "t", outputPath: path }, {
    hostEnv: { MSWEA_GLOBAL_CALL_LIMIT: "2" },
    log: (l) => logs.push(l),
    runId: "g1",
    cwd: fx.dir,
  }).then(() => undefined, (e: Error) => e);
  assertEquals([error?.name, error?.message], [
    "RuntimeError",
    "Global cost/call limit exceeded: $0.0000 / 2",
  ]);
  assert(logs.includes("Global cost/call limit: $0.0000 / 2"), logs.join("\n"));
  const { data } = await readTrajectory(path);
  assertEquals(data.messages.filter((m) => m.role === "assistant").length, 2, "both paid replies recorded");
  assertEquals(data.info.model_stats, { instance_cost: 0, api_calls: 2 });
  assertEquals(data.messages.at(-1)!.extra, {
    exit_status: "RuntimeError",
    submission: "",
    exception_str: "Global cost/call limit exceeded: $0.0000 / 2",
    traceback: (data.messages.at(-1)!.extra as { traceback: string }).traceback,
  });
});

Deno.test("a batch shares the global limits: no instance starts after, the cut one is redone on a rerun", async () => {
  const fx = await writeBatch(
    ["a", "b", "c"].map((id) => ({
      id,
      replies: [{ ...step("true"), cost: 0.5 }, { ...submit(id), cost: 0.5 }],
    })),
  );
  const cfg = await config(fx.specs);
  const lines: string[] = [];
  const run = (hostEnv: Record<string, string>) =>
    runBatch({
      instancesPath: fx.instances,
      outDir: fx.out,
      workers: 1,
      config: cfg,
      selection: {},
      redoExisting: false,
      dockerHosts: [],
      verbose: false,
    }, batchDeps({ hostEnv, cwd: fx.dir, write: (t) => lines.push(t), log: (l) => lines.push(l) }));
  const s = await run({ MSWEA_GLOBAL_COST_LIMIT: "1.25" });
  assertEquals(s.byStatus, { Submitted: ["a"], RuntimeError: ["b"] });
  assertEquals([s.unfinished, s.notStarted, s.globalLimitReached], [["b"], ["c"], true]);
  assert(lines.some((l) => l.includes("Global cost/call limit: $1.2500 / 0")), lines.join("\n"));
  assertEquals(Object.keys(JSON.parse(await Deno.readTextFile(s.predsPath))), ["a"]);
  const again = await run({});
  assertEquals([again.skipped, again.byStatus], [1, { Submitted: ["b", "c"] }]);
});

Deno.test("MSWEA_SILENT_STARTUP keeps the limits' start-up line out of a run and a batch, as upstream; the limits still hold", async () => {
  const fx = await writeBatch([{ id: "one", replies: [step("true"), step("true"), submit("never")] }]);
  const cfg = await config(["model.model_class=scripted", `model.script=${fx.scripts}/one.json`]);
  const logs: string[] = [];
  const env = { MSWEA_GLOBAL_CALL_LIMIT: "2", MSWEA_SILENT_STARTUP: "1" };
  const error = await runEpisode(cfg, { task: "t", outputPath: `${fx.dir}/one.traj.json` }, {
    hostEnv: env,
    log: (l) => logs.push(l),
    runId: "g2",
    cwd: fx.dir,
  }).then(() => undefined, (e: Error) => e);
  assertEquals(error?.name, "RuntimeError");
  assert(!logs.some((l) => l.startsWith("Global cost/call limit:")), logs.join("\n"));
  const lines: string[] = [];
  await runBatch({
    instancesPath: fx.instances,
    outDir: fx.out,
    workers: 1,
    config: await config(fx.specs),
    selection: {},
    redoExisting: false,
    dockerHosts: [],
    verbose: false,
  }, batchDeps({ hostEnv: env, cwd: fx.dir, write: (t) => lines.push(t), log: (l) => lines.push(l) }));
  assert(!lines.some((l) => l.includes("Global cost/call limit:")), lines.join("\n"));
  assertEquals(
    GlobalLimits.fromEnv({ MSWEA_GLOBAL_CALL_LIMIT: "2" }).announcement(),
    "Global cost/call limit: $0.0000 / 2",
  );
});
