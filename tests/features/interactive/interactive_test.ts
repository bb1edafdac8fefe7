/**
 * The interactive agent against upstream's: each scenario of tests/testdata/interactive/ is played
 * with the same replies (the loopback server) and the same typed inputs, through the real loop, model
 * client and bash; the prompts and notices shown, the messages recorded and the requests sent must be
 * upstream's, byte for byte. Ctrl-C is the latch `main.ts` fires on SIGINT.
 */
import { assert, assertEquals, assertRejects } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { dialogue, golden, normalise, type Scenario, scenarios } from "../../_support/interactive.ts";
import { loadConfig } from "../../../src/core/config/load.ts";
import { Screen, type ScreenOutput, type StepInfo } from "../../../src/features/interactive/screen.ts";
import { plain } from "../../../src/lib/term/markup.ts";
import {
  EndOfInput,
  Interrupts,
  KeyboardInterrupt,
  type Prompter,
} from "../../../src/features/interactive/user_io.ts";
import type { InteractiveIO } from "../../../src/features/interactive/interactive.ts";
import type { Message } from "../../../src/core/types.ts";
import { isFault } from "../../../src/core/models/extra/_script.ts";
import { configIO, episodeDeps, runWithFeatures } from "../../_support/episode.ts";

/** A screen that records what is said and shown (no terminal). */
class RecordingScreen extends Screen {
  readonly events: [string, string][] = [];
  readonly shown: Message[] = [];
  onMessage: (m: Message) => void = () => {};
  constructor() {
    const out: ScreenOutput = { write: () => {}, color: false, live: false, columns: () => 80 };
    super(out);
  }
  override say(markup: string): void {
    this.events.push(["ui", plain(markup)]);
    super.say(markup);
  }
  override message(message: Message, at: StepInfo): void {
    this.shown.push(message);
    this.onMessage(message);
    super.message(message, at);
  }
}

/** Types the scenario's inputs, one per read ("<C-c>" is Ctrl-C at the prompt). */
class ScriptedInput implements Prompter {
  readonly canAsk = true;
  constructor(readonly inputs: string[], readonly events: [string, string][]) {}
  read(): Promise<string> {
    const text = this.inputs.shift();
    if (text === undefined) return Promise.reject(new EndOfInput());
    this.events.push(["in", text]);
    return text === "<C-c>" ? Promise.reject(new KeyboardInterrupt()) : Promise.resolve(text);
  }
}

async function play(scenario: Scenario, inputs = scenario.inputs) {
  const replies = scenario.replies!;
  const interrupts = new Interrupts();
  const server = await startFakeServer(replies, {
    onRequest: (_, i) => {
      const reply = replies[i];
      if (reply && isFault(reply) && reply.fault === "stall") setTimeout(() => interrupts.fire(), 100);
    },
  });
  const dir = await Deno.makeTempDir();
  const cwd = `${dir}/ws`;
  await Deno.mkdir(cwd);
  const screen = new RecordingScreen();
  screen.onMessage = (m) => {
    const sleeping = m.role === "assistant" &&
      (m.extra.actions ?? []).some((a) => a.command.includes("sleep 7"));
    if (!sleeping) return;
    const poll = setInterval(() => {
      try {
        Deno.statSync(`${cwd}/started`);
      } catch {
        return;
      }
      clearInterval(poll);
      interrupts.fire();
    }, 20);
  };
  const input = new ScriptedInput([...inputs], screen.events);
  const io: InteractiveIO = { screen, input, interrupts };
  try {
    const { config } = await loadConfig(
      [scenario.config],
      configIO(),
      () => {},
      {
        overrides: {
          agent: { ...scenario.agent, agent_class: "interactive" },
          model: { model_class: scenario.model_class, model_name: "test-model", base_url: server.url },
          environment: { cwd, timeout: scenario.timeout ?? 10 },
        },
      },
    );
    const outputPath = `${dir}/t.json`;
    const { result, agent } = await runWithFeatures(
      config,
      { task: "Fix the failing test in this repository.", outputPath },
      episodeDeps({ cwd: dir }),
      { interactive: { io } },
    );
    const traj = JSON.parse(await Deno.readTextFile(outputPath));
    return {
      result,
      agent,
      traj,
      left: input.inputs,
      events: screen.events,
      shown: screen.shown,
      messages: await normalise(traj.messages, cwd),
      requests: await normalise(server.requests.map((r) => r.body), cwd),
    };
  } finally {
    await server.close();
  }
}

for (const scenario of await scenarios()) {
  Deno.test(`InteractiveAgent matches upstream's prompts, messages and requests (${scenario.name})`, async () => {
    const expected = await golden(scenario.name);
    const got = await play(scenario);
    assertEquals(got.left, [], "every input was read");
    assertEquals(dialogue(got.events), dialogue(expected.transcript));
    assertEquals(got.messages, expected.messages);
    assertEquals(got.requests, expected.requests);
    assertEquals(got.result, expected.result);
    const config = got.traj.info.config.agent;
    for (const [key, value] of Object.entries(expected.final_agent_config)) {
      assertEquals(config[key], value, key);
    }
    assertEquals(got.traj.info.config.agent_type, "claudius.agents.InteractiveAgent");
    assertEquals(got.shown.length, got.traj.messages.length, "every message was shown");
  });
}

