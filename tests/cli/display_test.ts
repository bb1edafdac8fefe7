import { assert, assertEquals } from "../_support/assert.ts";
import { formatForDisplay, VerboseDisplay } from "../../src/cli/display.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import type { Message } from "../../src/core/types.ts";

// deno-lint-ignore no-control-regex
const OURS = /\x1b\[\d+m/g; // the display's own colours
// deno-lint-ignore no-control-regex
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
/** A reply with these commands. */
const reply = (content: string, ...commands: string[]): Message => ({
  role: "assistant",
  content,
  extra: { actions: commands.map((command) => ({ command })), response: null, cost: 0, timestamp: 0 },
});
const EVIL = "\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\u202etxt.exe\x9b31m\r";

Deno.test("formatForDisplay() shows control sequences of replies, commands and outputs escaped, never raw", () => {
  const messages = [
    {
      role: "assistant",
      content: `thinking ${EVIL}`,
      extra: { actions: [{ command: `printf '${EVIL}'` }] },
    },
    { role: "tool", content: "", extra: { raw_output: `out ${EVIL}\r\nline 2\n`, returncode: 0 } },
    { role: "exit", content: "", extra: { exit_status: "Submitted", submission: EVIL } },
  ] as unknown as Message[];
  for (const m of messages) {
    for (const color of [false, true]) {
      const shown = formatForDisplay(m, color).replace(OURS, "");
      assert(!RAW.test(shown), JSON.stringify(shown));
      assert(shown.includes("\\x1b]52;c;ZXZpbA==\\x07"), shown);
    }
  }
  assertEquals(
    formatForDisplay(messages[1]!, false),
    `── returncode 0 ──\nout \\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07\\u{202e}txt.exe\\x9b31m\\r\nline 2\n`,
  );
});

Deno.test("VerboseDisplay shows a streamed reply as it arrives, then only its commands; a retry is marked", () => {
  const out: string[] = [];
  const display = new VerboseDisplay((line) => out.push(`${line}\n`), (text) => out.push(text), false);
  display.stream({ type: "start" });
  display.stream({ type: "text", text: "Let me " });
  assertEquals(out.join(""), "── assistant ──\nLet me ");
  display.stream({ type: "text", text: "look\x1b[2J" });
  display.stream({ type: "start" });
  display.stream({ type: "text", text: "Let me look." });
  display.message(reply("Let me look.", "ls"));
  display.message(
    {
      role: "tool",
      content: "",
      extra: { raw_output: "a\n", returncode: 0, timestamp: 0, exception_info: "" },
    } as Message,
  );
  assertEquals(
    out.join(""),
    "── assistant ──\nLet me look\\x1b[2J\n(retrying)\nLet me look.\n$ ls\n── returncode 0 ──\na\n\n",
  );
});

Deno.test("VerboseDisplay cuts a long streamed reply where a whole one is cut; a reply not streamed is shown whole", () => {
  const out: string[] = [];
  const display = new VerboseDisplay((line) => out.push(`${line}\n`), (text) => out.push(text), false);
  display.stream({ type: "start" });
  for (let i = 0; i < 30; i++) display.stream({ type: "text", text: "x".repeat(100) });
  display.message(reply("x".repeat(3000)));
  assertEquals(out.join(""), `── assistant ──\n${"x".repeat(2000)}\n… (1000 more characters)\n`);
  out.length = 0;
  display.message(reply("whole", "pwd"));
  assertEquals(out.join(""), "── assistant ──\nwhole\n$ pwd\n");
});

Deno.test("claudius -v with model.stream shows the reply's text before the reply has arrived", async () => {
  const text = "Streaming this reply in pieces so that it takes a while to arrive at the end.";
  const server = await startFakeServer([
    { content: text, commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ], { streamDelayMs: 150 });
  const dir = await Deno.makeTempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"],
      MAIN,
      ...["-v", "-t", "t", "-m", "hosted_vllm/m", "--base-url", server.url, "-o", `${dir}/t.traj.json`],
      ...["-c", "default", "-c", "model.stream=true", "-c", "model.cost_tracking=ignore_errors"],
    ],
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    let seen = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      seen += decoder.decode(chunk, { stream: true });
      if (seen.includes("Streaming")) break;
    }
    assert(seen.includes("── assistant ──\nStreaming"), seen);
    assert(!seen.includes("at the end."), `the whole reply was shown at once: ${seen}`);
    assertEquals((await child.status).code, 0);
    const saved = JSON.parse(await Deno.readTextFile(`${dir}/t.traj.json`));
    assertEquals(saved.messages[2].content, text);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
