/**
 * claudius at a real terminal: the CLI runs in a tmux pseudo-terminal against the loopback server;
 * the test types at the prompts and presses Ctrl-C (a real SIGINT through the terminal), then checks
 * the screen and the saved trajectory (for upstream's scenarios: upstream's messages, byte for byte).
 */
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { type FakeServer, startFakeServer } from "../../_support/fake_server.ts";
import { golden, normalise, scenarios } from "../../_support/interactive.ts";
import { Pty } from "../../_support/pty.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import type { Message } from "../../../src/core/types.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const CONFORMANCE = new URL("../../testdata/conformance/", import.meta.url).pathname;
/** An entry is awaited at an empty prompt line: `> `, or a limit question. */
const PROMPT = /^(>|New step limit:|New cost limit:|.*\[y\/N\])(?=[ ]*$)/m;

interface Run {
  pty: Pty;
  server: FakeServer;
  dir: string;
  cwd: string;
  traj: string;
  /** Resolves when request `i` (0-based) has arrived. */
  request(i: number): Promise<void>;
}

async function start(
  replies: ScriptReply[],
  args: string[],
  options: { env?: Record<string, string>; stream?: number; delayFirst?: number } = {},
): Promise<Run> {
  const arrived: (() => void)[] = [];
  const waits = replies.map((_, i) => new Promise<void>((resolve) => (arrived[i] = resolve)));
  const server = await startFakeServer(replies, {
    onRequest: async (_, i) => {
      arrived[i]?.();
      if (i === 0 && options.delayFirst) await new Promise((r) => setTimeout(r, options.delayFirst));
    },
    ...(options.stream ? { streamDelayMs: options.stream } : {}),
  });
  const dir = await Deno.makeTempDir();
  const cwd = `${dir}/ws`;
  await Deno.mkdir(cwd);
  const traj = `${dir}/t.json`;
  const pty = await Pty.start(
    [
      Deno.execPath(),
      "run",
      "-A",
      MAIN,
      "-m",
      "test-model",
      "--base-url",
      server.url,
      "--create-cwd",
      "--cwd",
      cwd,
      "-o",
      traj,
      ...args,
    ],
    { cwd: dir, env: { XDG_CONFIG_HOME: `${dir}/config`, NO_COLOR: "1", ...options.env } },
  );
  return { pty, server, dir, cwd, traj, request: (i) => waits[i]! };
}

async function stop(run: Run): Promise<void> {
  await run.pty.close();
  await run.server.close();
}

async function answer(pty: Pty, input: string, prompt: RegExp | string = PROMPT): Promise<void> {
  await pty.waitFor(prompt);
  if (input === "<C-c>") return await pty.press("C-c");
  const [first, ...more] = input.split("\n");
  if (first) await pty.type(first);
  for (const line of more) {
    await pty.press("Enter");
    if (line) await pty.type(line);
  }
  await pty.press(...(more.length ? ["Escape", "Enter"] : ["Enter"]));
}

