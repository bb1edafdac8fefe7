/**
 * readRecording(): what a replay reads from a trajectory, and the trajectories it refuses, each with
 * one line saying why (ProgramBench's, upstream v1's, a format error without its response, a user's input).
 */
import { REGISTRY } from "../../../src/cli/classes.ts";
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { UsageError } from "../../../src/lib/flags.ts";
import { readRecording } from "../../../src/features/replay/recording.ts";

const UPSTREAM = new URL("../../testdata/conformance/toolcall_upstream.traj.json", import.meta.url).pathname;
const upstream = JSON.parse(await Deno.readTextFile(UPSTREAM));

async function refusal(data: unknown): Promise<string> {
  const path = `${await Deno.makeTempDir()}/t.traj.json`;
  await Deno.writeTextFile(path, JSON.stringify(data));
  const e = await readRecording(path, REGISTRY).catch((e) => e);
  assert(e instanceof UsageError, String(e));
  assertMatch(e.message, new RegExp(`^Cannot replay ${path}: `));
  return e.message;
}

Deno.test("readRecording() of upstream's own file: its calls, the outputs of its observations, its ending", async () => {
  const r = await readRecording(UPSTREAM, REGISTRY);
  // Six calls (two of them format errors), five observations, the submission in the ending.
  assertEquals(r.calls.map((c) => c.index), [2, 5, 6, 7, 10, 12]);
  assertEquals(r.outputs.map((o) => [o.index, o.call, o.toolCallId]), [
    [3, 0, "call_0_0"],
    [4, 0, "call_0_1"],
    [8, 3, "call_3_0"],
    [9, 3, "call_3_1"],
    [11, 4, "call_4_0"],
  ]);
  assertEquals(r.outputs[0]!.output.output, "hello\nerr\na\nb\nc");
  // What the environment added to the output travels in its extra (a timeout's exception type).
  assertEquals(Object.keys(r.outputs[4]!.output.extra ?? {}), ["exception_type", "exception"]);
  assertEquals([r.exitIndex, r.exitStatus, r.submission], [13, "Submitted", "patch-text\n"]);
  assertEquals(r.config.tree?.model, { ...upstream.info.config.model, model_class: "openrouter" });
  assertEquals(r.environmentType, "minisweagent.environments.local.LocalEnvironment");
});

Deno.test("readRecording() refuses what a replay cannot play back, saying why", async () => {
  const copy = () => structuredClone(upstream);
  // ProgramBench's runner drops raw_output from every observation.
  const pb = copy();
  for (const m of pb.messages) delete m.extra?.raw_output;
  assertMatch(
    await refusal(pb),
    /message 4 \(tool\) keeps no raw output .*ProgramBench's runner drops raw_output/,
  );
  // Upstream v1: no raw outputs at all.
  assertMatch(
    await refusal({ ...copy(), trajectory_format: "mini-swe-agent-1" }),
    /upstream v1 trajectory \(mini-swe-agent-1\), which keeps no raw command outputs/,
  );
  // A format error of upstream before 2.4 kept no response.
  const early = copy();
  delete early.messages[5].extra.response;
  assertMatch(await refusal(early), /message 6 \(user\) records no response .*upstream before 2\.4/);
  // A user's interactive answer.
  const asked = copy();
  asked.messages.splice(5, 0, { role: "user", content: "no", extra: { interrupt_type: "UserRejection" } });
  assertMatch(
    await refusal(asked),
    /message 6 \(user\) is an interruption \(UserRejection\), which a replay cannot give back/,
  );
  // No config, messages after the ending, mechanisms.
  assertMatch(await refusal({ ...copy(), info: {} }), /records no config \(info\.config\)/);
  const after = copy();
  after.messages.push({ role: "user", content: "x" });
  assertMatch(await refusal(after), /message 15 \(user\) comes after its ending/);
  const mech = copy();
  mech.info.config.mechanisms = { planning: true };
  assertMatch(await refusal(mech), /ran with mechanisms/);
});
