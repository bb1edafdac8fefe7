/**
 * Routing and planning with the scripted model, real bash and an injected `ask` (as the
 * interactive terminal supplies it).
 */
import { assertEquals, assertMatch } from "../../_support/assert.ts";
import { brief, requestMessages, setup } from "../../_support/mechanisms.ts";

const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

Deno.test("planning: a routing side call, then plan rounds with the user until the marker, then the loop", async () => {
  const questions: string[] = [];
  const answers = ["Also add tests.", "Fine, go."];
  const { client, run, saved, agent } = await setup(
    [
      { content: "PLAN" },
      { content: "1. Write the code." },
      { content: "1. Write the code.\n2. Add tests." },
      { content: "1. Write the code.\n2. Add tests.\nPLAN_FINISHED" },
      { commands: [SUBMIT] },
    ],
    { planning: { enabled: true } },
    { ask: (q) => (questions.push(q), Promise.resolve(answers.shift() ?? null)) },
  );
  assertEquals((await run()).exit_status, "Submitted");
  const requests = requestMessages(client);
  // The classification call sees the system prompt and its question only.
  assertEquals(requests[0]!.length, 2);
  assertMatch(String(requests[0]![1]!.content), /^Before any work starts, decide how to approach this task:/);
  assertEquals(questions, [
    "1. Write the code.\n\nAccept this plan? Press Enter to accept it, or type what to change:",
    "1. Write the code.\n2. Add tests.\n\nAccept this plan? Press Enter to accept it, or type what to change:",
  ]);
  // The loop's first request: the task, the planning conversation, no routing.
  assertEquals(
    brief(requests[4]!).map(([role, c]) => `${role}: ${typeof c === "string" ? c.split("\n")[0] : c}`),
    [
      "system: You are a test.",
      "user: Task: do it",
      "user: Propose a plan for this task: the steps you will take, in order, and how you will check the result. Run no command yet. The user will review it; once the user accepts it, reply with the final plan followed by the line PLAN_FINISHED.",
      "assistant: 1. Write the code.",
      "user: Also add tests.",
      "assistant: 1. Write the code.",
      "user: Fine, go.",
      "assistant: 1. Write the code.",
      "user: The plan is agreed. Carry it out now.",
    ],
  );
  assertEquals(agent.nCalls, 5);
  const traj = await saved();
  assertEquals(traj.messages.filter((m) => m.extra?.side_call === "routing").map((m) => m.role), [
    "user",
    "assistant",
  ]);
  assertEquals(traj.info.mechanisms, { planning: { decision: "plan", rounds: 3, ended: "marker" } });
});

Deno.test("planning: DIRECT skips the plan; an empty answer accepts a plan", async () => {
  const direct = await setup(
    [{ content: "DIRECT" }, { commands: [SUBMIT] }],
    { planning: { enabled: true } },
    {
      ask: () => Promise.reject(new Error("not asked")),
    },
  );
  await direct.run();
  assertEquals(brief(requestMessages(direct.client)[1]!), [["system", "You are a test."], [
    "user",
    "Task: do it",
  ]]);
  assertEquals((await direct.saved()).info.mechanisms, { planning: { decision: "direct" } });

  const accepted = await setup(
    [{ content: "I think a PLAN is needed." }, { content: "1. Do it." }, { commands: [SUBMIT] }],
    { planning: { enabled: true } },
    { ask: () => Promise.resolve("") },
  );
  await accepted.run();
  assertEquals((await accepted.saved()).info.mechanisms, {
    planning: { decision: "plan", rounds: 1, ended: "accepted" },
  });
});

Deno.test("planning: headless (no ask) makes no call at all", async () => {
  const { client, run, saved } = await setup([{ commands: [SUBMIT] }], { planning: { enabled: true } });
  await run();
  assertEquals(client.requests.length, 1);
  assertEquals((await saved()).info.mechanisms, { planning: { skipped: "no user to ask (headless)" } });
});
