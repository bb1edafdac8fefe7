import { assert, assertEquals, assertRejects } from "./_assert.ts";
import { readTrajectory, TRAJECTORY_FORMAT, TrajectoryWriter } from "../src/trajectory.ts";

/** Messages as the writer sees them: any JSON mapping. */
type Message = Record<string, unknown>;

const msg = (i: number): Message => ({ role: "user", content: `m${i} "quoted"\nline`, extra: { i } });

Deno.test("TrajectoryWriter.save() leaves complete JSON after every save", async () => {
  const path = `${await Deno.makeTempDir()}/sub/dir/t.json`;
  const w = new TrajectoryWriter(path, { top: { instance_id: "x__y-1" } });
  const messages: Message[] = [];
  for (let i = 0; i < 5; i++) {
    messages.push(msg(i));
    await w.save(messages, { exit_status: i === 4 ? "Submitted" : "", model_stats: { api_calls: i } });
    const data = JSON.parse(await Deno.readTextFile(path));
    assertEquals(data.trajectory_format, TRAJECTORY_FORMAT);
    assertEquals(data.instance_id, "x__y-1");
    assertEquals(data.messages, messages);
    assertEquals(data.info.model_stats.api_calls, i);
  }
  w.close();
  assertEquals(JSON.parse(await Deno.readTextFile(path)).info.exit_status, "Submitted");
});

Deno.test("TrajectoryWriter.save() appends instead of rewriting the whole file", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const w = new TrajectoryWriter(path);
  const messages: Message[] = [];
  const big = "x".repeat(2000);
  for (let i = 0; i < 300; i++) {
    messages.push({ role: "tool", content: big, tool_call_id: `c${i}`, extra: { raw_output: big } });
    await w.save(messages, { config: { agent: { system_template: "s".repeat(500) } }, exit_status: "" });
  }
  w.close();
  const size = (await Deno.stat(path)).size;
  assert(w.bytesWritten < 1.5 * size, `wrote ${w.bytesWritten} bytes for a ${size}-byte file`);
});

Deno.test("TrajectoryWriter.save() shrinks the tail when info gets shorter", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const w = new TrajectoryWriter(path);
  await w.save([msg(0)], { note: "a long note ".repeat(20) });
  await w.save([msg(0), msg(1)], { note: "" });
  w.close();
  assertEquals(JSON.parse(await Deno.readTextFile(path)).info, { note: "" });
});

Deno.test("readTrajectory() recovers every whole message from a torn file", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const w = new TrajectoryWriter(path);
  const messages = [msg(0), msg(1), msg(2)];
  await w.save(messages, { exit_status: "" });
  w.close();
  const full = await Deno.readTextFile(path);
  // Cut inside the third message: a kill during its write.
  const cut = full.indexOf('"m2');
  await Deno.writeTextFile(path, full.slice(0, cut));
  const torn = await readTrajectory(path);
  assert(torn.repaired);
  assertEquals(torn.data.messages, [msg(0), msg(1)]);
  // A complete file reads back unchanged.
  await Deno.writeTextFile(path, full);
  const whole = await readTrajectory(path);
  assertEquals(whole.repaired, false);
  assertEquals(whole.data.messages, messages);
});

Deno.test("readTrajectory() recovers a file whose last write stopped short over the old tail", async () => {
  // A write cut short by SIGKILL leaves the new bytes up to the cut, then what was there before:
  // the previous save's `info` tail.
  const path = `${await Deno.makeTempDir()}/t.json`;
  const w = new TrajectoryWriter(path);
  const info = {
    exit_status: "",
    model_stats: { instance_cost: 0.5, api_calls: 2 },
    config: { x: "y".repeat(300) },
  };
  await w.save([msg(0), msg(1)], info);
  const before = await Deno.readTextFile(path);
  await w.save([msg(0), msg(1), msg(2)], info);
  w.close();
  const after = await Deno.readTextFile(path);
  const cut = after.indexOf('"m2') + 2;
  assert(cut < before.length);
  await Deno.writeTextFile(path, after.slice(0, cut) + before.slice(cut));
  const torn = await readTrajectory(path);
  assert(torn.repaired);
  assertEquals(torn.data.messages, [msg(0), msg(1)]);
});

Deno.test("readTrajectory() keeps the info of a torn upstream file (info before messages)", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const info = { exit_status: "", submission: "", model_stats: { instance_cost: 0.25, api_calls: 3 } };
  const full = JSON.stringify({ info, messages: [msg(0), msg(1), msg(2)], trajectory_format: "x" }, null, 2);
  await Deno.writeTextFile(path, full.slice(0, full.indexOf('"m2')));
  const torn = await readTrajectory(path);
  assert(torn.repaired);
  assertEquals(torn.data.messages, [msg(0), msg(1)]);
  assertEquals(torn.data.info, info);
});

Deno.test("readTrajectory() reads upstream's legacy list format, whole or torn", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const full = JSON.stringify([msg(0), msg(1), msg(2)], null, 2);
  await Deno.writeTextFile(path, full);
  const whole = await readTrajectory(path);
  assertEquals(whole.repaired, false);
  assertEquals(whole.data.messages, [msg(0), msg(1), msg(2)]);
  await Deno.writeTextFile(path, full.slice(0, full.indexOf('"m1')));
  const torn = await readTrajectory(path);
  assert(torn.repaired);
  assertEquals(torn.data.messages, [msg(0)]);
});

Deno.test("readTrajectory() reads a compact torn file and rejects text with no messages", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const full = JSON.stringify({ trajectory_format: "x", messages: [msg(0), msg(1)], info: {} });
  await Deno.writeTextFile(path, full.slice(0, full.indexOf('"m1')));
  assertEquals((await readTrajectory(path)).data.messages, [msg(0)]);
  await Deno.writeTextFile(path, '{"info": {"exit_status": "Sub');
  await assertRejects(() => readTrajectory(path), SyntaxError, "no messages array");
});

Deno.test("readTrajectory() keeps a whole info when only the closing brace is missing", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const w = new TrajectoryWriter(path);
  await w.save([msg(0)], { exit_status: "Submitted", submission: "p" });
  w.close();
  const full = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, full.slice(0, full.lastIndexOf("}")));
  const torn = await readTrajectory(path);
  assert(torn.repaired);
  assertEquals(torn.data.info, { exit_status: "Submitted", submission: "p" });
});
