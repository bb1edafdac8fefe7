import { assert, assertEquals, assertMatch, assertRejects } from "../_support/assert.ts";
import {
  readTrajectory,
  TRAJECTORY_FORMAT,
  TrajectorySaveError,
  TrajectoryWriter,
} from "../../src/core/trajectory.ts";
import { parseTrajectoryText } from "../../src/core/trajectory.ts";
import { ConfigError } from "../../src/core/errors.ts";
import { configIO } from "../_support/episode.ts";

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

Deno.test("TrajectoryWriter.open() refuses a file another writer holds, and leaves that writer's file whole", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const first = new TrajectoryWriter(path);
  await first.save([msg(0)], { exit_status: "" });
  const second = new TrajectoryWriter(path);
  await assertRejects(
    () => second.save([msg(9)], { exit_status: "" }),
    ConfigError,
    `Cannot write the trajectory to '${path}': another process is writing it`,
  );
  await first.save([msg(0), msg(1)], { exit_status: "Submitted" });
  assertEquals(JSON.parse(await Deno.readTextFile(path)).messages, [msg(0), msg(1)]);
  first.close();
  await second.save([msg(9)], { exit_status: "" }); // free again once the first is done
  second.close();
  assertEquals(JSON.parse(await Deno.readTextFile(path)).messages, [msg(9)]);
});

Deno.test("TrajectoryWriter.save() appends instead of rewriting the whole file", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  const w = new TrajectoryWriter(path);
  const messages: Message[] = [];
  const big = "x".repeat(2000);
  const config = { agent: { system_template: "s".repeat(5000) } };
  for (let i = 0; i < 300; i++) {
    messages.push({ role: "tool", content: big, tool_call_id: `c${i}`, extra: { raw_output: big } });
    // Twice a step, as the loop saves: the reply, then its output; the call count changes in between.
    await w.save(messages, { model_stats: { api_calls: i + 1 }, config, exit_status: "" });
    await w.save(messages, { model_stats: { api_calls: i + 1 }, config, exit_status: "" });
  }
  w.close();
  const size = (await Deno.stat(path)).size;
  // The fixed 5 KB of config is written once, not after every message.
  assert(w.bytesWritten < 1.1 * size, `wrote ${w.bytesWritten} bytes for a ${size}-byte file`);
  assertEquals(JSON.parse(await Deno.readTextFile(path)).info.model_stats.api_calls, 300);
});

