import { assertEquals, assertThrows } from "./_assert.ts";
import { pythonRegex } from "../src/model.ts";
import { ConfigError } from "../src/errors.ts";

const findAll = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => m[1]);

Deno.test("pythonRegex() reads Python syntax: DOTALL, named groups, leading inline flags", () => {
  const text = "x\n```mswea_bash_command\nls\npwd\n```\n```Bash\nid\n```";
  assertEquals(findAll(pythonRegex("```mswea_bash_command\\s*\\n(.*?)\\n```"), text), ["ls\npwd"]);
  assertEquals(findAll(pythonRegex("(?i)```bash\\s*\\n(?P<cmd>.*?)\\n```"), text), ["id"]);
  assertThrows(() => pythonRegex("(unclosed"), ConfigError, "model.action_regex");
});

Deno.test("ChatModel.query() runs a tool call whose arguments Python parses (NaN, Infinity)", async () => {
  const { ChatModel } = await import("../src/model.ts");
  const { ScriptedClient } = await import("../src/models/scripted.ts");
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
