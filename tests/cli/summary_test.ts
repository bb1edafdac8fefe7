/**
 * runFigures(): the end summary's figures, counted from what a run holds, are those `claudius stats`
 * reads from the file (parseTrajectory), for every layout of message a run keeps.
 */
import { assertEquals } from "../_support/assert.ts";
import { runFigures } from "../../src/cli/summary.ts";
import { parseTrajectory } from "../../src/tools/trajectories/parse_trajectory.ts";

const FILES = [
  "replay/format_errors_upstream.traj.json",
  "replay/openrouter_response_upstream.traj.json",
  "replay/claude_toolcall_upstream.traj.json",
  "replay/step_limit_upstream.traj.json",
  "replay/crash_upstream.traj.json",
  "replay/litellm_response_upstream.traj.json",
  "replay/multimodal_toolcall_upstream.traj.json",
  "replay/multimodal_text_upstream.traj.json",
  "conformance/toolcall_upstream.traj.json",
  "conformance/text_upstream.traj.json",
];

/** parseTrajectory's figures, as the summary read them from the file. */
function fileFigures(data: { messages: object[]; info: { model_stats: { instance_cost: number } } }) {
  const t = parseTrajectory(data);
  return {
    steps: t.steps.length,
    cost: t.reportedCost ?? t.totals.cost,
    promptTokens: t.totals.tokens.prompt,
    completionTokens: t.totals.tokens.completion,
    wallSeconds: t.totals.wallSeconds,
  };
}

Deno.test("runFigures() counts what parseTrajectory reads from the file, for every kind of step", async () => {
  for (const file of FILES) {
    const data = JSON.parse(await Deno.readTextFile(new URL(`../testdata/${file}`, import.meta.url)));
    const held = { messages: data.messages, cost: data.info.model_stats.instance_cost };
    assertEquals(runFigures(held), fileFigures(data), file);
  }
});

Deno.test("runFigures() reads odd messages as parseTrajectory does: no usage, counts that are no counts, a cost that is none", () => {
  const messages = [
    { role: "system", content: "s", extra: { timestamp: 10 } },
    { role: "user", content: "t", timestamp: 9.5 },
    { role: "assistant", content: "a", extra: { cost: -1, response: { usage: { prompt_tokens: "7" } } } },
    { role: "user", content: "e", extra: { interrupt_type: "FormatError", cost: 0.25, response: "none" } },
    { output: [], usage: { input_tokens: 3, output_tokens: 4 }, extra: { actions: [], timestamp: 12 } },
    {
      role: "assistant",
      content: "b",
      extra: { response: { usage: { prompt_tokens: 5, completion_tokens: 1 } } },
    },
    { role: "exit", content: "", extra: { exit_status: "Submitted", submission: "", timestamp: 13 } },
  ];
  for (const cost of [0.5, Number.NaN, -2]) {
    const data = {
      messages,
      info: { model_stats: { instance_cost: cost } },
      trajectory_format: "mini-swe-agent-1.1",
    };
    assertEquals(runFigures({ messages, cost }), fileFigures(data), String(cost));
  }
});
