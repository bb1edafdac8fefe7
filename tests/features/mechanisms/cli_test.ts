/**
 * The mechanisms through the CLI (a subprocess against the loopback server): switches that do not
 * fire change no request; instructions are the only difference the instruction-adding switches
 * make; `-c daemon` is the rich arm; the fence reaches text mode.
 */
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import type { Json, Message } from "../../../src/core/types.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/** Run claudius on `replies` with `specs`; requests and messages with the working directory as <CWD>. */
async function cli(replies: ScriptReply[], args: string[]) {
  const server = await startFakeServer(replies);
  const dir = await Deno.makeTempDir({ prefix: "claudius-mech-cli-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "--task",
        "Do the thing",
        "-m",
        "test-model",
        "--base-url",
        server.url,
        "--create-cwd",
        "--cwd",
        `${dir}/ws`,
        "-o",
        `${dir}/t.traj.json`,
        ...args,
      ],
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    const traj = (await readTrajectory(`${dir}/t.traj.json`)).data;
    const norm = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll(dir, "<DIR>"));
    const messages = norm(traj.messages).map((m: Message) => {
      const { timestamp: _, ...extra } = m.extra ?? {};
      return { ...m, extra };
    });
    return {
      code: out.code,
      stderr,
      requests: norm(server.requests.map((r) => r.body)) as {
        messages: { role: string; content: string }[];
      }[],
      messages,
      info: traj.info as Record<string, Json> & { config: Record<string, Json> },
    };
  } finally {
    await server.close();
  }
}

const SCRIPT: ScriptReply[] = [
  { commands: ["true"] },
  { commands: ["echo hi"] },
  { commands: [`${SUBMIT}; echo result`] },
];

Deno.test("switches that do not fire leave every request and message as the control's", async () => {
  const control = await cli(SCRIPT, []);
  const rich = await cli(
    SCRIPT,
    [
      ...["verify.enabled=true", "verify.mode=observed", "verify.check_regex=^true$"],
      ...["compression.enabled=true", "compression.prompt_tokens=1000000000"],
      ...["reroll.enabled=true", "nudge.enabled=true", "nudge.after=99", "planning.enabled=true"],
      "project_context.enabled=true",
    ].flatMap((s) => ["-c", `mechanisms.${s}`]),
  );
  assertEquals([control.code, rich.code], [0, 0], rich.stderr);
  assertEquals(rich.requests, control.requests);
  assertEquals(rich.messages, control.messages);
  assertEquals("mechanisms" in control.info.config, false, "a control trajectory says nothing new");
  assertEquals(Object.keys(rich.info.config.mechanisms as object), [
    "verify",
    "compression",
    "project_context",
    "planning",
    "reroll",
    "nudge",
  ]);
  assertEquals(rich.info.pass_at_1, false);
  assertMatch(rich.stderr, /claudius: Submitted \(best-of-2: not pass@1\); trajectory saved/);
});

Deno.test("file actions and sub-agents differ from the control only by their lines in the first message", async () => {
  const control = await cli(SCRIPT, []);
  const rich = await cli(SCRIPT, [
    "-c",
    "mechanisms.file_actions.enabled=true",
    "-c",
    "mechanisms.subagents.enabled=true",
  ]);
  assertEquals(rich.code, 0, rich.stderr);
  const task = control.requests[0]!.messages[1]!.content;
  const added = rich.requests[0]!.messages[1]!.content.slice(task.length);
  assertMatch(
    added,
    /^\n\n# File actions\n\n[^]*Anything else runs as a shell command\.\n\n# Sub-agents\n\nYou can hand[^]*You can start at most 3\.$/,
  );
  const withoutAdded = rich.requests.map((r) => ({
    ...r,
    messages: r.messages.map((m, i) => (i === 1 ? { ...m, content: task } : m)),
  }));
  assertEquals(withoutAdded, control.requests);
});

