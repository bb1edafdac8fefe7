/**
 * A scripted two-arm batch (the control and the rich arm, `daemon`, into sibling directories): the
 * rich arm's rerolled instance and its outputs say best-of-k, the control's say nothing new.
 */
import { load } from "js-yaml";
import { assertEquals } from "../../_support/assert.ts";
import { runBatch } from "../../../src/batch/run_batch.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import { config, step, submit, writeBatch } from "../../_support/batch.ts";
import { episodeFeatures } from "../../../src/cli/features.ts";

const EMPTY = { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };

async function arm(specs: string[], replies: Parameters<typeof writeBatch>[0][number]["replies"]) {
  const fx = await writeBatch([{ id: "a", replies }]);
  const lines: string[] = [];
  const s = await runBatch({
    instancesPath: fx.instances,
    outDir: fx.out,
    workers: 1,
    config: await config([...fx.specs, ...specs]),
    selection: {},
    redoExisting: false,
    dockerHosts: [],
    verbose: false,
  }, {
    hostEnv: Deno.env.toObject(),
    features: episodeFeatures,
    cwd: Deno.cwd(),
    write: (t) => lines.push(t),
    live: false,
    log: (l) => lines.push(l),
  });
  return {
    s,
    preds: JSON.parse(await Deno.readTextFile(s.predsPath)),
    statuses: load(await Deno.readTextFile(s.statusesPath!)) as Record<string, unknown>,
    traj: (await readTrajectory(`${fx.out}/a/a.traj.json`)).data,
    lines,
  };
}

Deno.test("batch: the rich arm's best-of-k results are labelled not pass@1 in preds, exit statuses and summary", async () => {
  const control = await arm([], [step("echo hi"), EMPTY]);
  assertEquals(control.preds.a, { model_name_or_path: "scripted", instance_id: "a", model_patch: "" });
  assertEquals(control.statuses, { instances_by_exit_status: { Submitted: ["a"] } });
  assertEquals(control.s.notPassAt1, false);

  // The rich arm: the declared gate refuses the first submission; an empty one is rerolled.
  const rich = await arm(["daemon", "mechanisms.reroll.empty=submission"], [
    step("echo hi"),
    EMPTY, // refused
    EMPTY, // accepted by the gate, empty: attempt 2
    submit("the patch"), // refused: a new attempt meets the gate again
    submit("the patch"),
  ]);
  assertEquals(rich.preds.a, {
    model_name_or_path: "scripted",
    instance_id: "a",
    model_patch: "the patch",
    pass_at_1: false,
  });
  assertEquals(rich.statuses, { pass_at_1: false, instances_by_exit_status: { Submitted: ["a"] } });
  assertEquals(rich.s.notPassAt1, true);
  assertEquals([rich.traj.info.pass_at_1, rich.traj.info.best_of_k], [false, 2]);
});
