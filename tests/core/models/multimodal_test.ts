/**
 * Upstream's multimodal content (`model.multimodal_regex`), against what upstream's own code does
 * (tests/testdata/multimodal/multimodal_golden.json, made by gen_multimodal_golden.py from upstream's
 * v2.4.6 sources): the expansion of each content value, byte for byte, and claudius run as a
 * subprocess against the loopback server sending upstream's requests and recording its messages.
 */
import { assert, assertEquals, assertMatch, assertThrows } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { loadScript } from "../../../src/core/models/extra/_script.ts";
import { compileMultimodalRegex, expandMultimodal } from "../../../src/core/models/extra/_multimodal.ts";
import { ChatModel } from "../../../src/core/models/model.ts";
import { ScriptedClient } from "../../../src/core/models/extra/scripted.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import type { Json, Message } from "../../../src/core/types.ts";
import * as PYREGEX from "../../../src/lib/python/pyregex/pyregex.ts";

const DIR = new URL("../../testdata/multimodal/", import.meta.url).pathname;
const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const golden = JSON.parse(await Deno.readTextFile(`${DIR}multimodal_golden.json`));

Deno.test("expandMultimodal() expands every content value as upstream's expand_multimodal_content, byte for byte", () => {
  for (const { content, pattern, expanded } of golden.expand) {
    const regex = compileMultimodalRegex(pattern, PYREGEX);
    const ours = regex === undefined ? content : expandMultimodal(content, regex);
    assertEquals(JSON.stringify(ours), JSON.stringify(expanded), JSON.stringify(content).slice(0, 120));
  }
});

Deno.test("compileMultimodalRegex() refuses a pattern upstream cannot use, naming the key", () => {
  const one = assertThrows(() => compileMultimodalRegex("<img>(.+?)</img>", PYREGEX), ConfigError);
  assertMatch(
    one.message,
    /^Cannot use model\.multimodal_regex "<img>\(\.\+\?\)<\/img>": it has 1 capturing group/,
  );
  const bad = assertThrows(() => compileMultimodalRegex("(unclosed", PYREGEX), ConfigError);
  assertMatch(bad.message, /model\.multimodal_regex/);
  assertEquals(compileMultimodalRegex("", PYREGEX), undefined);
});

async function uname(flag: string): Promise<string> {
  const out = await new Deno.Command("uname", { args: [flag] }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

async function normalise(value: unknown, cwd: string): Promise<Json> {
  let text = JSON.stringify(value).replaceAll(cwd, "<CWD>");
  for (const [flag, placeholder] of [["-v", "<VERSION>"], ["-r", "<RELEASE>"], ["-n", "<NODE>"]] as const) {
    text = text.replaceAll(JSON.stringify(await uname(flag)).slice(1, -1), placeholder);
  }
  const parsed = JSON.parse(text);
  for (const m of parsed) delete m.extra?.timestamp;
  return parsed;
}

for (const [name, scenario] of Object.entries(golden.scenarios) as [string, Record<string, Json>][]) {
  Deno.test(`claudius with model.multimodal_regex sends upstream's requests and records its messages (${name} mode)`, async () => {
    const server = await startFakeServer(await loadScript(`${DIR}${scenario.replies}`));
    const dir = await Deno.makeTempDir();
    const cwd = `${dir}/ws`;
    await Deno.writeTextFile(
      `${dir}/mm.yaml`,
      `model:\n  multimodal_regex: ${JSON.stringify(golden.multimodal_regex)}\n`,
    );
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "--task", golden.task, "-m", "test-model", "--model-class"]
          .concat([
            String(scenario.model_class),
            "--base-url",
            server.url,
            "--create-cwd",
            "--cwd",
            cwd,
            "-o",
            `${dir}/t.json`,
          ])
          .concat(["-c", String(scenario.config).replace(/\.yaml$/, ""), "-c", `${dir}/mm.yaml`])
          .concat(["-c", "environment.timeout=2"]),
        env: { NO_COLOR: "1" },
        stdin: "null",
      }).output();
      assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
      const requests = await normalise(server.requests.map((r) => r.body), cwd) as Json[];
      const want = scenario.requests as Json[];
      assertEquals(requests.map((r) => JSON.stringify(r)), want.map((r) => JSON.stringify(r)));
      const traj = JSON.parse(await Deno.readTextFile(`${dir}/t.json`));
      const messages = await normalise(traj.messages, cwd) as Json[];
      assertEquals(
        messages.map((m) => JSON.stringify(m)),
        (scenario.messages as Json[]).map((m) => JSON.stringify(m)),
      );
      // Images were sent: the task's, and those the commands printed.
      const sent = JSON.stringify(requests.at(-1));
      assert(sent.includes('"image_url":{"url":"https://example.com/task.png"}'));
    } finally {
      await server.close();
    }
  });
}

