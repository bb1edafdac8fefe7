/**
 * The loop's semantics (SPEC section 1), with real parts: the scripted client, the real model
 * layer, and real bash through the local environment. The clock is injected.
 */
import { assert, assertEquals, assertRejects } from "../_support/assert.ts";
import { DefaultAgent } from "../../src/core/agent.ts";
import { checkSubmission } from "../../src/core/submission.ts";
import type { AgentConfig } from "../../src/core/agent.ts";
import { CHAT_MODEL_KEYS, ChatModel } from "../../src/core/models/model.ts";
import { compileActionRegex } from "../../src/core/models/extra/_action_regex.ts";
import { ScriptedClient } from "../../src/core/models/extra/scripted.ts";
import { LocalEnvironment } from "../../src/core/environments/local.ts";
import { Submitted } from "../../src/core/errors.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import type { Environment, ExecOutput, Message, Model } from "../../src/core/types.ts";
import * as PYREGEX from "../../src/lib/python/pyregex/pyregex.ts";

const AGENT: AgentConfig = {
  system_template: "You are a test. Limit {{step_limit}}.",
  instance_template: "Task: {{task}} on {{system}}",
  step_limit: 0,
  cost_limit: 0,
  wall_time_limit_seconds: 0,
  max_consecutive_format_errors: 3,
  output_path: null,
};

async function setup(
  replies: ScriptReply[],
  agent: Partial<AgentConfig> = {},
  text = false,
  now?: () => number,
) {
  const cwd = await Deno.makeTempDir();
  const env = new LocalEnvironment({ cwd, env: {}, timeout: 10, interpreter: ["bash", "-c"] }, {
    PATH: Deno.env.get("PATH")!,
  });
  await env.start();
  const client = new ScriptedClient(replies, { model_name: "scripted" });
  const model = new ChatModel(
    {},
    client,
    text ? "text" : "toolcall",
    "test",
    text ? compileActionRegex(CHAT_MODEL_KEYS.action_regex.default, PYREGEX) : undefined,
  );
  const saves: number[] = [];
  const a = new DefaultAgent({ ...AGENT, ...agent }, model, env, {
    save: (x) => Promise.resolve(void saves.push(x.messages.length)),
    ...(now ? { now } : {}),
  });
  return { agent: a, client, env, saves, cwd };
}

const roles = (ms: readonly Message[]) => ms.map((m) => m.role);

Deno.test("DefaultAgent.run() renders both templates, runs every tool call in order, submits", async () => {
  const { agent, saves, env } = await setup([
    { content: "first", commands: ["echo one > f", "cat f; echo two"] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; printf 'line1\\r\\nline2'"] },
  ]);
  const result = await agent.run("do it");
  await env.close();
  assertEquals(result, { exit_status: "Submitted", submission: "line1\nline2" });
  assertEquals(roles(agent.messages), ["system", "user", "assistant", "tool", "tool", "assistant", "exit"]);
  assertEquals(agent.messages[0]!.content, "You are a test. Limit 0.");
  assertEquals(agent.messages[1]!.content, "Task: do it on Linux");
  assertEquals(agent.messages[4]!.content, "<returncode>0</returncode>\n<output>\none\ntwo\n</output>");
  assertEquals(agent.messages[6]!.content, "line1\nline2");
  // Saved after each reply (before its commands run) and after every step.
  assertEquals(saves, [3, 5, 6, 7]);
  assertEquals(agent.nCalls, 2);
});

Deno.test("DefaultAgent.run() skips the actions after a submission in the same turn", async () => {
  const { agent, cwd } = await setup([
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "touch after"] },
  ]);
  const result = await agent.run("t");
  assertEquals(result.exit_status, "Submitted");
  assertEquals(roles(agent.messages), ["system", "user", "assistant", "exit"]);
  assertEquals(await Deno.stat(`${cwd}/after`).then(() => true, () => false), false);
});

Deno.test("checkSubmission() needs the sentinel as the first line and exit code 0", () => {
  const out = (output: string, returncode = 0): ExecOutput => ({ output, returncode, exception_info: "" });
  let e: unknown;
  try {
    checkSubmission(out("  \n COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT  \nkeep\r\n  this\n"));
  } catch (err) {
    e = err;
  }
  assert(e instanceof Submitted);
  assertEquals(e.messages[0]!.extra?.submission, "keep\r\n  this\n");
  checkSubmission(out("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n", 1));
  checkSubmission(out("x\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n"));
  checkSubmission(out("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT_NOT"));
});