Deno.test("claudius -c daemon is the control plus Daemon's mechanisms and parameters", async () => {
  const r = await cli(
    [
      { commands: ["write notes.txt\nhello", "read notes.txt 1-1"] },
      { commands: [SUBMIT] }, // refused: run the tests first
      { commands: [`${SUBMIT}; echo done`] },
    ],
    ["-c", "daemon"],
  );
  assertEquals(r.code, 0, r.stderr);
  const config = r.info.config as { agent: Record<string, Json>; environment: Record<string, Json> };
  assertEquals([config.agent.step_limit, config.agent.max_consecutive_format_errors], [50, 3]);
  assertEquals(config.environment.timeout, 120);
  const control = (await cli(SCRIPT, [])).info.config as { agent: Record<string, Json> };
  assertEquals(config.agent.system_template, control.agent.system_template, "the control's prompts");
  assertEquals(Object.keys(r.info.config.mechanisms as object), [
    "verify",
    "compression",
    "subagents",
    "project_context",
    "file_actions",
    "planning",
    "reroll",
  ]);
  const first = r.requests[0]!.messages[1]!.content;
  assert(first.includes("# File actions") && first.includes("# Sub-agents"));
  assertEquals(
    r.requests[1]!.messages.slice(-2).map((m) => m.content),
    [
      "<returncode>0</returncode>\n<output>\nwrite: notes.txt: wrote 1 line\n</output>\n",
      "<returncode>0</returncode>\n<output>\n     1\thello\n</output>\n",
    ],
  );
  assertMatch(r.requests[2]!.messages.at(-1)!.content, /Submission refused: run the tests first/);
  assertEquals(r.info.submission, "done\n");
  assertEquals([r.info.pass_at_1, r.info.best_of_k], [false, 2]);
  assertEquals(r.info.mechanisms, {
    verify: { refusals: 1, verified: true },
    compression: { compactions: [] },
    subagents: { depth: 0, children: [] },
    project_context: { files: [] },
    file_actions: { read: 1, write: 1, search: 0 },
    planning: { skipped: "no user to ask (headless)" },
    reroll: {
      attempts: 1,
      rerolls: [],
      // the working directory is no git repository: Daemon's empty-patch check cannot run
      unchecked: [{
        attempt: 1,
        why: "git status exited with 128: fatal: not a git repository " +
          "(or any of the parent directories): .git",
      }],
    },
  });
});

Deno.test("file_actions.fence makes a text-mode model write ```bash-action blocks", async () => {
  const r = await cli(
    [
      { content: "Look.\n```bash-action\nwrite a.txt\nx\n```" },
      { content: "```mswea_bash_command\nread a.txt\n```" }, // the old fence is a format error now
      { content: "Done.\n```bash-action\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```" },
    ],
    [
      ...["-c", "textbased", "--model-class", "openai_textbased"],
      ...["-c", "mechanisms.file_actions.enabled=true", "-c", "mechanisms.file_actions.fence=bash-action"],
    ],
  );
  assertEquals(r.code, 0, r.stderr);
  assertMatch(r.requests[0]!.messages[1]!.content, /Write each action in a ```bash-action block\.$/);
  assertEquals(r.messages.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "user",
    "user",
    "assistant",
    "exit",
  ]);
  assertEquals(r.messages[4]!.extra?.interrupt_type, "FormatError");
  assertEquals(
    (r.info.config as { model: { action_regex: string } }).model.action_regex,
    "```bash-action\\s*\\n(.*?)\\n```",
  );
});

Deno.test("compression and planning are refused with a Responses API class (they would silently do nothing)", async () => {
  for (const specs of [["compression.enabled=true"], ["planning.enabled=true"]]) {
    const server = await startFakeServer([{ commands: [SUBMIT] }]);
    const dir = await Deno.makeTempDir({ prefix: "claudius-mech-cli-" });
    try {
      const args = ["run", "-A", MAIN, "--task", "t", "-m", "test-model", "--base-url", server.url];
      args.push(
        "--model-class",
        "openai_response",
        "--create-cwd",
        "--cwd",
        `${dir}/ws`,
        "-o",
        `${dir}/t.traj.json`,
      );
      const out = await new Deno.Command(Deno.execPath(), {
        args: [...args, ...specs.flatMap((s) => ["-c", `mechanisms.${s}`])],
        env: { NO_COLOR: "1" },
        stdin: "null",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals([out.code, server.requests.length], [2, 0], stderr);
      assertMatch(
        stderr,
        /^error: Cannot use mechanisms\.(compression|planning) with model class openai_response/m,
      );
    } finally {
      await server.close();
    }
  }
});
