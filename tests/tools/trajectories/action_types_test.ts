import { assertEquals } from "../../_support/assert.ts";
import {
  ACTION_TYPE_EXAMPLES,
  classifyCommand,
  classifySteps,
} from "../../../src/tools/trajectories/action_types.ts";
import { parseTrajectory } from "../../../src/tools/trajectories/parse_trajectory.ts";

for (const [command, primary, types, after] of ACTION_TYPE_EXAMPLES) {
  Deno.test(`classifyCommand() labels ${JSON.stringify(command)}${after ? ` (${after})` : ""}`, () => {
    assertEquals(classifyCommand(command, { replaced: after !== undefined }), { types, primary });
  });
}

Deno.test("classifyCommand() takes other reference names, by name or path", () => {
  const options = { reference: ["jq"] };
  assertEquals(classifyCommand("jq . data.json", undefined, undefined, options).primary, "probe");
  assertEquals(classifyCommand("/usr/bin/jq --version", undefined, undefined, options).primary, "probe");
  assertEquals(classifyCommand("./executable", undefined, undefined, options).primary, "execute");
});

Deno.test("classifyCommand() reads a program named like an Object property as a program, not a wrapper", () => {
  // `constructor` once found Object's own function in the wrapper table, and its options crashed the reader.
  assertEquals(classifyCommand("constructor -v x"), { types: ["other"], primary: "other" });
  assertEquals(classifyCommand("toString --help && cat f"), { types: ["read", "other"], primary: "read" });
});

Deno.test("classifySteps() carries the reference-binary rule across steps, only past a successful build", () => {
  const turn = (id: string, command: string, returncode: number) => [
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id, type: "function", function: { name: "bash", arguments: "{}" } }],
      extra: { actions: [{ command, tool_call_id: id }] },
    },
    { role: "tool", tool_call_id: id, content: "", extra: { returncode } },
  ];
  const t = parseTrajectory({
    trajectory_format: "mini-swe-agent-1.1",
    info: {},
    messages: [
      { role: "system", content: "" },
      { role: "user", content: "" },
      ...turn("a", "./executable --help", 0),
      ...turn("b", "./compile.sh", 1), // a failed build: ./executable is still the reference
      ...turn("c", "./executable -v", 0),
      ...turn("d", "./compile.sh", 0),
      ...turn("e", "./executable -v", 0),
    ],
  });
  assertEquals(classifySteps(t).map((s) => s.primary), ["probe", "execute", "probe", "execute", "execute"]);
  assertEquals(classifySteps(t)[0]!.actions, [{ types: ["probe"], primary: "probe" }]);
});
