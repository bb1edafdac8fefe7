/**
 * ATIF v1.7: the validator enforces every rule, and every trajectory we can make converts to a valid
 * document that keeps what the existing converter loses.
 */
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { findTrajectories } from "../../../src/tools/trajectories/find_trajectories.ts";
import { loadTrajectory } from "../../../src/tools/trajectories/load_trajectory.ts";
import { type AtifTrajectory, toAtif } from "../../../src/tools/trajectories/to_atif.ts";
import { validateAtif } from "../../../src/tools/trajectories/validate_atif.ts";
import { batches } from "../../_support/trajectory_batches.ts";
import { goldenRun, SCENARIOS } from "./_golden.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

const valid = (): Record<string, unknown> => ({
  schema_version: "ATIF-v1.7",
  session_id: "s",
  agent: { name: "claudius", version: "0.1.0", model_name: "m", extra: { any: { thing: null } } },
  steps: [
    { step_id: 1, source: "user", message: "task" },
    {
      step_id: 2,
      source: "agent",
      message: "",
      timestamp: "2026-01-01T00:00:00.000Z",
      tool_calls: [{ tool_call_id: "c1", function_name: "bash", arguments: { command: "ls" } }],
      observation: { results: [{ source_call_id: "c1", content: "a.txt" }, { content: "feedback" }] },
      metrics: { prompt_tokens: 10, completion_tokens: 2, cached_tokens: 0, cost_usd: 0.5 },
      llm_call_count: 1,
    },
  ],
  final_metrics: { total_steps: 2, total_cost_usd: 0.5 },
});

/** Each rule, broken once: the edit and the problem it must produce. */
// deno-lint-ignore no-explicit-any
const BROKEN: [string, (d: any) => void, string][] = [
  ["unknown root key", (d) => (d.model = "x"), "$.model: unknown key"],
  ["unknown agent key", (d) => (d.agent.provider = "x"), "$.agent.provider: unknown key"],
  ["unknown step key", (d) => (d.steps[0].role = "user"), "$.steps[0].role: unknown key"],
  [
    "unknown tool call key",
    (d) => (d.steps[1].tool_calls[0].id = "c1"),
    "$.steps[1].tool_calls[0].id: unknown key",
  ],
  [
    "unknown result key",
    (d) => (d.steps[1].observation.results[0].output = ""),
    "results[0].output: unknown key",
  ],
  [
    "unknown observation key",
    (d) => (d.steps[1].observation.text = ""),
    "$.steps[1].observation.text: unknown key",
  ],
  ["unknown metrics key", (d) => (d.steps[1].metrics.tokens = 3), "$.steps[1].metrics.tokens: unknown key"],
  ["unknown final key", (d) => (d.final_metrics.steps = 2), "$.final_metrics.steps: unknown key"],
  ["a null field", (d) => (d.steps[1].reasoning_content = null), "reasoning_content: null (omit a field"],
  ["a null root field", (d) => (d.notes = null), "$.notes: null"],
  ["step ids out of order", (d) => (d.steps[1].step_id = 3), "$.steps[1].step_id: must be 2"],
  ["ids from 0", (d) => (d.steps[0].step_id = 0), "$.steps[0].step_id: must be 1"],
  ["a bad source", (d) => (d.steps[0].source = "tool"), "$.steps[0].source: must be system, user or agent"],
  [
    "model_name on a user step",
    (d) => (d.steps[0].model_name = "m"),
    "$.steps[0].model_name: only agent steps",
  ],
  ["reasoning on a system step", (d) => {
    d.steps[0].source = "system";
    d.steps[0].reasoning_content = "r";
  }, "$.steps[0].reasoning_content: only agent steps"],
  [
    "tool_calls on a user step",
    (d) => (d.steps[0].tool_calls = []),
    "$.steps[0].tool_calls: only agent steps",
  ],
  ["metrics on a user step", (d) => (d.steps[0].metrics = {}), "$.steps[0].metrics: only agent steps"],
  [
    "a dangling call id",
    (d) => (d.steps[1].observation.results[0].source_call_id = "c9"),
    "'c9' names no tool call",
  ],
  ["a call id of another step", (d) => {
    d.steps[0].observation = { results: [{ source_call_id: "c1" }] };
  }, "$.steps[0].observation.results[0].source_call_id: 'c1' names no tool call of this step"],
  [
    "duplicate call ids",
    (d) => d.steps[1].tool_calls.push(d.steps[1].tool_calls[0]),
    "tool_call_id values must be unique",
  ],
  ["no steps", (d) => (d.steps = []), "$.steps: must hold at least one step"],
  ["no agent", (d) => delete d.agent, "$: missing required key 'agent'"],
  ["no message", (d) => delete d.steps[0].message, "$.steps[0]: missing required key 'message'"],
  ["another version", (d) => (d.schema_version = "ATIF-v1.4"), "$.schema_version: must be 'ATIF-v1.7'"],
  [
    "arguments not an object",
    (d) => (d.steps[1].tool_calls[0].arguments = "ls"),
    "arguments: must be an object",
  ],
  [
    "a bad timestamp",
    (d) => (d.steps[1].timestamp = "yesterday"),
    "timestamp: must be an ISO 8601 timestamp",
  ],
  [
    "negative tokens",
    (d) => (d.steps[1].metrics.prompt_tokens = -1),
    "prompt_tokens: must be a whole number",
  ],
  ["extra not an object", (d) => (d.extra = []), "$.extra: must be an object"],
  [
    "a bad subagent",
    (d) => (d.subagent_trajectories = [{ ...valid(), steps: [{ step_id: 1, source: "user" }] }]),
    "$.subagent_trajectories[0].steps[0]: missing required key 'message'",
  ],
];

