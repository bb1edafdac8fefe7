import { assert, assertEquals, assertRejects } from "../../_support/assert.ts";
import { ScriptedClient } from "../../../src/core/models/extra/scripted.ts";
import { loadScript, parseScript } from "../../../src/core/models/extra/_script.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import type { Json } from "../../../src/core/types.ts";
import { startFakeServer } from "../../_support/fake_server.ts";

const SCRIPTS = new URL("../../testdata/scripts/", import.meta.url);
const path = (name: string) => new URL(name, SCRIPTS).pathname;

Deno.test("ScriptedClient.complete() replays a script file in order, shorthand commands included", async () => {
  const client = new ScriptedClient(await loadScript(path("replay.yaml")), {
    model_name: "scripted",
    record: true,
  });
  const first = await client.complete({ messages: [{ role: "user", content: "go" }] });
  assertEquals(first.message, {
    role: "assistant",
    content: "Let me look around.",
    tool_calls: [
      { id: "call_0_0", type: "function", function: { name: "bash", arguments: '{"command":"ls -la"}' } },
      {
        id: "call_0_1",
        type: "function",
        function: { name: "bash", arguments: '{"command":"cat README.md"}' },
      },
    ],
  });
  assertEquals(first.finish_reason, "tool_calls");
  assertEquals(first.cost, 0);
  const second = await client.complete({ messages: [] });
  assertEquals(second.message.reasoning_content, "Thinking about it.");
  assertEquals(second.message.tool_calls?.[0]?.id, "toolu_01");
  assertEquals(second.cost, 0.25);
  assertEquals(second.response, {
    id: "chatcmpl-scripted-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "scripted",
    choices: [{ index: 0, message: second.message as unknown as Json, finish_reason: "tool_calls" }],
    usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, cost: 0.25 },
  });
  const third = await client.complete({ messages: [] });
  assertEquals(third.message.tool_calls, undefined);
  assertEquals(third.finish_reason, "length");
  assert(third.message.content?.includes("```mswea_bash_command\necho COMPLETE_TASK"));
  assertEquals(client.requests.length, 3);
  assertEquals(client.requests[0]?.messages[0]?.content, "go");
});

Deno.test("ScriptedClient.complete() throws a clear error when the script runs out", async () => {
  const client = new ScriptedClient([{ content: "one" }], { model_name: "m", cost_per_call: 1 });
  assertEquals((await client.complete({ messages: [] })).cost, 1);
  await assertRejects(
    () => client.complete({ messages: [] }),
    Error,
    "Cannot query scripted model: script has 1 replies, reply 2 was requested",
  );
  const faulty = new ScriptedClient([{ fault: "drop" }], { model_name: "m" });
  await assertRejects(() => faulty.complete({ messages: [] }), Error, "only the fake server plays");
});

Deno.test("ScriptedClient keeps no copy of the conversation unless asked (memory stays flat over steps)", async () => {
  // Each request holds the whole conversation: copying every one grew memory with the square of the
  // steps (4,000 steps took 4.4 GB). 400 calls over a 400-message (400 KB) conversation: 160 MB of copies.
  const messages = Array.from(
    { length: 400 },
    (_, i) => ({ role: "user" as const, content: `${i} ${"x".repeat(1000)}` }),
  );
  const n = 400;
  const client = new ScriptedClient(Array.from({ length: n }, () => ({ content: "ok" })), {
    model_name: "m",
  });
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) await client.complete({ messages });
  const grown = Deno.memoryUsage().heapUsed - before;
  assert(grown < 40e6, `the heap grew by ${(grown / 1e6).toFixed(0)} MB over ${n} calls`);
  assertEquals([client.calls, client.requests.length], [n, 0]);

  const recording = new ScriptedClient([{ content: "a" }, { content: "b" }], {
    model_name: "m",
    record: true,
  });
  await recording.complete({ messages: [{ role: "user", content: "one" }] });
  await recording.complete({ messages });
  assertEquals(recording.calls, 2);
  assertEquals(recording.requests.map((r) => r.messages.length), [1, 400]);
});

Deno.test("loadScript() reads JSON and names the bad entry of a malformed script", async () => {
  assertEquals((await loadScript(path("faults.json"))).length, 3);
  await assertRejects(() => loadScript(path("bad.yaml")), SyntaxError, 'reply 2: unknown key "contnet"');
  for (
    const [data, message] of [
      [{ replies: "x" }, "expected a list"],
      [[{ fault: "explode" }], 'unknown fault "explode"'],
      [[{ commands: ["ls"], tool_calls: [] }], "either `tool_calls` or `commands`"],
      [[{ fault: "status", status: 42 }], "`status` must be an HTTP status code"],
    ] as [unknown, string][]
  ) {
    let caught: unknown;
    try {
      parseScript(data);
    } catch (error) {
      caught = error;
    }
    assert(caught instanceof SyntaxError && caught.message.includes(message), String(caught));
  }
});

Deno.test("startFakeServer() plays the same script, so both clients see the same completion", async () => {
  const replies = await loadScript(path("replay.yaml"));
  const server = await startFakeServer(replies);
  try {
    const http = new OpenAIClient(
      { model_name: "scripted", base_url: server.url, input_cost_per_token: 0, output_cost_per_token: 0 },
      { env: {}, costLimit: 0 },
    );
    const scripted = new ScriptedClient(replies, { model_name: "scripted" });
    for (let i = 0; i < replies.length; i++) {
      const [a, b] = [await http.complete({ messages: [] }), await scripted.complete({ messages: [] })];
      assertEquals(a, b);
    }
    assertEquals(server.responseSentAt.length, 3);
    assert(server.requests.every((r, i) => r.receivedAt <= server.responseSentAt[i]!));
  } finally {
    await server.close();
  }
});

Deno.test("fake_server.ts run as a program prints its URL and serves a script file", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../_support/fake_server.ts", import.meta.url).pathname,
      path("faults.json"),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const url = text.split("\n")[0] ?? "";
    assert(url.startsWith("http://127.0.0.1:") && url.endsWith("/v1"), url);
    const sleeps: number[] = [];
    const client = new OpenAIClient({ model_name: "m", base_url: url, cost_tracking: "ignore_errors" }, {
      env: {},
      costLimit: 0,
      log: () => {},
      sleep: (ms) => (sleeps.push(ms), Promise.resolve()),
    });
    const completion = await client.complete({ messages: [] });
    assertEquals(completion.message.tool_calls?.[0]?.function.arguments, '{"command":"echo ok"}');
    assertEquals(sleeps.length, 2); // the 503, then the drop
  } finally {
    child.kill("SIGTERM");
    await reader.cancel();
    await child.status;
  }
});
