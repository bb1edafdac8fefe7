/**
 * `claudius replay` as a subprocess: upstream's own trajectory files (made by running upstream's
 * Python code: tests/testdata/conformance/gen_conformance.py, tests/testdata/replay/
 * gen_upstream_trajectories.py, tests/testdata/multimodal/gen_multimodal_golden.py) and claudius's
 * runs of the conformance scenarios play back byte for byte (exit 0); a trajectory edited by one byte
 * fails (exit 1) naming the message, its role, the field and both sides; what cannot be replayed is
 * refused (exit 2) saying why.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { loadScript } from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const TESTDATA = new URL("../testdata/", import.meta.url).pathname;
const MULTIMODAL_TASK: string = JSON.parse(
  await Deno.readTextFile(`${TESTDATA}multimodal/multimodal_golden.json`),
).task;

async function claudius(args: string[], cwd?: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { NO_COLOR: "1" },
    stdin: "null",
    ...(cwd ? { cwd } : {}),
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

/** Each message's JSON text without its clock reading (this test's own check of the kept trajectory). */
const texts = (messages: { extra?: { timestamp?: unknown } }[]) =>
  messages.map((m) => {
    const copy = structuredClone(m);
    delete copy.extra?.timestamp;
    return JSON.stringify(copy);
  });

const UPSTREAM_FILES = [
  ...[...Deno.readDirSync(`${TESTDATA}conformance`)].map((e) => `conformance/${e.name}`),
  ...[...Deno.readDirSync(`${TESTDATA}replay`)].map((e) => `replay/${e.name}`),
].filter((f) => f.endsWith("_upstream.traj.json")).sort();

Deno.test("claudius replay of upstream's own trajectories: every message the same, byte for byte", async () => {
  assert(UPSTREAM_FILES.length >= 10, UPSTREAM_FILES.join(" "));
  const dir = await Deno.makeTempDir();
  for (const file of UPSTREAM_FILES) {
    // A task with an image tag in it cannot be read back from the parts it became: it is given.
    const task = file.includes("multimodal") ? ["--task", MULTIMODAL_TASK] : [];
    const r = await claudius(["replay", `${TESTDATA}${file}`, "-o", `${dir}/r.json`, ...task]);
    assertEquals(r.code, 0, `${file}: ${r.stderr}`);
    assertMatch(r.stdout, /^claudius replay: .*: the same, byte for byte: \d+ messages, \d+ model calls/);
    const recorded = JSON.parse(await Deno.readTextFile(`${TESTDATA}${file}`)).messages;
    const replayed = JSON.parse(await Deno.readTextFile(`${dir}/r.json`)).messages;
    // The ending of a run upstream could not finish is its own (an error, with Python's traceback).
    const upTo = file.includes("crash") ? recorded.length - 1 : recorded.length;
    assertEquals(texts(replayed.slice(0, upTo)), texts(recorded.slice(0, upTo)), file);
  }
});

const SCENARIOS = [
  "toolcall",
  "text",
  "claude_toolcall",
  "claude_text",
  "openrouter_response",
  "litellm_response",
];

Deno.test("claudius replay of claudius's runs of the conformance scenarios gives back the goldens' messages", async () => {
  for (const scenario of SCENARIOS) {
    const golden = JSON.parse(await Deno.readTextFile(`${TESTDATA}conformance/${scenario}_golden.json`));
    const server = await startFakeServer(await loadScript(`${TESTDATA}conformance/${golden.replies}`));
    const dir = await Deno.makeTempDir();
    try {
      const run = await claudius([
        "--task",
        golden.task,
        "-m",
        golden.model_name,
        "--model-class",
        golden.model_class,
        "--base-url",
        server.url,
        "-c",
        golden.config.replace(/\.yaml$/, ""),
        "-c",
        "environment.timeout=2",
        "--create-cwd",
        "--cwd",
        `${dir}/ws`,
        "-o",
        `${dir}/t.json`,
      ]);
      assertEquals(run.code, 0, run.stderr);
    } finally {
      await server.close();
    }
    const r = await claudius(["replay", `${dir}/t.json`, "-o", `${dir}/r.json`]);
    assertEquals(r.code, 0, `${scenario}: ${r.stderr}`);
    let text = await Deno.readTextFile(`${dir}/r.json`);
    text = text.replaceAll(JSON.stringify(`${dir}/ws`).slice(1, -1), "<CWD>");
    for (const [flag, placeholder] of [["-v", "<VERSION>"], ["-r", "<RELEASE>"], ["-n", "<NODE>"]]) {
      const out = await new Deno.Command("uname", { args: [flag!] }).output();
      const value = new TextDecoder().decode(out.stdout).trim();
      text = text.replaceAll(JSON.stringify(value).slice(1, -1), placeholder!);
    }
    assertEquals(
      texts(JSON.parse(text).messages),
      golden.messages.map((m: Json) => JSON.stringify(m)),
      scenario,
    );
  }
});