Deno.test("DefaultAgent counts calls before querying and bills format errors against the cost limit", async () => {
  const { agent } = await setup([
    { content: "no tool call", cost: 0.6 },
    { commands: ["true"], cost: 0.6 },
    { commands: ["true"], cost: 0.6 },
  ], { cost_limit: 1.2 });
  const result = await agent.run("t");
  assertEquals(result.exit_status, "LimitsExceeded");
  assertEquals(agent.nCalls, 2, "the format error's cost counted: 1.2 reached after two calls");
  assertEquals(roles(agent.messages), ["system", "user", "user", "assistant", "tool", "exit"]);
  assertEquals(agent.messages[2]!.extra?.cost, 0.6);
  assertEquals(agent.messages[2]!.extra?.interrupt_type, "FormatError");
});

Deno.test("DefaultAgent resets the format-error count after a clean step and stops at the cap", async () => {
  const { agent } = await setup([
    { content: "a" },
    { content: "b" },
    { commands: ["true"] },
    { content: "c" },
    { content: "d" },
    { content: "e" },
  ]);
  const result = await agent.run("t");
  assertEquals(result.exit_status, "RepeatedFormatError");
  assertEquals(agent.nCalls, 6);
  assertEquals(
    agent.messages.at(-2)!.content,
    "No tool calls found in the response. Every response MUST include at least one tool call.",
  );
});

Deno.test("DefaultAgent checks the step limit before the wall-clock limit", async () => {
  let t = 0;
  const { agent } = await setup(
    [{ commands: ["true"] }, { commands: ["true"] }],
    {
      step_limit: 1,
      wall_time_limit_seconds: 5,
    },
    false,
    () => t,
  );
  t = 0;
  const p = agent.run("t");
  t = 10_000;
  assertEquals((await p).exit_status, "LimitsExceeded");
  // int(4.999 s) = 4 lets the second query run; 5.0 s stops the third.
  let calls = () => 0;
  const timed = await setup(
    [{ commands: ["true"] }, { commands: ["true"] }],
    { wall_time_limit_seconds: 5 },
    false,
    () => calls() === 0 ? 0 : calls() === 1 ? 4_999 : 5_000,
  );
  calls = () => timed.agent.nCalls;
  const r = await timed.agent.run("t");
  assertEquals(timed.agent.nCalls, 2);
  assertEquals(r.exit_status, "TimeExceeded");
});

Deno.test("DefaultAgent in text mode needs exactly one block and renders the format error", async () => {
  const block = (c: string) => "```mswea_bash_command\n" + c + "\n```";
  const { agent } = await setup(
    [
      { content: `${block("echo a")}\n${block("echo b")}` },
      { content: `THOUGHT\n${block("  echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT  ")}` },
    ],
    {},
    true,
  );
  const result = await agent.run("t");
  assertEquals(result.exit_status, "Submitted");
  assertEquals(roles(agent.messages), ["system", "user", "user", "assistant", "exit"]);
  assertEquals(
    agent.messages[2]!.content,
    "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
  );
  assertEquals(agent.messages[2]!.extra?.n_actions, 2);
  assertEquals(agent.messages[3]!.extra?.actions, [{
    command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
  }]);
});

Deno.test("DefaultAgent records an unexpected error as the exit message, saves, then rethrows", async () => {
  const { agent, saves } = await setup([{ commands: ["true"] }]);
  await assertRejects(() => agent.run("t"), Error, "Cannot query scripted model");
  const exit = agent.messages.at(-1)!;
  assertEquals(exit.role, "exit");
  assertEquals(exit.extra?.exit_status, "Error");
  assert(String(exit.extra?.traceback).includes("Cannot query scripted model"));
  assertEquals(saves.at(-1), agent.messages.length);
});

Deno.test("DefaultAgent accepts an empty action list (no observation) and goes on", async () => {
  let calls = 0;
  const model: Model = {
    config: {},
    type: "empty",
    query: () => {
      calls++;
      return Promise.resolve({
        role: "assistant",
        content: "thinking",
        extra: { actions: calls < 3 ? [] : [{ command: "x" }], response: {}, cost: 0, timestamp: 0 },
      });
    },
    formatObservations: () => [],
    templateVars: () => ({}),
  };
  const env: Environment = {
    config: {},
    type: "fake",
    start: () => Promise.resolve(),
    execute: () =>
      Promise.resolve({
        output: "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n",
        returncode: 0,
        exception_info: "",
      }),
    templateVars: () => ({}),
    close: () => Promise.resolve(),
  };
  const agent = new DefaultAgent({ ...AGENT, system_template: "s", instance_template: "u" }, model, env);
  assertEquals((await agent.run("t")).exit_status, "Submitted");
  assertEquals(roles(agent.messages), ["system", "user", "assistant", "assistant", "assistant", "exit"]);
});

Deno.test("DefaultAgent names the template whose variable is undefined", async () => {
  const { agent } = await setup([{ commands: ["true"] }], { instance_template: "Task: {{ tsak }}" });
  await assertRejects(
    () => agent.run("t"),
    Error,
    "Cannot render agent.instance_template: 'tsak' is undefined",
  );
});