Deno.test("InteractiveAgent: the end of input at a prompt ends the run as Interrupted, trajectory saved", async () => {
  const confirm = (await scenarios()).find((s) => s.name === "confirm")!;
  const got = await play(confirm, ["/h"]);
  assertEquals(got.result.exit_status, "Interrupted");
  assertEquals(got.traj.info.exit_status, "Interrupted");
  assert(got.events.some(([k, t]) => k === "ui" && t.includes("End of input: ending the run.")));
});

Deno.test("InteractiveAgent: Ctrl-C at the 'Interrupted.' prompt ends the run as Interrupted", async () => {
  const interrupts = (await scenarios()).find((s) => s.name === "interrupts")!;
  const got = await play(interrupts, ["<C-c>"]);
  assertEquals(got.result.exit_status, "Interrupted");
  const last = got.traj.messages.at(-2);
  assertEquals(last.role, "tool");
  assertEquals(last.extra.exception_info, "action was not executed");
});

Deno.test("InteractiveAgent: a bad new limit asks again; Enter alone ends the run at the limit", async () => {
  const limits = (await scenarios()).find((s) => s.name === "limits")!;
  const got = await play(limits, ["three", "1", "2.5", "3", "abc", "0.25", "0.5", ""]);
  const said = got.events.filter(([k]) => k === "ui").map(([, t]) => t).join("");
  for (
    const part of [
      'Not a whole number >= 0: "three".',
      "1 steps already used: enter more than that, or 0 for no limit.",
      "The step limit must be a whole number, got 2.5.",
      'Not a number >= 0: "abc".',
      "$0.25 already used: enter more than that, or 0 for no limit.",
    ]
  ) assert(said.includes(part), `${part} in ${said}`);
  assertEquals(got.traj.info.config.agent.step_limit, 3);
  assertEquals(got.traj.info.config.agent.cost_limit, 0.5);
  assertEquals(got.result.exit_status, "Submitted");

  const ended = await play(limits, [""]);
  assertEquals(ended.result.exit_status, "LimitsExceeded");
  assertEquals(ended.traj.info.config.agent.step_limit, 1);
});

Deno.test("InteractiveAgent refuses a whitelist pattern JavaScript cannot compile, naming the key", async () => {
  const confirm = (await scenarios()).find((s) => s.name === "confirm")!;
  await assertRejects(
    () => play({ ...confirm, agent: { ...confirm.agent, whitelist_actions: ["(?<!x"] } }),
    Error,
    "agent.whitelist_actions",
  );
});

Deno.test("InteractiveAgent: the dangerous-command gate asks y/n even in yolo mode, not for human commands", async () => {
  const scenario: Scenario = {
    name: "gate",
    config: "default",
    model_class: "openrouter",
    agent: { mode: "yolo", confirm_dangerous: ["DANGER"], confirm_exit: false },
    replies: [
      { content: "Risky.", commands: ["echo DANGER > refused.txt", "echo safe"], cost: 0.01 },
      { content: "Again.", commands: ["echo DANGER > allowed.txt"], cost: 0.01 },
      { content: "Done.", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"], cost: 0.01 },
    ],
    inputs: ["n", "y"],
  };
  const got = await play(scenario);
  assertEquals(got.left, []);
  const said = got.events.filter(([k]) => k === "ui").map(([, t]) => t);
  assertEquals(said.filter((t) => t.includes("Run it?")).length, 2);
  assert(
    said[0]!.startsWith(
      'This command matches agent.confirm_dangerous "DANGER":\necho DANGER > refused.txt\n',
    ),
  );
  const tools = got.traj.messages.filter((m: Message) => m.role === "tool");
  assertEquals(tools[0].extra.returncode, -1);
  assertEquals(
    tools[0].extra.exception_info,
    'This command was not run: it matches the agent.confirm_dangerous pattern "DANGER" and the user declined it.',
  );
  assertEquals(tools[1].extra.raw_output, "safe\n");
  assertEquals(tools[2].extra.returncode, 0);
  assertEquals(got.result.exit_status, "Submitted");

  const human = await play({ ...scenario, agent: { ...scenario.agent, mode: "human" }, replies: [] }, [
    "echo DANGER > typed.txt",
    "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
  ]);
  assertEquals(human.events.filter(([k, t]) => k === "ui" && t.includes("Run it?")).length, 0);
  const observed = human.traj.messages.filter((m: Message) =>
    m.role === "user" && m.extra && "returncode" in m.extra
  );
  assertEquals(observed[0].extra.returncode, 0);
  assertEquals(human.result.exit_status, "Submitted");
});