/** Upstream's toolcall trajectory with one byte changed by `edit`; the replay's stderr. */
async function editedReplay(edit: (data: { messages: Record<string, Json>[] }) => void) {
  const data = JSON.parse(await Deno.readTextFile(`${TESTDATA}conformance/toolcall_upstream.traj.json`));
  edit(data);
  const path = `${await Deno.makeTempDir()}/edited.traj.json`;
  await Deno.writeTextFile(path, JSON.stringify(data, null, 2));
  const r = await claudius(["replay", path]);
  assertEquals(r.code, 1, r.stdout + r.stderr);
  return r.stderr;
}

Deno.test("claudius replay of a trajectory edited by one byte fails at that message, naming its role, field and both sides", async () => {
  const observation = await editedReplay((d) => {
    d.messages[3]!.content = String(d.messages[3]!.content).replace("hello", "hellp");
  });
  assertEquals(observation.split("\n").slice(0, 4), [
    "claudius replay: " + observation.split("\n")[0]!.slice(17, observation.indexOf(" differs")) +
    " differs at message 4 of 14 (tool), in the messages sent with model call 2",
    "  field: content: text differs at character 40",
    '  recorded: …"e>0</returncode>\\n<output>\\nhellp\\nerr\\na\\nb\\nc</output>\\n"',
    '  claudius: …"e>0</returncode>\\n<output>\\nhello\\nerr\\na\\nb\\nc</output>\\n"',
  ]);
  const reply = await editedReplay((d) => (d.messages[2]!.content = "Let me look!"));
  assertMatch(
    reply,
    /differs at message 3 of 14 \(assistant\).*\n {2}field: content: text differs at character 11\n/,
  );
  const prompt = await editedReplay((d) => {
    d.messages[0]!.content = String(d.messages[0]!.content).replace("autonomous", "autonomoud");
  });
  assertMatch(
    prompt,
    /differs at message 1 of 14 \(system\), in the messages sent with model call 1\n {2}field: content/,
  );
  const formatError = await editedReplay((d) => {
    d.messages[5]!.content = String(d.messages[5]!.content).replace("could not", "could nor");
  });
  assertMatch(formatError, /differs at message 6 of 14 \(user\)/);
  // The ending: the last message, which no request carries.
  const ending = await editedReplay((d) => (d.messages[13]!.content = "patch-texT\n"));
  assertMatch(
    ending,
    /differs at message 14 of 14 \(exit\), in the messages claudius records\n {2}field: content/,
  );
});

Deno.test("claudius replay -c: a config that changes what the model sees fails; one that does not passes", async () => {
  const file = `${TESTDATA}conformance/toolcall_upstream.traj.json`;
  const changed = await claudius(["replay", file, "-c", "agent.max_consecutive_format_errors=1"]);
  assertEquals(changed.code, 1);
  assertMatch(changed.stderr, /message 7 of 14 \(user\).*\n.*claudius records a message of role "exit"/);
  const same = await claudius(["replay", file, "-c", "agent.max_consecutive_format_errors=5"]);
  assertEquals(same.code, 0, same.stderr);
});

Deno.test("claudius replay refuses what it cannot play back: exit 2 and one line saying why", async () => {
  const data = JSON.parse(await Deno.readTextFile(`${TESTDATA}conformance/toolcall_upstream.traj.json`));
  for (const m of data.messages) delete m.extra?.raw_output;
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/pb.json`, JSON.stringify(data));
  const pb = await claudius(["replay", `${dir}/pb.json`]);
  assertEquals(pb.code, 2);
  assertMatch(
    pb.stderr,
    /^error: Cannot replay \S+pb\.json: its message 4 \(tool\) keeps no raw output .*ProgramBench/,
  );
  const same = await claudius(["replay", `${dir}/pb.json`, "-o", `${dir}/pb.json`]);
  assertEquals(same.code, 2);
  assertMatch(same.stderr, /replay -o names the trajectory being replayed/);
  const file = `${TESTDATA}replay/multimodal_toolcall_upstream.traj.json`;
  const untold = await claudius(["replay", file]);
  assertEquals(untold.code, 2);
  assertMatch(
    untold.stderr,
    /its task cannot be read back from its message 2 .*give it with --task or --task-file/,
  );
});
