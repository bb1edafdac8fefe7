import { assertEquals, assertThrows } from "../../_support/assert.ts";
import { ChatModel } from "../../../src/core/models/model.ts";
import { compileActionRegex } from "../../../src/core/models/extra/_action_regex.ts";
import { ConfigError, FormatError } from "../../../src/core/errors.ts";
import { ScriptedClient } from "../../../src/core/models/extra/scripted.ts";
import * as PYREGEX from "../../../src/lib/python/pyregex/pyregex.ts";

function textModel(action_regex: string, replies: string[]) {
  const client = new ScriptedClient(replies.map((content) => ({ content })), { model_name: "scripted" });
  const config = { action_regex };
  return new ChatModel(config, client, "text", "t", compileActionRegex(action_regex, PYREGEX));
}

async function actions(model: ChatModel): Promise<string[] | string> {
  try {
    const m = await model.query([{ role: "user", content: "go" }]);
    return (m.extra!.actions as { command: string }[]).map((a) => a.command);
  } catch (e) {
    const content = e instanceof FormatError ? e.messages[0]?.content : undefined;
    if (typeof content === "string") return content;
    throw e;
  }
}

Deno.test("ChatModel reads model.action_regex as Python's re.findall with re.DOTALL, stripping each action", async () => {
  const reply = "x\n```mswea_bash_command\n ls\npwd \u0085\n```\n```Bash\nid\n```";
  assertEquals(await actions(textModel("```mswea_bash_command\\s*\\n(.*?)\\n```", [reply])), ["ls\npwd"]);
  assertEquals(await actions(textModel("(?i)```bash\\s*\\n(?P<cmd>.*?)\\n```", [reply])), ["id"]);
  // \Z is the end of the text (JavaScript without translation reads it as a literal "Z").
  assertEquals(await actions(textModel("<cmd>(.*)</cmd>\\Z", ["<cmd>ls</cmd>"])), ["ls"]);
  // (?x): whitespace and comments in the pattern are ignored, but not inside a class.
  const verbose = "(?x) <cmd> ([^ ]*?) </cmd>  # the command\n";
  assertEquals(await actions(textModel(verbose, ["<cmd>ls -l</cmd> <cmd>pwd</cmd>"])), ["pwd"]);
  // `$` also matches before a final newline, as in Python.
  assertEquals(await actions(textModel("^run: (.*)$", ["run: make\n"])), ["make"]);
});

Deno.test("compileActionRegex() refuses what Python rejects, what it cannot mirror, several groups", () => {
  assertThrows(() => compileActionRegex("(unclosed", PYREGEX), ConfigError, "model.action_regex");
  assertThrows(
    () => compileActionRegex("(unclosed", PYREGEX),
    ConfigError,
    "missing ), unterminated subpattern at position 0",
  );
  assertThrows(() => compileActionRegex("(a)?(?(1)b|c)", PYREGEX), ConfigError, "conditional group");
  assertThrows(() => compileActionRegex("(a)(b)", PYREGEX), ConfigError, "2 capturing groups");
  // Tool-call mode never reads the regex, as upstream.
  new ChatModel(
    { action_regex: "(" },
    new ScriptedClient([], { model_name: "s" }),
    "toolcall",
    "t",
  );
});

Deno.test("ChatModel.query() runs a tool call whose arguments Python parses (NaN, Infinity)", async () => {
  const { ChatModel } = await import("../../../src/core/models/model.ts");
  const { ScriptedClient } = await import("../../../src/core/models/extra/scripted.ts");
  const call = (id: string, args: string) => ({
    id,
    type: "function",
    function: { name: "bash", arguments: args },
  });
  const client = new ScriptedClient([{
    tool_calls: [
      call("a", '{"command": "echo NaN", "timeout": NaN}'),
      call("b", '{"command": "ls", "n": [Infinity, -Infinity], "s": "NaN"}'),
    ],
  }], { model_name: "m" });
  const model = new ChatModel(
    { observation_template: "{{ output.output }}", action_regex: "x(.*)" },
    client,
    "toolcall",
    "t",
  );
  const message = await model.query([{ role: "user", content: "go" }]);
  assertEquals(message.extra?.actions, [
    { command: "echo NaN", tool_call_id: "a" },
    { command: "ls", tool_call_id: "b" },
  ]);
});

Deno.test("ChatModel.query() writes a non-finite command as Python's json does (1e309 is Infinity, never null)", async () => {
  const call = (id: string, args: string) => ({
    id,
    type: "function",
    function: { name: "bash", arguments: args },
  });
  const client = new ScriptedClient([{
    tool_calls: [call("a", '{"command": 1e309}'), call("b", '{"command": [-1e309, NaN, 2]}')],
  }], { model_name: "m" });
  const model = new ChatModel({}, client, "toolcall", "t");
  const message = await model.query([{ role: "user", content: "go" }]);
  assertEquals(message.extra?.actions, [
    { command: "Infinity", tool_call_id: "a" },
    { command: "[-Infinity,NaN,2]", tool_call_id: "b" },
  ]);
});