Deno.test("a Claude name's cache marker goes on the first part of an expanded message (upstream fails on it)", async () => {
  // Upstream's set_cache_control asserts one part per message, so with images it stops the run.
  assertMatch(golden.cache_control.error, /^AssertionError: Expected single message in content/);
  const regex = compileMultimodalRegex(golden.multimodal_regex, PYREGEX)!;
  const client = new ScriptedClient([{ content: "ok", commands: ["ls"] }], { model_name: "m", record: true });
  const model = new ChatModel(
    { set_cache_control: "default_end", multimodal_regex: golden.multimodal_regex },
    client,
    "toolcall",
    "t",
    undefined,
    regex,
  );
  const [message] = golden.cache_control.messages;
  const first = model.formatMessage(
    "user",
    "see <MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>image_url</CONTENT_TYPE>https://example.com/a.png</MSWEA_MULTIMODAL_CONTENT> here",
  );
  assertEquals(first, message);
  await model.query([first as Message]);
  const sent = client.requests[0]!.messages[0]!;
  assertEquals(sent.content as unknown, [
    { type: "text", text: "see ", cache_control: { type: "ephemeral" } },
    { type: "image_url", image_url: { url: "https://example.com/a.png" } },
    { type: "text", text: " here" },
  ]);
});

Deno.test("ChatModel without multimodal_regex sends content as it is, tags and all", () => {
  const client = new ScriptedClient([], { model_name: "m" });
  const model = new ChatModel({}, client, "toolcall", "t");
  const text =
    "x <MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>image_url</CONTENT_TYPE>u</MSWEA_MULTIMODAL_CONTENT>";
  assertEquals(model.formatMessage("user", text), { role: "user", content: text });
  const [obs] = model.formatObservations(
    { extra: { actions: [{ command: "ls", tool_call_id: "c" }] } },
    [{ output: text, returncode: 0, exception_info: "" }],
    {},
  );
  assertMatch(String(obs!.content), /<MSWEA_MULTIMODAL_CONTENT>/);
});

Deno.test("anthropic/ models get the images as the Messages API's image blocks (base64 and url sources)", async () => {
  const { AnthropicClient } = await import("../../../src/core/models/extra/anthropic.ts");
  const { startAnthropicServer } = await import("../../_support/anthropic_server.ts");
  const server = await startAnthropicServer([{ content: "a", commands: ["ls"] }, {
    content: "b",
    commands: ["ls"],
  }]);
  try {
    const client = new AnthropicClient(
      { model_name: "anthropic/claude-sonnet-4-5-20250929", cost_tracking: "ignore_errors" },
      { env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url }, costLimit: 0, log: () => {} },
    );
    const regex = compileMultimodalRegex(golden.multimodal_regex, PYREGEX)!;
    const model = new ChatModel(
      { set_cache_control: "default_end", multimodal_regex: golden.multimodal_regex },
      client,
      "toolcall",
      "t",
      undefined,
      regex,
    );
    const png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const tag = (url: string) =>
      `<MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>image_url</CONTENT_TYPE>${url}</MSWEA_MULTIMODAL_CONTENT>`;
    const messages: Message[] = [
      model.formatMessage("system", "s"),
      model.formatMessage("user", `look at ${tag("https://example.com/t.png")}`),
    ];
    const first = await model.query(messages);
    messages.push(
      first,
      ...model.formatObservations(first, [{
        output: `x ${tag(`data:image/png;base64,${png}`)}`,
        returncode: 0,
        exception_info: "",
      }], {}),
    );
    await model.query(messages);
    const bodies = server.requests.map((r) => r.body as { messages: { content: Json[] }[] });
    assertEquals(server.requests.length, 2);
    assertEquals(bodies[0]!.messages[0]!.content[1], {
      type: "image",
      source: { type: "url", url: "https://example.com/t.png" },
    });
    const result = bodies[1]!.messages[2]!.content[0] as { type: string; content: Json[] };
    assertEquals(result.type, "tool_result");
    assertEquals(result.content[1], {
      type: "image",
      source: { type: "base64", media_type: "image/png", data: png },
    });
  } finally {
    await server.close();
  }
});