Deno.test("validateAtif() accepts a valid document and free-form extra", () => {
  assertEquals(validateAtif(valid()), []);
  assertEquals(
    validateAtif({ ...valid(), subagent_trajectories: [valid()], notes: "n", extra: { x: [null] } }),
    [],
  );
});

for (const [what, edit, problem] of BROKEN) {
  Deno.test(`validateAtif() rejects ${what}`, () => {
    const d = valid();
    edit(d);
    const problems = validateAtif(d);
    assert(problems.some((p) => p.includes(problem)), `expected '${problem}' in ${JSON.stringify(problems)}`);
  });
}

function checkAtif(a: AtifTrajectory, where: string) {
  assertEquals(validateAtif(a), [], where);
  assertEquals(a.final_metrics?.total_steps, a.steps.length, where);
}

for (const scenario of SCENARIOS) {
  Deno.test(`toAtif() of the ${scenario} golden scenario (claudius's and upstream's) is valid and keeps everything`, async () => {
    const run = await goldenRun(scenario);
    for (const path of [run.claudius, run.upstream]) {
      const t = await loadTrajectory(path);
      const a = toAtif(t);
      checkAtif(a, path);
      const agentSteps = a.steps.filter((s) => s.source === "agent");
      // One agent step per model call, format errors included, with the exact per-call cost.
      assertEquals(agentSteps.length, t.reportedApiCalls);
      assertEquals(agentSteps.map((s) => s.metrics?.cost_usd), t.steps.map((s) => s.cost));
      assertEquals(agentSteps.filter((s) => s.extra?.format_error).length, 2);
      // Every executed action's observation is linked to its call.
      const linked = agentSteps.flatMap((s) => s.observation?.results ?? []).filter((r) => r.source_call_id);
      assertEquals(linked.length, t.totals.commands);
      assertEquals(a.extra?.exit_status, "Submitted");
      assertEquals(a.extra?.submission, t.exit.submission);
      assertEquals([a.steps[0]!.source, a.steps[1]!.source], ["system", "user"]);
    }
  });
}

Deno.test("toAtif() of every trajectory of two real batches is valid; reasoning is the model's own text", async () => {
  const { a, b } = await batches();
  const paths = await findTrajectories([a, b]);
  assertEquals(paths.length, 8);
  for (const path of paths) checkAtif(toAtif(await loadTrajectory(path)), path);
  const i1 = toAtif(await loadTrajectory(`${b}/i1/i1.traj.json`));
  const first = i1.steps.find((s) => s.source === "agent")!;
  assertEquals(first.reasoning_content, "Look around first.");
  assertEquals(first.message, "step");
  const limits = toAtif(await loadTrajectory(`${a}/i2/i2.traj.json`));
  assertEquals(limits.extra?.exit_status, "LimitsExceeded");
});