Deno.test("TrajectoryWriter.save() writes the file anew beside it when info outgrows its room, or its config changes", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/t.json`;
  const w = new TrajectoryWriter(path);
  const config = { agent: { mode: "confirm" } };
  await w.save([msg(0)], { config, exit_status: "", submission: "" });
  const long = "diff --git a/x b/x\n".repeat(500); // a patch far larger than the room and a page
  await w.save([msg(0), msg(1)], { config, exit_status: "Submitted", submission: long });
  assertEquals(JSON.parse(await Deno.readTextFile(path)).info.submission, long);
  await w.save([msg(0), msg(1), msg(2)], {
    config: { agent: { mode: "yolo" } },
    exit_status: "",
    submission: "",
  });
  const data = JSON.parse(await Deno.readTextFile(path));
  assertEquals([data.messages, data.info.config.agent.mode], [[msg(0), msg(1), msg(2)], "yolo"]);
  // The file it renamed over the old one is the one it goes on writing (and holding).
  await w.save([msg(0), msg(1), msg(2), msg(3)], { config: { agent: { mode: "yolo" } }, exit_status: "" });
  assertEquals(JSON.parse(await Deno.readTextFile(path)).messages.length, 4);
  await assertRejects(
    () => new TrajectoryWriter(path).open({}),
    ConfigError,
    "another process is writing it",
  );
  // A rewrite that cannot be made leaves the previous save.
  await Deno.mkdir(`${path}.${Deno.pid}.tmp`);
  await assertRejects(
    () => w.save([msg(0), msg(1), msg(2), msg(3)], { config: {}, exit_status: "" }),
    TrajectorySaveError,
    "still holds the run up to the previous step (4 messages)",
  );
  assertEquals(JSON.parse(await Deno.readTextFile(path)).info.config.agent.mode, "yolo");
  w.close();
  assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["t.json"]); // no temporary file left
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

Deno.test("readTrajectory() recovers a file whose last write stopped short over the old end, info whole", async () => {
  // A write cut short by SIGKILL leaves the new bytes up to the cut, then what was there before:
  // the previous save's end of the list (`info` comes before the messages and stays whole).
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
  const cut = before.lastIndexOf("\n  ]") + 2;
  assert(cut < before.length && after.slice(0, cut) !== before.slice(0, cut));
  await Deno.writeTextFile(path, after.slice(0, cut) + before.slice(cut));
  const torn = await readTrajectory(path);
  assert(torn.repaired);
  assertEquals(torn.data.messages, [msg(0), msg(1)]);
  assertEquals(torn.data.info, info);
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
  await Deno.writeTextFile(path, "");
  await assertRejects(
    () => readTrajectory(path),
    SyntaxError,
    `Cannot recover trajectory ${path}: the file is empty`,
  );
});

Deno.test("readTrajectory() stops at a torn tail that reads as a value but is no message", async () => {
  const path = `${await Deno.makeTempDir()}/t.json`;
  // An old tail overwritten front to back, torn: the old `"info"` key now sits where a message would.
  const head = JSON.stringify({ trajectory_format: "x", messages: [msg(0)] }).slice(0, -2);
  await Deno.writeTextFile(path, `${head}, "info", ${JSON.stringify(msg(1))}, 5`);
  assertEquals((await readTrajectory(path)).data.messages, [msg(0)]);
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

const isRoot = Deno.uid() === 0;
const inCI = Boolean(Deno.env.get("CI"));

/** A 64 KiB tmpfs (a really full disk), unmounted after `fn`. */
async function withSmallDisk(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "claudius-full-" });
  const mount = await new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir] })
    .output();
  if (!mount.success) throw new Error(`Cannot mount a tmpfs: ${new TextDecoder().decode(mount.stderr)}`);
  try {
    await fn(dir);
  } finally {
    await new Deno.Command("umount", { args: [dir] }).output();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name:
    "TrajectoryWriter.save() on a full disk keeps the last saved trajectory as valid JSON and names the file",
  ignore: !isRoot && !inCI, // mounting a tmpfs needs root
  fn: async () => {
    await withSmallDisk(async (dir) => {
      // Different sizes put the failing write's end in a message, between messages and inside `info`.
      for (let k = 0; k < 24; k++) {
        const path = `${dir}/t${k}.json`;
        const w = new TrajectoryWriter(path, { top: { instance_id: "i" } });
        const messages: Message[] = [];
        let saved: Message[] = [];
        let error: Error | undefined;
        for (let i = 0; i < 200 && !error; i++) {
          messages.push({ role: "tool", content: "o".repeat(900 + 131 * k), extra: { i } });
          const info = { exit_status: "", config: { agent: { t: "s".repeat(1500 + 257 * k) } }, n: i };
          try {
            await w.save(messages, info);
            saved = [...messages];
          } catch (e) {
            error = e as Error;
          }
        }
        w.close();
        assert(error, "the disk never filled");
        assertMatch(error.message, new RegExp(`^Cannot save trajectory ${path}: .*No space left on device`));
        assertMatch(error.message, /free space/);
        const data = JSON.parse(await Deno.readTextFile(path)); // as strict as Python's json.load
        assertEquals(data.messages, saved, `size step ${k}`);
        await Deno.remove(path);
      }
    });
  },
});

/** The file after every save of a real episode (default config, scripted model, real bash). */
async function realSaves(): Promise<{ files: string[]; messages: Message[][] }> {
  const { loadConfig } = await import("../../src/core/config/load.ts");
  const { runEpisode } = await import("../../src/core/episode.ts");
  const dir = await Deno.makeTempDir({ prefix: "claudius-cuts-" });
  const replies = JSON.stringify([
    { content: "Look.", commands: ["printf 'a\\tb\\n}\\n    }\\n'; ls"] },
    {
      content: "Bad json",
      tool_calls: [{ id: "x", type: "function", function: { name: "bash", arguments: "{" } }],
    },
    { content: "Done.", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo '  ],'"] },
  ]);
  const { config } = await loadConfig(
    ["default", "model.model_class=scripted", `model.replies=${replies}`],
    configIO(),
    () => {},
  );
  const path = `${dir}/t.json`;
  const { agent } = await runEpisode(config, { task: "t", outputPath: path, top: { instance_id: "i" } }, {
    hostEnv: Deno.env.toObject(),
    log: () => {},
    runId: "cuts",
    cwd: dir,
  });
  const info = JSON.parse(await Deno.readTextFile(path)).info;
  // Replay the episode's saves (after each step) through a writer, keeping the file after each.
  const files: string[] = [];
  const messages: Message[][] = [];
  const w = new TrajectoryWriter(`${dir}/replay.json`, { top: { instance_id: "i" } });
  for (const n of [2, 4, 5, 7, 8]) {
    const part = agent.messages.slice(0, n);
    await w.save(part, { ...info, model_stats: { api_calls: n } });
    files.push(await Deno.readTextFile(`${dir}/replay.json`));
    messages.push(part);
  }
  w.close();
  assertEquals(messages.at(-1)!.at(-1)!.role, "exit");
  await Deno.remove(dir, { recursive: true });
  return { files, messages };
}

Deno.test("parseTrajectoryText() recovers a real trajectory cut at any byte, and any save torn at any byte", async () => {
  const { files, messages } = await realSaves();
  const check = (text: string, atLeast: Message[], atMost: Message[], what: string) => {
    assert(text.includes('"info": {'), what);
    let data: Record<string, unknown> & { messages: Message[] };
    try {
      data = parseTrajectoryText(text, "t.json").data as typeof data;
    } catch (e) {
      throw new Error(`${what}: ${(e as Error).message}`);
    }
    const got = data.messages;
    assert(got.length >= atLeast.length && got.length <= atMost.length, `${what}: ${got.length} messages`);
    assertEquals(got, atMost.slice(0, got.length), what);
    assertEquals([data.trajectory_format, data.instance_id], [TRAJECTORY_FORMAT, "i"], what);
    assert(typeof data.info === "object" && data.info !== null, what); // info comes first: never torn
  };
  // A cut anywhere after info (a kill during any write, or a disk that filled).
  const last = files.at(-1)!;
  const head = last.indexOf('"messages": [') + 13;
  const final = messages.at(-1)!;
  const ends = final.map((_, i) => last.indexOf("\n    }", nthMessageStart(last, i)) + 6);
  for (let cut = head; cut <= last.length; cut++) {
    check(last.slice(0, cut), final.filter((_, i) => ends[i]! <= cut), final, `final file cut at ${cut}`);
  }
  // Each save over the one before, stopped short at every byte of each of the writer's writes (a
  // full disk, or a SIGKILL between pages): first info's room rewritten in place (one write inside
  // one page, whole or not at all); then the new bytes past the old end; then the old end
  // overwritten in place but for its lead (`\n  ]`); then the lead.
  for (let s = 1; s < files.length; s++) {
    const [old, next] = [files[s - 1]!, files[s]!];
    const [before, after] = [messages[s - 1]!, messages[s]!];
    const at = old.lastIndexOf("\n  ]");
    const lead = at + old.slice(at).indexOf("]") + 1;
    assertEquals(next.indexOf('"messages": ['), old.indexOf('"messages": ['), `save ${s} moved the messages`);
    const roomed = next.slice(0, old.indexOf('"messages": [')) + old.slice(old.indexOf('"messages": ['));
    check(roomed, before, before, `save ${s}: room rewritten`);
    const appended = next.slice(old.length);
    for (let k = 0; k <= appended.length; k++) {
      check(roomed + appended.slice(0, k), before, after, `save ${s}: appended ${k}`);
    }
    for (let k = 0; lead + k <= old.length; k++) {
      const inPlace = roomed.slice(0, lead) + next.slice(lead, lead + k) + roomed.slice(lead + k) + appended;
      check(inPlace, before, after, `save ${s}: in place ${k}`);
    }
    for (let j = 0; at + j <= lead; j++) {
      check(
        next.slice(0, at + j) + roomed.slice(at + j, lead) + next.slice(lead),
        before,
        after,
        `save ${s}: lead ${j}`,
      );
    }
  }
});

/** Where message `i` starts in a trajectory text. */
function nthMessageStart(text: string, i: number): number {
  let at = text.indexOf('"messages": [');
  for (let k = 0; k <= i; k++) at = text.indexOf("\n    {", at + 1);
  return at;
}

Deno.test("TrajectoryWriter.save() writes the whole trajectory again when its file or directory was removed", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/out/t.traj.json`;
  const writer = new TrajectoryWriter(path);
  const messages = [{ role: "system", content: "s" }, { role: "user", content: "u" }];
  await writer.save(messages, { exit_status: "" });
  // A command of the run removed the trajectory's directory (then its file: a new one in its place).
  await Deno.remove(`${dir}/out`, { recursive: true });
  messages.push({ role: "assistant", content: "a" });
  await writer.save(messages, { exit_status: "" });
  assertEquals((await readTrajectory(path)).data.messages, messages);
  await Deno.remove(path);
  await Deno.writeTextFile(path, "stale");
  messages.push({ role: "exit", content: "done" });
  await writer.save(messages, { exit_status: "Submitted" });
  writer.close();
  const back = await readTrajectory(path);
  assertEquals([back.data.messages, back.data.info.exit_status, back.repaired], [
    messages,
    "Submitted",
    false,
  ]);
});
