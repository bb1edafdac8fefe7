/**
 * The injected clock reaches every timestamp an episode writes: the model's messages (reply,
 * observation) as well as the loop's, so a run under a fixed clock records that clock.
 */
import { assertEquals } from "../_support/assert.ts";
import { configIO, episodeDeps, runWithFeatures } from "../_support/episode.ts";
import { loadConfig } from "../../src/core/config/load.ts";

Deno.test("runEpisode() stamps the model's messages with the clock in its deps (EpisodeDeps.now)", async () => {
  const dir = await Deno.makeTempDir();
  const overrides = {
    model: {
      model_class: "scripted",
      replies: [{ commands: ["echo hi"] }, { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] }],
    },
    environment: { cwd: dir },
  };
  const { config } = await loadConfig(["default"], configIO(), () => {}, { overrides });
  const path = `${dir}/t.traj.json`;
  await runWithFeatures(config, { task: "t", outputPath: path }, episodeDeps({ now: () => 1_234_000 }));
  const { messages } = JSON.parse(await Deno.readTextFile(path));
  const stamped = messages.filter((m: { extra?: { timestamp?: number } }) =>
    m.extra?.timestamp !== undefined
  );
  assertEquals(stamped.map((m: { role: string }) => m.role), ["assistant", "tool", "assistant"]);
  assertEquals(stamped.map((m: { extra: { timestamp: number } }) => m.extra.timestamp), [1234, 1234, 1234]);
});
