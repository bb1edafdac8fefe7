/**
 * ATIF as Harbor reads it: every step names the model the run was configured with (as the root's
 * `agent.model_name`), a live copy's `session_id` is unique per run, and per-step `cost_usd` is the
 * recorded cost of that call, absent (never $0) where the trajectory format records none.
 */
import { assert, assertEquals } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { parseTrajectory } from "../../../src/tools/trajectories/parse_trajectory.ts";
import { toAtif } from "../../../src/tools/trajectories/to_atif.ts";
import { validateAtif } from "../../../src/tools/trajectories/validate_atif.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const sys = { role: "system", content: "s" };
const task = { role: "user", content: "t" };
const fence = "`".repeat(3);

Deno.test("toAtif(): each agent step's model_name is agent.model_name; the provider's name for it goes to extra", () => {
  const reply = (n: number, model: string) => ({
    role: "assistant",
    content: `step ${n}`,
    tool_calls: [{
      id: `c${n}`,
      type: "function",
      function: { name: "bash", arguments: '{"command":"ls"}' },
    }],
    extra: {
      actions: [{ command: "ls", tool_call_id: `c${n}` }],
      response: { model, usage: { prompt_tokens: 5, completion_tokens: 1 } },
      cost: 0.5,
      timestamp: 1_750_000_000 + n,
    },
  });
  const tool = (n: number) => ({
    role: "tool",
    tool_call_id: `c${n}`,
    content: "a",
    extra: { raw_output: "a", returncode: 0 },
  });
  const t = parseTrajectory({
    trajectory_format: "mini-swe-agent-1.1",
    info: { config: { model: { model_name: "openai/gpt-5" } }, mini_version: "2.4.6" },
    messages: [sys, task, reply(1, "gpt-5-2025-08-07"), tool(1), reply(2, "openai/gpt-5"), tool(2)],
  });
  const atif = toAtif(t);
  assertEquals(validateAtif(atif), []);
  const agent = atif.steps.filter((s) => s.source === "agent");
  assertEquals(atif.agent.model_name, "openai/gpt-5");
  assertEquals(agent.map((s) => s.model_name), ["openai/gpt-5", "openai/gpt-5"]);
  assertEquals(agent.map((s) => s.extra?.response_model), ["gpt-5-2025-08-07", undefined]);
  assertEquals(agent.map((s) => s.metrics?.cost_usd), [0.5, 0.5]);
});

Deno.test("toAtif() of upstream v1 and early v2 files: no per-step cost where none was recorded, never $0", () => {
  // Upstream v1 (mini-swe-agent-1, v1.17's save_traj): no cost per call, only the total in info.
  const v1 = parseTrajectory({
    trajectory_format: "mini-swe-agent-1",
    info: {
      exit_status: "Submitted",
      submission: "",
      model_stats: { instance_cost: 0.3, api_calls: 2 },
      mini_version: "1.17.5",
      config: { agent: {}, model: { model_name: "anthropic/claude-sonnet-4-5" }, environment: {} },
    },
    messages: [
      { ...sys, timestamp: 1 },
      { ...task, timestamp: 2 },
      {
        role: "assistant",
        content: `${fence}bash\nls\n${fence}`,
        timestamp: 3,
        extra: {
          response: {
            model: "claude-sonnet-4-5-20250929",
            usage: { prompt_tokens: 9, completion_tokens: 3 },
          },
        },
      },
      { role: "user", content: "<returncode>0</returncode>\n<output>\na\n</output>", timestamp: 4 },
      {
        role: "assistant",
        content: `${fence}bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n${fence}`,
        timestamp: 5,
      },
      { role: "user", content: "", timestamp: 6 },
    ],
  });
  const a1 = toAtif(v1);
  assertEquals(validateAtif(a1), []);
  const steps1 = a1.steps.filter((s) => s.source === "agent");
  assertEquals(steps1.length, 2);
  for (const s of steps1) {
    assertEquals(s.metrics?.cost_usd, undefined);
    assertEquals(s.metrics?.extra?.cost_recorded, false);
    assertEquals(s.model_name, "anthropic/claude-sonnet-4-5");
  }
  assertEquals(a1.final_metrics?.total_cost_usd, 0.3);
  // v2 before 2.4: a format error's message records no cost (upstream did not bill it); replies do.
  const v2 = parseTrajectory({
    trajectory_format: "mini-swe-agent-1.1",
    info: {
      model_stats: { instance_cost: 0.2, api_calls: 2 },
      mini_version: "2.2.6",
      config: { model: { model_name: "m" } },
    },
    messages: [
      sys,
      task,
      { role: "user", content: "no tool call", extra: { interrupt_type: "FormatError" } },
      {
        role: "assistant",
        content: "ok",
        tool_calls: [{
          id: "c",
          type: "function",
          function: { name: "bash", arguments: '{"command":"ls"}' },
        }],
        extra: { actions: [{ command: "ls", tool_call_id: "c" }], response: {}, cost: 0.2, timestamp: 7 },
      },
    ],
  });
  const a2 = toAtif(v2);
  assertEquals(validateAtif(a2), []);
  const steps2 = a2.steps.filter((s) => s.source === "agent");
  assertEquals(steps2.map((s) => s.metrics?.cost_usd), [undefined, 0.2]);
  assertEquals(steps2.map((s) => s.metrics?.extra?.cost_recorded), [false, undefined]);
});

Deno.test("run.atif_path: two runs of the same task and file name get different session ids", async () => {
  const ids: string[] = [];
  for (const _ of [1, 2]) {
    const dir = await Deno.makeTempDir();
    const server = await startFakeServer([
      { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"], cost: 0.1 },
    ]);
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          MAIN,
          "-t",
          "t",
          "-m",
          "openai/test-model",
          "--base-url",
          server.url,
          "--create-cwd",
          "--cwd",
          `${dir}/ws`,
        ]
          .concat(["-o", `${dir}/claudius.traj.json`, "-c", "run.atif_path=trajectory.json"]),
        stdin: "null",
        env: { NO_COLOR: "1" },
      }).output();
      assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    } finally {
      await server.close();
    }
    const atif = JSON.parse(await Deno.readTextFile(`${dir}/trajectory.json`));
    assertEquals(validateAtif(atif), []);
    assert(typeof atif.session_id === "string");
    const agent = atif.steps.filter((s: { source: string }) => s.source === "agent");
    assertEquals(agent.map((s: { model_name: string }) => s.model_name), [atif.agent.model_name]);
    ids.push(atif.session_id);
  }
  assert(ids[0] !== ids[1], `one session id for two runs: ${ids[0]}`);
});