Deno.test("claudius export --atif writes a valid document; bad usage is named", async () => {
  const { a } = await batches();
  const out = `${await Deno.makeTempDir()}/i3.atif.json`;
  const cmd = (...args: string[]) =>
    new Deno.Command(Deno.execPath(), { args: ["run", "-A", MAIN, "export", ...args], stdin: "null" })
      .output();
  const r = await cmd("--atif", `${a}/i3/i3.traj.json`, "-o", out);
  assertEquals(r.code, 0, new TextDecoder().decode(r.stderr));
  const doc = JSON.parse(await Deno.readTextFile(out));
  assertEquals(validateAtif(doc), []);
  assertEquals(doc.session_id, "i3");
  const noFormat = await cmd(`${a}/i3/i3.traj.json`);
  assertEquals(noFormat.code, 2);
  assertMatch(new TextDecoder().decode(noFormat.stderr), /export needs a format: --atif/);
  // Writing over the trajectory being exported would lose it.
  const copy = `${await Deno.makeTempDir()}/i3.traj.json`;
  await Deno.copyFile(`${a}/i3/i3.traj.json`, copy);
  const before = await Deno.readTextFile(copy);
  for (const o of [copy, copy.replace(/\/i3\.traj\.json$/, "/./i3.traj.json")]) {
    const over = await cmd("--atif", copy, "-o", o);
    assertEquals(over.code, 2);
    assertMatch(
      new TextDecoder().decode(over.stderr),
      /^error: export -o names the trajectory being exported/,
    );
  }
  assertEquals(await Deno.readTextFile(copy), before);
  // An unreadable path is named.
  const loopDir = await Deno.makeTempDir();
  const loop = "loop.traj.json";
  await Deno.symlink(loop, `${loopDir}/${loop}`);
  const unreadable = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "export", "--atif", loop],
    cwd: loopDir,
    stdin: "null",
  }).output();
  assertEquals(unreadable.code, 1);
  assertMatch(new TextDecoder().decode(unreadable.stderr), new RegExp(`^error: .*${loop}`));
  // The empty trajectory written before the first call (a run still in its first step) is not a bug.
  const fresh = `${loopDir}/fresh.traj.json`;
  await Deno.writeTextFile(fresh, '{"trajectory_format": "mini-swe-agent-1.1", "messages": [], "info": {}}');
  const empty = await cmd("--atif", fresh);
  assertEquals(empty.code, 1);
  assertMatch(
    new TextDecoder().decode(empty.stderr),
    /^error: Cannot export .*fresh\.traj\.json: it holds no messages yet \(a run in its first step/,
  );
});

Deno.test("run.atif_path: the ATIF copy is whole and current after every step, next to the trajectory", async () => {
  const dir = await Deno.makeTempDir();
  const atif = `${dir}/out/run.atif.json`;
  const seen: number[] = [];
  const server = await startFakeServer([
    { content: "one", commands: ["echo 1"] },
    { content: "no tool" },
    { content: "two", commands: ["echo 2", "echo 3"] },
    { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ], {
    onRequest: async (_r, index) => {
      if (index === 0) return;
      // Request k arrives after k steps were saved: the copy has k agent steps and is valid.
      const doc = JSON.parse(await Deno.readTextFile(atif));
      assertEquals(validateAtif(doc), []);
      seen.push(doc.steps.filter((s: { source: string }) => s.source === "agent").length);
    },
  });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "-t",
        "t",
        "-m",
        "m",
        "--base-url",
        server.url,
        "--create-cwd",
        "--cwd",
        `${dir}/ws`,
      ]
        .concat(["-o", `${dir}/out/run.traj.json`, "-c", "run.atif_path=run.atif.json"]),
      stdin: "null",
      env: { NO_COLOR: "1" },
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    await server.close();
  }
  assertEquals(seen, [1, 2, 3]);
  const final = JSON.parse(await Deno.readTextFile(atif));
  // The live copy has a session id of its own (a UUID per run); otherwise it is the file's conversion.
  assertMatch(final.session_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const exported = toAtif(await loadTrajectory(`${dir}/out/run.traj.json`), { sessionId: final.session_id });
  assertEquals(final, JSON.parse(JSON.stringify(exported)));
  assertEquals(final.extra.exit_status, "Submitted");
  assertEquals([...Deno.readDirSync(`${dir}/out`)].map((e) => e.name).sort(), [
    "run.atif.json",
    "run.traj.json",
  ]);
});