async function fileAppears(path: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await Deno.stat(path).then(() => true, () => false)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${path} never appeared`);
}

async function trajectory(run: Run) {
  return JSON.parse(await Deno.readTextFile(run.traj));
}

for (const name of ["confirm", "interrupts", "limits", "text", "yolo_toolcall", "yolo_text"]) {
  Deno.test(`claudius at a terminal plays upstream's '${name}' scenario: screen and trajectory`, async () => {
    const scenario = (await scenarios()).find((s) => s.name === name)!;
    const expected = await golden(name);
    const overrides = Object.entries(scenario.agent).map(([k, v]) => `agent.${k}=${JSON.stringify(v)}`);
    const run = await start(scenario.replies!, [
      "--task",
      expected.task,
      "--model-class",
      scenario.model_class,
      "-c",
      scenario.config,
      "-c",
      `environment.timeout=${scenario.timeout ?? 10}`,
      ...overrides.flatMap((o) => ["-c", o]),
      "--agent-class",
      "interactive",
    ]);
    try {
      // Ctrl-C while a command runs (it touches `started` first) or while the model is asked (a stall).
      const before: Record<number, () => Promise<void>> = name === "interrupts"
        ? {
          0: async () => (await fileAppears(`${run.cwd}/started`), await run.pty.press("C-c")),
          1: async () => (await run.request(1), await run.pty.press("C-c")),
          2: async () => (await run.request(3), await run.pty.press("C-c")),
        }
        : {};
      for (const [i, input] of scenario.inputs.entries()) {
        await before[i]?.();
        await answer(run.pty, input);
      }
      assertEquals(await run.pty.exitCode(), 0, await run.pty.screen());
      const screen = await run.pty.screen();
      for (const [kind, text] of expected.transcript) {
        if (kind !== "ui") continue;
        for (const line of text.split("\n").filter((l) => l.trim())) {
          assert(screen.includes(line.trimEnd()), `screen lacks ${JSON.stringify(line)}`);
        }
      }
      const traj = await trajectory(run);
      assertEquals(await normalise(traj.messages, run.cwd), expected.messages);
      const requests = await normalise(run.server.requests.map((r) => r.body), run.cwd);
      assertEquals(requests, expected.requests);
      if (name.startsWith("yolo_")) {
        // The headless conformance goldens: yolo at a terminal sends exactly what a headless run sends.
        const conformance = JSON.parse(await Deno.readTextFile(`${CONFORMANCE}${name.slice(5)}_golden.json`));
        assertEquals(requests, conformance.requests);
      }
    } finally {
      await stop(run);
    }
  });
}

Deno.test("claudius at a terminal: two Ctrl-C in a row during a command end the run (130), trajectory saved", async () => {
  const run = await start([{ content: "Sleep.", commands: ["touch started; sleep 30"] }], [
    "--task",
    "t",
    "--agent-class",
    "interactive",
    "-y",
  ]);
  try {
    await fileAppears(`${run.cwd}/started`);
    await run.pty.press("C-c");
    // Two signals sent together may be delivered as one (signals are not queued): a person's second
    // press comes a moment later, at the comment prompt or while the command is being stopped.
    await new Promise((r) => setTimeout(r, 150));
    await run.pty.press("C-c");
    assertEquals(await run.pty.exitCode(), 130);
    const traj = await trajectory(run);
    assertEquals(traj.info.exit_status, "Interrupted");
  } finally {
    await stop(run);
  }
});

Deno.test("claudius at a terminal asks for the task (multi-line), and Ctrl-D at a prompt ends the run", async () => {
  const run = await start([{ content: "Hi.", commands: ["echo hi"] }], ["-c", "agent.mode=confirm"]);
  try {
    await answer(run.pty, "Fix the bug\nin parser.py", "What do you want to do?");
    await run.pty.waitFor("Got that, thanks!");
    await run.pty.waitFor("Execute 1 action(s)?");
    await run.pty.press("C-d");
    await run.pty.waitFor("End of input: ending the run.");
    assertEquals(await run.pty.exitCode(), 130);
    const traj = await trajectory(run);
    assertEquals(traj.info.exit_status, "Interrupted");
    assertMatch(traj.messages[1].content, /Fix the bug\nin parser\.py/);
    assertEquals(
      traj.messages.filter((m: Message) => m.role === "tool").length,
      1,
      "the command was not run",
    );
    assertEquals(traj.info.config.agent_type, "claudius.agents.InteractiveAgent");
  } finally {
    await stop(run);
  }
});

