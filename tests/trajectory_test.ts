import { assert, assertEquals } from "./_assert.ts";
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
