/**
 * MSWEA_GLOBAL_CALL_LIMIT holds for the calls mechanisms make (compression's summary request, a
 * sub-agent's queries) as for the loop's own: the CLI against the loopback server.
 */
import { assertEquals } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/** Run claudius with the mechanisms `specs` and a global call limit; requests made, exit, model stats. */
async function limited(replies: ScriptReply[], callLimit: number, specs: string[]) {
  const server = await startFakeServer(replies);
  const dir = await Deno.makeTempDir({ prefix: "claudius-mech-global-" });
  try {
    const args = ["run", "-A", MAIN, "--task", "Do the thing", "-m", "test-model", "--base-url", server.url];
    args.push(
      "--create-cwd",
      "--cwd",
      `${dir}/ws`,
      "-o",
      `${dir}/t.traj.json`,
      "-c",
      "model.cost_tracking=ignore_errors",
    );
    args.push(...specs.flatMap((s) => ["-c", `mechanisms.${s}`]));
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      env: { NO_COLOR: "1", MSWEA_GLOBAL_CALL_LIMIT: String(callLimit) },
      stdin: "null",
    }).output();
    const { info } = (await readTrajectory(`${dir}/t.traj.json`)).data;
    const stderr = new TextDecoder().decode(out.stderr);
    return { requests: server.requests.length, code: out.code, stderr, stats: info.model_stats };
  } finally {
    await server.close();
  }
}

Deno.test("compression makes no summary call past MSWEA_GLOBAL_CALL_LIMIT", async () => {
  const big = { prompt_tokens: 60000, completion_tokens: 5, total_tokens: 60005 };
  const run = await limited(
    [{ commands: ["echo one"], usage: big }, { content: "SUMMARY" }, { commands: [SUBMIT] }],
    1,
    ["compression.enabled=true", "compression.prompt_tokens=50000"],
  );
  assertEquals([run.code, run.requests, run.stats], [1, 1, { instance_cost: 0, api_calls: 1 }], run.stderr);
});

Deno.test("a sub-agent makes no call past MSWEA_GLOBAL_CALL_LIMIT", async () => {
  const run = await limited(
    [
      { commands: ["printf 'Say hi' > t.md"] },
      { commands: ["claudius t.md"] },
      { commands: ["echo child 1"] },
      { commands: ["echo child 2"] },
      { commands: [`${SUBMIT}; echo child`] },
      { commands: [SUBMIT] },
    ],
    2,
    ["subagents.enabled=true"],
  );
  assertEquals([run.code, run.requests, run.stats], [1, 2, { instance_cost: 0, api_calls: 2 }], run.stderr);
});