Deno.test("claudius at a terminal: arrow keys recall earlier entries, also from an earlier run", async () => {
  const replies: ScriptReply[] = [];
  const first = await start(replies, ["--task", "t", "-c", "agent.mode=human", "--exit-immediately"]);
  try {
    await answer(first.pty, "echo first entry");
    await answer(first.pty, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT");
    assertEquals(await first.pty.exitCode(), 0);
  } finally {
    await stop(first);
  }
  const history = await Deno.readTextFile(`${first.dir}/config/claudius/history.jsonl`);
  assertEquals(history, '"echo first entry"\n"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"\n');
  const second = await start(replies, ["--task", "t", "-c", "agent.mode=human", "--exit-immediately"], {
    env: { XDG_CONFIG_HOME: `${first.dir}/config` },
  });
  try {
    await second.pty.waitFor(PROMPT);
    await second.pty.press("Up", "Up");
    await second.pty.waitForLine(/^> echo first entry\s*$/);
    await second.pty.press("Enter");
    await second.pty.waitFor(PROMPT);
    // History is now: first entry, COMPLETE..., first entry (again).
    await second.pty.press("Up", "Up", "Up", "Down");
    await second.pty.waitForLine(/^> echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\s*$/);
    await second.pty.press("Enter");
    assertEquals(await second.pty.exitCode(), 0);
    const traj = await trajectory(second);
    const commands = traj.messages.filter((m: Message) =>
      m.role === "user" && m.extra && "actions" in m.extra
    );
    assertEquals(commands.map((m: Message) => m.content), [
      "User command: \n```bash\necho first entry\n```",
      "User command: \n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
    ]);
  } finally {
    await stop(second);
  }
});

Deno.test("claudius at a terminal: the dangerous-command gate asks y/n in yolo mode", async () => {
  const run = await start([
    { content: "Risky.", commands: ["touch danger"] },
    { content: "Again.", commands: ["touch danger"] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ], [
    "--task",
    "t",
    "--agent-class",
    "interactive",
    "-y",
    "--exit-immediately",
    "-c",
    'agent.confirm_dangerous=["touch\\\\s+danger"]',
  ]);
  try {
    await run.pty.waitFor('This command matches agent.confirm_dangerous "touch\\\\s+danger":');
    await answer(run.pty, "n");
    await run.pty.waitFor("Run it?");
    await answer(run.pty, "y");
    assertEquals(await run.pty.exitCode(), 0);
    const tools = (await trajectory(run)).messages.filter((m: Message) => m.role === "tool");
    assertMatch(tools[0].extra.exception_info, /and the user declined it\.$/);
    assertEquals(tools[1].extra.returncode, 0);
    await Deno.stat(`${run.cwd}/danger`);
  } finally {
    await stop(run);
  }
});

Deno.test("claudius --task at a terminal: the dangerous-command gate asks y/n for the default agent too", async () => {
  const run = await start([
    { content: "Risky.", commands: ["touch danger"] },
    { content: "Again.", commands: ["touch danger"] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ], ["--task", "t", "-c", 'agent.confirm_dangerous=["touch\\\\s+danger"]']);
  try {
    await run.pty.waitFor('This command matches agent.confirm_dangerous "touch\\\\s+danger":');
    await answer(run.pty, "n");
    await run.pty.waitFor("Run it?");
    await answer(run.pty, "y");
    assertEquals(await run.pty.exitCode(), 0);
    const traj = await trajectory(run);
    assertEquals(traj.info.config.agent_type, "claudius.agent.DefaultAgent");
    const tools = traj.messages.filter((m: Message) => m.role === "tool");
    assertMatch(tools[0].extra.exception_info, /and the user declined it\.$/);
    assertEquals(tools[1].extra.returncode, 0);
    await Deno.stat(`${run.cwd}/danger`);
  } finally {
    await stop(run);
  }
});

Deno.test("claudius at a terminal streams the reply as it arrives, with a spinner while waiting", async () => {
  const long = "Streaming this reply in small pieces so that it takes a while to arrive.";
  const run = await start(
    [{
      content: long,
      commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"],
      cost: 0.5,
    }],
    [
      "--task",
      "t",
      "--agent-class",
      "interactive",
      "-y",
      "--exit-immediately",
      "-c",
      "model.stream=true",
    ],
    { stream: 120, delayFirst: 1200 },
  );
  try {
    await run.pty.waitFor(/Waiting for the model \d+\.\d s/, { consume: false });
    await run.pty.waitFor("claudius (step 1, $0.00):\nStreaming");
    const partial = await run.pty.screen();
    assert(!partial.includes("to arrive."), "the whole reply was shown at once");
    await run.pty.waitFor("to arrive.");
    assertEquals(await run.pty.exitCode(), 0);
    const traj = await trajectory(run);
    assertEquals(traj.messages[2].content, long);
    assertEquals(traj.messages[2].extra.response.object, "chat.completion");
    assertEquals(traj.info.model_stats.instance_cost, 0.5);
  } finally {
    await stop(run);
  }
});

Deno.test("claudius at a terminal folds long outputs on screen only; colour unless NO_COLOR", async () => {
  const replies: ScriptReply[] = [
    { content: "Long.", commands: ["seq 1 500"] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ];
  const run = await start(replies, [
    "--task",
    "t",
    "--agent-class",
    "interactive",
    "-y",
    "--exit-immediately",
  ], { env: { NO_COLOR: "" } });
  try {
    assertEquals(await run.pty.exitCode(), 0);
    const screen = await run.pty.screen();
    assertMatch(screen, /… \d+ lines folded \(on screen only: the model sees everything\) …/);
    assert(!screen.includes("\n250\n"));
    const traj = await trajectory(run);
    assertEquals(traj.messages[3].extra.raw_output.split("\n").length, 501);
    assert((await run.pty.screen({ colors: true })).includes("\x1b["), "no colour at a terminal");
  } finally {
    await stop(run);
  }
  const plain = await start(replies, [
    "--task",
    "t",
    "--agent-class",
    "interactive",
    "-y",
    "--exit-immediately",
  ], { env: { NO_COLOR: "1" } });
  try {
    assertEquals(await plain.pty.exitCode(), 0);
    assert(!(await plain.pty.screen({ colors: true })).includes("\x1b["), "colour despite NO_COLOR");
  } finally {
    await stop(plain);
  }
});

Deno.test("claudius at a terminal: a bad new limit asks again, a good one lets the run go on", async () => {
  const run = await start([
    { content: "One.", commands: ["echo one"], cost: 0.25 },
    { content: "Two.", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"], cost: 0.25 },
  ], [
    "--task",
    "t",
    "--agent-class",
    "interactive",
    "-y",
    "--exit-immediately",
    "--step-limit",
    "1",
    "-l",
    "1",
  ]);
  try {
    await run.pty.waitFor("Limits exceeded. Limits: 1 steps, $1.0.\nCurrent spend: 1 steps, $0.25.");
    await answer(run.pty, "two");
    await run.pty.waitFor('Not a whole number >= 0: "two". (Enter alone ends the run.)');
    await answer(run.pty, "1");
    await run.pty.waitFor("1 steps already used: enter more than that, or 0 for no limit.");
    await answer(run.pty, "5");
    await answer(run.pty, "0");
    assertEquals(await run.pty.exitCode(), 0);
    const traj = await trajectory(run);
    assertEquals([traj.info.config.agent.step_limit, traj.info.config.agent.cost_limit], [5, 0]);
    assertEquals(traj.info.exit_status, "Submitted");
  } finally {
    await stop(run);
  }
});

Deno.test("claudius at a terminal: the planning mechanism asks its questions at the prompt", async () => {
  const run = await start([
    { content: "PLAN" },
    { content: "1. look\n2. fix" },
    { content: "1. look\n2. fix\n3. test\nPLAN_FINISHED" },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ], [
    "--task",
    "t",
    "-y",
    "--agent-class",
    "interactive",
    "--exit-immediately",
    "-c",
    "mechanisms.planning.enabled=true",
  ]);
  try {
    await run.pty.waitFor("2. fix");
    await answer(run.pty, "add a test step");
    assertEquals(await run.pty.exitCode(), 0);
    const traj = await trajectory(run);
    const feedback = traj.messages.find((m: Message) => m.extra?.user_feedback);
    assertEquals(feedback?.content, "add a test step");
  } finally {
    await stop(run);
  }
});
