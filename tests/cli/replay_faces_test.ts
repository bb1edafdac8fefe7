/**
 * `claudius replay` tells the truth about the runs users make: a trajectory of the `mini` face (`-y`,
 * and `-y --exit-immediately`: upstream's interactive agent, whose submission records the unrun action),
 * of a batch, of `mini-extra swebench`, and of resumed runs (a raised step limit, a changed template, a
 * resume of a resume) plays back with exit 0; a one-byte edit of any message, before or after a resume,
 * is caught and named. Each run talks to the loopback server.
 */
import { assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { cli, freshHome } from "../_support/upstream.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { runCommand } from "../../src/lib/process.ts";

const inCI = Boolean(Deno.env.get("CI"));
const engine = (await runCommand(["docker", "image", "inspect", "claudius-test-tiny:latest"], {
  timeoutSeconds: 30,
}).catch(() => ({ exitCode: 1 }))).exitCode === 0;

const LOOK: ScriptReply = { content: "Look.", commands: ["echo one"] };
const AGAIN: ScriptReply = { content: "Again.", commands: ["echo two", "echo three"] };
const SUBMIT: ScriptReply = { content: "Submit.", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };
const MODEL = ["-m", "openai/gpt-5-mini"];

async function served(replies: ScriptReply[], args: string[], env: Record<string, string>, face?: string) {
  const server = await startFakeServer(replies);
  try {
    return await cli([...args, "-c", `model.base_url=${server.url}`], env, face ? { face } : {});
  } finally {
    await server.close();
  }
}

async function replayed(path: string, env: Record<string, string>) {
  return await cli(["replay", path], env);
}

/** The trajectory with one character of message `index`'s content changed (one byte of the file). */
async function edited(path: string, index: number): Promise<string> {
  const data = JSON.parse(await Deno.readTextFile(path));
  const m = data.messages[index];
  const text = String(m.content);
  const at = text.search(/[a-z]/);
  m.content = `${text.slice(0, at)}${text[at] === "x" ? "y" : "x"}${text.slice(at + 1)}`;
  const out = path.replace(/\.traj\.json$/, `.edited${index}.traj.json`);
  await Deno.writeTextFile(out, JSON.stringify(data));
  return out;
}

async function assertTruthful(path: string, env: Record<string, string>, edits: number[]) {
  const r = await replayed(path, env);
  assertEquals(r.code, 0, `${path}: ${r.stderr}`);
  assertMatch(r.stdout, /: the same, byte for byte: \d+ messages/);
  for (const index of edits) {
    const bad = await replayed(await edited(path, index), env);
    // The instance message is where the task is read back from: an edit there leaves none to read.
    const [code, said] = index === 1
      ? [2, "its task cannot be read back from its message 2"]
      : [1, `differs at message ${index + 1} of \\d+ \\(\\w+\\)`];
    assertEquals(bad.code, code, `${path} edited at ${index}: ${bad.stdout}${bad.stderr}`);
    assertMatch(bad.stderr, new RegExp(said));
  }
}

Deno.test("claudius replay of mini -y runs (with and without --exit-immediately) reproduces them; an edit is caught", async () => {
  const env = { ...await freshHome(), OPENAI_API_KEY: "sk-test", CLAUDIUS_PYTHON: "" };
  const task = ["-y", "-t", "Make it work.", ...MODEL];
  const quick = await served(
    [LOOK, SUBMIT],
    [...task, "--exit-immediately", "-o", "quick.traj.json"],
    env,
    "mini",
  );
  assertEquals(quick.code, 0, quick.stderr);
  await assertTruthful(`${env.HOME}/quick.traj.json`, env, [1, 3, 5]);
  const asked = await served([LOOK, AGAIN, SUBMIT], [...task, "-o", "asked.traj.json"], env, "mini");
  assertEquals(asked.code, 0, asked.stderr);
  await assertTruthful(`${env.HOME}/asked.traj.json`, env, [4, 7]);
});

Deno.test("claudius replay of a batch instance reproduces it; an edit is caught", async () => {
  const env = { ...await freshHome(), OPENAI_API_KEY: "sk-test", CLAUDIUS_PYTHON: "" };
  await Deno.mkdir(`${env.HOME}/tasks`);
  await Deno.writeTextFile(`${env.HOME}/tasks/t1.md`, "Make it work.");
  const r = await served([LOOK, AGAIN, SUBMIT], ["batch", "tasks", "-o", "out", ...MODEL], env);
  assertEquals(r.code, 0, r.stderr);
  await assertTruthful(`${env.HOME}/out/t1/t1.traj.json`, env, [3, 6]);
});

Deno.test("claudius replay of resumed runs applies each part's own config: a raised step limit, a new template, a resume of a resume", async () => {
  const env = { ...await freshHome(), OPENAI_API_KEY: "sk-test", CLAUDIUS_PYTHON: "" };
  // The default config's observation template says how many steps are left: the step limit is in the text.
  const first = await served([LOOK], [
    "-t",
    "Make it work.",
    ...MODEL,
    "--step-limit",
    "1",
    "-o",
    "r.traj.json",
  ], env);
  assertEquals(first.code, 3, first.stderr);
  const second = await served([AGAIN], ["resume", "r.traj.json", "--step-limit", "2"], env);
  assertEquals(second.code, 3, second.stderr);
  const third = await served(
    [SUBMIT],
    [
      "resume",
      "r.resume1.traj.json",
      "--step-limit",
      "9",
      "-c",
      "model.observation_template=<o>{{output.output}}</o>",
    ],
    env,
  );
  assertEquals(third.code, 0, third.stderr);
  const resumed = JSON.parse(await Deno.readTextFile(`${env.HOME}/r.resume2.traj.json`));
  const link = resumed.info.resumed_from;
  assertEquals(link.config.agent, { step_limit: 2 });
  assertEquals(link.resumed_from.config.agent, { step_limit: 1 });
  assertEquals([link.kept, link.resumed_from.kept], [7, 4]);
  await assertTruthful(`${env.HOME}/r.resume1.traj.json`, env, [3, 5]);
  await assertTruthful(`${env.HOME}/r.resume2.traj.json`, env, [3, 5, 6, 8]);
});

Deno.test({
  name:
    "claudius replay of mini-extra swebench's and swebench-single's trajectories reproduces them; an edit is caught",
  ignore: !engine && !inCI,
  fn: async () => {
    const env = { ...await freshHome(), OPENAI_API_KEY: "sk-test", CLAUDIUS_PYTHON: "" };
    const record = {
      instance_id: "acme__tool-1",
      problem_statement: "Make it work.",
      image_name: "claudius-test-tiny",
    };
    await Deno.writeTextFile(`${env.HOME}/inst.jsonl`, JSON.stringify(record) + "\n");
    const r = await served(
      [LOOK, SUBMIT],
      ["swebench", "--subset", "inst.jsonl", "-o", "out", ...MODEL],
      env,
      "mini-extra",
    );
    assertEquals(r.code, 0, r.stderr);
    await assertTruthful(`${env.HOME}/out/acme__tool-1/acme__tool-1.traj.json`, env, [1, 3]);
    // swebench-single runs upstream's interactive agent, as mini does.
    const single = await served(
      [LOOK, SUBMIT],
      [
        "swebench-single",
        "--subset",
        "inst.jsonl",
        "-y",
        "--exit-immediately",
        "-o",
        "single.traj.json",
        ...MODEL,
      ],
      env,
      "mini-extra",
    );
    assertEquals(single.code, 0, single.stderr);
    await assertTruthful(`${env.HOME}/single.traj.json`, env, [3, 5]);
  },
});
