/**
 * The reading tools show where a set's prompts came from (`info.prompts`): `stats` counts the runs by
 * source, `compare` of two sets whose prompts differ (source or digest) says so first, in one line,
 * and `report` names the source in each set's config. Two batches of the scripted model on the same
 * tasks: one with claudius's own prompts, one with a system prompt of the user's file.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { cli, freshHome } from "../_support/upstream.ts";
import { VERSION } from "../../src/core/version.ts";

const REPLIES = JSON.stringify([{
  content: "done",
  commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"],
}]);

async function batches() {
  const env = { ...await freshHome(), CLAUDIUS_PYTHON: "" };
  await Deno.mkdir(`${env.HOME}/tasks`);
  for (const id of ["t1", "t2"]) await Deno.writeTextFile(`${env.HOME}/tasks/${id}.md`, "Say done.");
  await Deno.writeTextFile(`${env.HOME}/mine.yaml`, "agent:\n  system_template: You are my agent.\n");
  const scripted = [
    "--model-class",
    "scripted",
    "-c",
    `model.replies=${REPLIES}`,
    "-c",
    "model.model_name=m",
  ];
  for (const [out, more] of [["a", []], ["b", ["-c", "mine.yaml"]], ["c", []]] as const) {
    const r = await cli(["batch", "tasks", "-o", out, "-c", "default", ...more, ...scripted], env);
    assertEquals(r.code, 0, r.stderr);
  }
  return env;
}

Deno.test("stats, compare and report show where the prompts came from; compare says first when they differ", async () => {
  const env = await batches();
  const stats = await cli(["stats", "a"], env);
  assertEquals(stats.code, 0, stats.stderr);
  assertMatch(
    stats.stdout,
    new RegExp(`\\nprompts: claudius ${VERSION.replaceAll(".", "\\.")} \\(2 runs\\)\\n`),
  );
  const json = JSON.parse((await cli(["stats", "b", "--json"], env)).stdout);
  assertEquals(json.total.prompts, { [`mixed (claudius ${VERSION} + file mine.yaml)`]: 2 });
  assertEquals(json.trajectories[0].prompts, `mixed (claudius ${VERSION} + file mine.yaml)`);

  const differ = await cli(["compare", "a", "b"], env);
  assertEquals(differ.code, 0, differ.stderr);
  assertEquals(
    differ.stdout.split("\n")[0],
    `prompts differ: a ran claudius ${VERSION} (2 runs); b ran mixed (claudius ${VERSION} + file mine.yaml) (2 runs)`,
  );
  const same = await cli(["compare", "a", "c"], env);
  assert(!same.stdout.includes("prompts differ"), same.stdout);
  const asJson = JSON.parse((await cli(["compare", "a", "b", "--json"], env)).stdout);
  assertEquals(asJson.prompts.differ, true);

  const report = await cli(["report", "a", "b", "-o", "r.html"], env);
  assertEquals(report.code, 0, report.stderr);
  const html = await Deno.readTextFile(`${env.HOME}/r.html`);
  assert(html.includes(`prompts claudius ${VERSION} `), "the report names the prompts' source");
  assert(html.includes("prompts mixed (claudius"), "and the other set's");
});
