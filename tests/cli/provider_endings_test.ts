/**
 * A batch whose model endpoint failed under some instances, against a loopback server: a gateway's 502
 * after the retries (litellm's `APIError`) and a refused key (`AuthenticationError`) end those runs
 * before the agent did anything. Such a run says nothing about the agent: `claudius stats` counts it in
 * no rate and lists it, and a batch rerun runs it again, as it does an `APIConnectionError`.
 */
import { assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { cli, freshHome } from "../_support/upstream.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";

const SUBMIT: ScriptReply = { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };
const KEY = "sk-endings-SECRET-0123456789";

Deno.test("batch: an instance the endpoint failed (a 502 after the retries, a refused key) counts in no rate and a rerun runs it again", async () => {
  const env = { ...await freshHome(), OPENAI_API_KEY: KEY, MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT: "1" };
  const tasks = `${env.HOME}/tasks`;
  await Deno.mkdir(tasks);
  for (const id of ["a", "b", "c"]) await Deno.writeTextFile(`${tasks}/${id}.md`, `Task ${id}: say done.`);
  let broken = true;
  const server = await startFakeServer([], {
    reply: (request) => {
      const text = JSON.stringify(request.body);
      if (broken && text.includes("Task b:")) return { fault: "status", status: 502 };
      if (broken && text.includes("Task c:")) {
        return { fault: "status", status: 401, body: '{"error": {"message": "key expired"}}' };
      }
      return SUBMIT;
    },
  });
  try {
    const args = [
      "batch",
      "tasks",
      "-o",
      "out",
      "-m",
      "openai/gpt-5-mini",
      "-c",
      `model.base_url=${server.url}`,
    ];
    await cli(args, env);
    const statuses = async () =>
      await Promise.all(
        ["a", "b", "c"].map(async (id) =>
          JSON.parse(await Deno.readTextFile(`${env.HOME}/out/${id}/${id}.traj.json`)).info.exit_status
        ),
      );
    assertEquals(await statuses(), ["Submitted", "APIError", "AuthenticationError"]);
    const first = JSON.parse((await cli(["stats", "out", "--json"], env)).stdout).stats;
    assertEquals([first.instances, first.mean, first.excluded_why], [1, 1, {
      b: "APIError",
      c: "AuthenticationError",
    }]);
    broken = false;
    const again = await cli(args, env);
    assertEquals(again.code, 0, again.stderr + again.stdout);
    assertMatch(again.stderr + again.stdout, /3 instances selected, 1 already finished, 2 to run/);
    assertEquals(await statuses(), ["Submitted", "Submitted", "Submitted"]);
    const second = JSON.parse((await cli(["stats", "out", "--json"], env)).stdout).stats;
    assertEquals([second.instances, second.mean, second.excluded], [3, 1, []]);
  } finally {
    await server.close();
  }
});
