/**
 * The interactive CLI without a terminal (stdin not a tty): never a silent yolo, the interactive
 * agent in yolo mode sending upstream's requests, the flags, and the dangerous-command gate headless.
 * The terminal itself is tested through a real pty in tests/features/interactive/tty_test.ts.
 */
import { assert, assertEquals, assertMatch } from "./_support/assert.ts";
import { startFakeServer } from "./_support/fake_server.ts";
import { golden, normalise, scenarios } from "./_support/interactive.ts";
import type { ScriptReply } from "../src/core/models/extra/_script.ts";
import type { Message } from "../src/core/types.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const CONFORMANCE = new URL("./testdata/conformance/", import.meta.url).pathname;

async function cli(args: string[], replies: ScriptReply[] = []) {
  const server = await startFakeServer(replies);
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "-m", "test-model", "--base-url", server.url, "-o", `${dir}/t.json`, ...args],
      cwd: dir,
      env: { NO_COLOR: "1", XDG_CONFIG_HOME: `${dir}/config` },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const traj = await Deno.readTextFile(`${dir}/t.json`).then(JSON.parse, () => undefined);
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
      requests: server.requests,
      traj,
      dir,
    };
  } finally {
    await server.close();
  }
}

Deno.test("claudius refuses agent.mode confirm or human without a terminal, before any model call", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/mini.yaml`, "agent:\n  mode: confirm\n");
  const confirm = await cli(["-t", "t", "-c", "default", "-c", `${dir}/mini.yaml`], [{
    commands: ["touch ran"],
  }]);
  assertEquals(confirm.code, 2);
  assert(
    confirm.stderr.endsWith(
      `error: agent.mode is 'confirm' (set in ${dir}/mini.yaml:2) but stdin is not a terminal, so no one can ` +
        "confirm the model's commands: pass -y (agent.mode=yolo) to run without asking, or run claudius at a " +
        "terminal\nhint: run 'claudius --help' for usage\n",
    ),
    confirm.stderr,
  );
  assertEquals(confirm.requests.length, 0);
  assertEquals(confirm.traj, undefined);

  const human = await cli(["-t", "t", "-c", "agent.mode=human"]);
  assertEquals(human.code, 2);
  assertMatch(
    human.stderr,
    /^error: agent\.mode is 'human' \(set by -c 'agent\.mode=human'\) .* no one can type commands/,
  );

  const agentDefault = await cli(["-t", "t", "--agent-class", "interactive"]);
  assertEquals(agentDefault.code, 2);
  assertMatch(agentDefault.stderr, /agent\.mode is 'confirm' \(the interactive agent's default\)/);

  const yolo = await cli(["-t", "t", "-c", "default", "-c", `${dir}/mini.yaml`, "-y"], [{
    commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"],
  }]);
  assertEquals(yolo.code, 0, yolo.stderr);
  assertEquals(yolo.traj.info.config.agent.mode, "yolo");
  assertEquals(yolo.traj.info.config.agent_type, "claudius.agent.DefaultAgent");
});

Deno.test("claudius batch refuses agent.mode confirm and the interactive agent", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/tasks.jsonl`, '{"instance_id": "a", "task": "t"}\n');
  for (
    const [flag, message] of [["agent.mode=confirm", /claudius batch never asks/], [
      "agent.agent_class=interactive",
      /cannot be used in a batch/,
    ]] as const
  ) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "batch", `${dir}/tasks.jsonl`, "-o", `${dir}/out`, "-c", flag],
      stdin: "null",
      stderr: "piped",
    }).output();
    assertEquals(out.code, 2);
    assertMatch(new TextDecoder().decode(out.stderr), message);
  }
});

Deno.test("claudius --agent-class interactive -y without a terminal sends upstream's requests and records upstream's messages", async () => {
  for (const name of ["yolo_toolcall", "yolo_text"]) {
    const scenario = (await scenarios()).find((s) => s.name === name)!;
    const expected = await golden(name);
    const conformance = JSON.parse(
      await Deno.readTextFile(`${CONFORMANCE}${name.replace("yolo_", "")}_golden.json`),
    );
    const dir = await Deno.makeTempDir();
    const cwd = `${dir}/ws`;
    const r = await cli([
      "--task",
      expected.task,
      "--model-class",
      scenario.model_class,
      "-c",
      scenario.config,
      "-c",
      "environment.timeout=2",
      "--create-cwd",
      "--cwd",
      cwd,
      "--agent-class",
      "interactive",
      "--yolo",
    ], scenario.replies);
    assertEquals(r.code, 0, r.stderr);
    const requests = await normalise(r.requests.map((q) => q.body), cwd);
    assertEquals(requests, conformance.requests);
    assertEquals(requests, expected.requests);
    assertEquals(await normalise(r.traj.messages, cwd), expected.messages);
    assertEquals(r.traj.info.config.agent_type, "claudius.agents.InteractiveAgent");
    assertMatch(r.stdout, /\nclaudius \(step 1, \$0\.01\):\n/);
    assert(!r.stdout.includes("\x1b"), "no colour without a terminal");
  }
});

Deno.test("claudius -l, --exit-immediately and --environment-class set their keys", async () => {
  const r = await cli(["-t", "t", "-l", "2.5", "--exit-immediately", "--environment-class", "local", "-y"], [{
    commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"],
    cost: 0.5,
  }]);
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.traj.info.config.agent.cost_limit, 2.5);
  assertEquals(r.traj.info.config.agent.confirm_exit, false);
  assertEquals(r.traj.info.config.environment_type, "claudius.environments.LocalEnvironment");
  const clash = await cli(["-t", "t", "--env", "docker", "--environment-class", "local"]);
  assertEquals(clash.code, 2);
  assertMatch(clash.stderr, /--env and --environment-class name different values/);
  const badClass = await cli(["-t", "t", "--agent-class", "fancy"]);
  assertMatch(badClass.stderr, /--agent-class must be one of default, interactive, got 'fancy'/);
});

Deno.test("claudius headless refuses a dangerous command at once and the model is told why", async () => {
  const started = performance.now();
  const r = await cli(["-t", "t", "-c", 'agent.confirm_dangerous=["touch\\\\s+danger"]'], [
    { content: "Risky.", commands: ["touch danger", "echo still here"] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ]);
  assertEquals(r.code, 0, r.stderr);
  assert(performance.now() - started < 10_000, "no hang");
  const tools = r.traj.messages.filter((m: Message) => m.role === "tool");
  assertEquals(tools[0].extra.returncode, -1);
  assertEquals(
    tools[0].extra.exception_info,
    'This command was not run: it matches the agent.confirm_dangerous pattern "touch\\\\s+danger" and no one is at a terminal to approve it.',
  );
  assertMatch(tools[0].content, /<exception>This command was not run/);
  assertEquals(tools[1].extra.raw_output, "still here\n");
  await Deno.stat(`${r.dir}/workspace/danger`).then(() => assert(false, "the command ran"), () => {});
  // The model saw the refusal.
  const sent = r.requests[1]!.body as { messages: Message[] };
  assertMatch(String(sent.messages.at(-2)!.content), /no one is at a terminal to approve it/);
});
