/**
 * `claudius resume` as a subprocess against the loopback server: a run is stopped (SIGKILL between
 * steps, SIGINT while a command runs, a torn file, a step limit), resumed, and every request the
 * resumed run sends must be byte for byte the request the uninterrupted run sent at that point.
 * Real bash; docker for the restarted container.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { runCommand } from "../../src/lib/process.ts";
import { loadTrajectory } from "../../src/tools/trajectories/load_trajectory.ts";
import { toAtif } from "../../src/tools/trajectories/to_atif.ts";
import { validateAtif } from "../../src/tools/trajectories/validate_atif.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const DIR = await Deno.makeTempDir({ prefix: "claudius-resume-" });
/** While this file exists, the command of step 4 blocks (the same command text in every run). */
const BLOCK = `${DIR}/block`;
const STARTED = `${DIR}/started`;

/** A reply with explicit tool-call ids, so that a fresh server replays them exactly. */
function reply(step: number, ...commands: string[]): ScriptReply {
  return {
    content: `step ${step}`,
    tool_calls: commands.map((command, k) => ({
      id: `call_s${step}_${k}`,
      type: "function",
      function: { name: "bash", arguments: JSON.stringify({ command }) },
    })),
    cost: 0.01,
  };
}

/** Five steps; step 2 has two actions; every command gives the same output when run again. */
const SCRIPT: ScriptReply[] = [
  reply(1, "echo one > a.txt; ls"),
  reply(2, "echo two > b.txt", "cat a.txt b.txt"),
  reply(3, "wc -l a.txt b.txt"),
  reply(4, `touch ${STARTED}; test -e ${BLOCK} && sleep 60; echo four`),
  reply(5, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat b.txt"),
];

interface Cli {
  child: Deno.ChildProcess;
  done: Promise<{ code: number; stderr: string }>;
}

function cli(args: string[], cwd: string): Cli {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const done = child.output().then((o) => ({ code: o.code, stderr: new TextDecoder().decode(o.stderr) }));
  return { child, done };
}

const runArgs = (url: string, ...more: string[]) => [
  "--task",
  "Count lines",
  "-m",
  "test-model",
  "--base-url",
  url,
  "--create-cwd",
  "--cwd",
  "ws",
  "-o",
  "t.traj.json",
  ...more,
];

async function waitFor(what: string, cond: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`Cannot wait any longer for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/** The uninterrupted run's request bodies, as sent. */
const golden: string[] = await (async () => {
  const server = await startFakeServer(SCRIPT);
  const dir = await Deno.makeTempDir({ dir: DIR });
  try {
    const r = await cli(runArgs(server.url), dir).done;
    if (r.code !== 0) throw new Error(`Cannot record the uninterrupted run: ${r.stderr}`);
    return server.requests.map((q) => q.raw);
  } finally {
    await server.close();
  }
})();

/** Resume `t.traj.json` in `dir` against a server playing SCRIPT from reply `from` (or these replies); the bodies. */
async function resume(dir: string, from: number | ScriptReply[], ...more: string[]) {
  const server = await startFakeServer(typeof from === "number" ? SCRIPT.slice(from) : from);
  try {
    const before = await Deno.readFile(`${dir}/t.traj.json`);
    const r = await cli(["resume", "t.traj.json", "--base-url", server.url, ...more], dir).done;
    assertEquals(await Deno.readFile(`${dir}/t.traj.json`), before, "the predecessor is never changed");
    return { ...r, bodies: server.requests.map((q) => q.raw) };
  } finally {
    await server.close();
  }
}

/** Run SCRIPT in a new directory and send `signal` while step 4's command runs (SIGINT exits 130); the directory. */
async function stopDuringStep4(signal: Deno.Signal): Promise<string> {
  const dir = await Deno.makeTempDir({ dir: DIR });
  await Deno.writeTextFile(BLOCK, "");
  await Deno.remove(STARTED).catch(() => {});
  const server = await startFakeServer(SCRIPT);
  try {
    const run = cli(runArgs(server.url), dir);
    await waitFor("step 4's command", () => exists(STARTED));
    run.child.kill(signal);
    const { code } = await run.done;
    if (signal === "SIGINT") assertEquals(code, 130);
    return dir;
  } finally {
    await server.close();
    await Deno.remove(BLOCK);
  }
}

Deno.test("claudius resume after SIGKILL between steps sends byte for byte the uninterrupted run's requests", async () => {
  const dir = await Deno.makeTempDir({ dir: DIR });
  const server = await startFakeServer([...SCRIPT.slice(0, 2), { fault: "stall", seconds: 60 }]);
  try {
    const run = cli(runArgs(server.url), dir);
    await waitFor("the third request", () => server.requests.length === 3);
    run.child.kill("SIGKILL");
    await run.done;
  } finally {
    await server.close();
  }
  const r = await resume(dir, 2);
  assertEquals(r.code, 0, r.stderr);
  assertMatch(r.stderr, /resuming .*t\.traj\.json \(no ending recorded; 7 messages, 2 model calls\)/);
  assertEquals(r.bodies, golden.slice(2));
  const { data } = await readTrajectory(`${dir}/t.resume1.traj.json`);
  assertEquals(data.info.exit_status, "Submitted");
  assertEquals(data.info.submission, "two\n");
  assertEquals(data.info.model_stats, { instance_cost: 0.05, api_calls: 5 });
  const { config: changed, ...link } = data.info.resumed_from as { config: Record<string, unknown> };
  assertEquals(link, {
    trajectory: `${dir}/t.traj.json`,
    exit_status: "",
    messages: 7,
    api_calls: 2,
    instance_cost: 0.02,
    repaired: false,
    kept: 7,
  });
  // What claudius replay renders the kept messages with: the predecessor's endpoint was another server.
  assertEquals(Object.keys(changed), ["model"]);
  assertEquals(Object.keys(changed.model as object), ["base_url"]);
  assertEquals(data.messages.length, 2 + 2 + 3 + 2 + 2 + 1 + 1);
  // As ATIF: the predecessor's part is copied context (system, task, two agent steps), and named.
  const atif = toAtif(await loadTrajectory(`${dir}/t.resume1.traj.json`));
  assertEquals(validateAtif(atif), []);
  assertEquals(atif.steps.map((s) => s.is_copied_context ?? false), [
    true,
    true,
    true,
    true,
    false,
    false,
    false,
  ]);
  assertEquals((atif.extra?.resumed_from as { trajectory: string }).trajectory, `${dir}/t.traj.json`);
});

Deno.test("claudius resume after SIGINT during a command runs that step's commands again, then sends the next request", async () => {
  const dir = await stopDuringStep4("SIGINT");
  const { data: before } = await readTrajectory(`${dir}/t.traj.json`);
  assertEquals(before.messages.slice(-2).map((m) => m.role), ["assistant", "exit"]);
  const r = await resume(dir, 4);
  assertEquals(r.code, 0, r.stderr);
  assertMatch(r.stderr, /\(Interrupted; 10 messages, 4 model calls, its last step cut short: run again\)/);
  assertEquals(r.bodies, golden.slice(4));
});

Deno.test("claudius resume after SIGKILL during a command buys no reply again: that step's commands run, then the next request", async () => {
  const dir = await stopDuringStep4("SIGKILL");
  // The paid reply of step 4 was saved before its command ran.
  const { data: before } = await readTrajectory(`${dir}/t.traj.json`);
  assertEquals(before.messages.at(-1)?.content, "step 4");
  const r = await resume(dir, 4);
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.bodies, golden.slice(4));
});

Deno.test("claudius resume of a torn trajectory repairs it and redoes the step whose observations were cut", async () => {
  const dir = await Deno.makeTempDir({ dir: DIR });
  const server = await startFakeServer(SCRIPT.slice(0, 3));
  try {
    assertEquals((await cli(runArgs(server.url, "--cost-limit", "0.02"), dir).done).code, 3);
  } finally {
    await server.close();
  }
  // A process killed mid-save: the file ends inside step 2's second observation.
  const text = await Deno.readTextFile(`${dir}/t.traj.json`);
  const cut = text.lastIndexOf('"content"', text.lastIndexOf('"tool_call_id"'));
  await Deno.writeTextFile(`${dir}/t.traj.json`, text.slice(0, cut + 15));
  // Its info comes before the messages: the config it ran with is whole, no flag needs giving again.
  const r = await resume(dir, 2, "--cost-limit", "0");
  assertEquals(r.code, 0, r.stderr);
  assert(!r.stderr.includes("warning"), r.stderr);
  assertMatch(
    r.stderr,
    /5 messages, 2 model calls, its last step cut short: run again, torn file repaired\)/,
  );
  assertEquals(r.bodies, golden.slice(2));
  const { data } = await readTrajectory(`${dir}/t.resume1.traj.json`);
  assertEquals((data.info.resumed_from as { repaired: boolean }).repaired, true);
});

// Limits by cost: a step limit's wrap-up warning (default.yaml) would make the observations differ from the golden run's.
Deno.test("claudius resume at a limit goes on with a raised limit; a submitted run or a bad file is refused", async () => {
  const dir = await Deno.makeTempDir({ dir: DIR });
  const server = await startFakeServer(SCRIPT.slice(0, 3));
  try {
    assertEquals((await cli(runArgs(server.url, "--cost-limit", "0.03"), dir).done).code, 3);
  } finally {
    await server.close();
  }
  const same = await resume(dir, 3);
  assertEquals(same.code, 3, "the same limit stops it again before any call");
  assertEquals(same.bodies, []);
  for (const o of ["t.traj.json", `${dir}/./t.traj.json`]) {
    const over = await resume(dir, 3, "--cost-limit", "0.5", "-o", o);
    assertEquals(over.code, 2, over.stderr);
    assertMatch(
      over.stderr,
      /^error: -o names the trajectory being resumed \(.*t\.traj\.json\), which is never changed/,
    );
    assertEquals(over.bodies, []);
  }
  const r = await resume(dir, 3, "--cost-limit", "0.5", "-o", "more.traj.json");
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.bodies, golden.slice(3));
  const done = await cli(["resume", "more.traj.json"], dir).done;
  assertEquals(done.code, 2);
  assertMatch(
    done.stderr,
    /^error: Cannot resume .*more\.traj\.json: it ended with Submitted, there is nothing to continue\n/,
  );
  const missing = await cli(["resume", "nope.json"], dir).done;
  assertEquals([missing.code, missing.stderr.split("\n")[0]], [
    2,
    `error: Cannot resume ${dir}/nope.json: no such file`,
  ]);
});

Deno.test("claudius resume refuses a redacted value until it is given again, naming the key", async () => {
  const dir = await Deno.makeTempDir({ dir: DIR });
  const header = "model.model_kwargs.extra_headers.Authorization";
  const server = await startFakeServer(SCRIPT.slice(0, 1));
  try {
    const r = await cli(
      runArgs(server.url, "--step-limit", "1", "-c", `${header}=Bearer abc123456789xyz`),
      dir,
    ).done;
    assertEquals(r.code, 3, r.stderr);
  } finally {
    await server.close();
  }
  const text = await Deno.readTextFile(`${dir}/t.traj.json`);
  assert(!text.includes("abc123456789xyz") && text.includes("[REDACTED]"));
  const refused = await resume(dir, 1, "--step-limit", "0");
  assertEquals(refused.code, 2);
  assertMatch(
    refused.stderr,
    new RegExp(`saved redacted \\(\\[REDACTED\\]\\): give it again .*: ${header}\\n`),
  );
  assertEquals(refused.bodies, []);
  const server2 = await startFakeServer(SCRIPT.slice(1));
  try {
    const ok = await cli([
      "resume",
      "t.traj.json",
      "--base-url",
      server2.url,
      "--step-limit",
      "0",
      "-c",
      `${header}=Bearer new-one-0000`,
    ], dir)
      .done;
    assertEquals(ok.code, 0, ok.stderr);
    assertEquals(server2.requests[0]!.headers.authorization, "Bearer new-one-0000");
  } finally {
    await server2.close();
  }
});

// --- docker -------------------------------------------------------------------------------------------

const TINY = "claudius-test-tiny:latest";
const engine =
  (await runCommand(["docker", "info"], { timeoutSeconds: 30 }).catch(() => null))?.exitCode === 0;
const inCI = Boolean(Deno.env.get("CI"));
if (!engine && !inCI) {
  console.error("resume_cli_test.ts: no engine answers `docker info`: docker tests ignored");
}

Deno.test({
  name: "claudius resume in docker: a new container, the startup command again, a restart note, --replay",
  ignore: !engine && !inCI,
  fn: async () => {
    const dir = await Deno.makeTempDir({ dir: DIR });
    const docker = ["--env", "docker", "--image", TINY, "--create-cwd", "--cwd", "/work"];
    const first = await startFakeServer([reply(1, "echo data > f.txt")]);
    try {
      const r = await cli([
        ...runArgs(first.url, "--step-limit", "1", ...docker).filter((a, i, all) =>
          a !== "ws" && all[i + 1] !== "ws"
        ),
        "-c",
        "run.env_startup_command=echo setup > /work/s.txt",
      ], dir).done;
      assertEquals(r.code, 3, r.stderr);
    } finally {
      await first.close();
    }
    const later = [
      reply(2, "cat s.txt; cat f.txt || echo missing"),
      reply(3, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ];
    for (const replay of [false, true]) {
      const server = await startFakeServer(later);
      try {
        const out = `r${replay}.traj.json`;
        const r = await cli([
          "resume",
          "t.traj.json",
          "--base-url",
          server.url,
          "--step-limit",
          "0",
          "-o",
          out,
          ...(replay ? ["--replay"] : []),
        ], dir)
          .done;
        assertEquals(r.code, 0, r.stderr);
        const { data } = await readTrajectory(`${dir}/${out}`);
        const note = data.messages[4]!;
        assertEquals(note.role, "user");
        assertMatch(
          String(note.content),
          /^This run was interrupted and has been resumed\. Your environment was restarted/,
        );
        assertEquals(
          note.extra,
          {
            interrupt_type: "EnvironmentRestarted",
            ...(replay ? { replayed: 1, replay_mismatches: 0 } : {}),
            timestamp: (note.extra as { timestamp: number }).timestamp,
          },
        );
        // The model sees the note in its next request, after the recorded history.
        const sent = (server.requests[0]!.body as { messages: { content: string }[] }).messages;
        assertEquals(sent.length, 5);
        assertEquals(sent[4]!.content, note.content);
        const observation = String(data.messages[6]!.extra?.raw_output);
        assertEquals(
          observation,
          replay ? "setup\ndata\n" : "setup\ncat: can't open 'f.txt': No such file or directory\nmissing\n",
        );
      } finally {
        await server.close();
      }
    }
  },
});

Deno.test("claudius resume after a context compaction sends only the compacted context, as the uninterrupted run did", async () => {
  const usage = (prompt_tokens: number) => ({ usage: { prompt_tokens } });
  const script: ScriptReply[] = [
    { ...reply(1, "echo one"), ...usage(40) },
    { ...reply(2, "echo two"), ...usage(60) }, // reaches 50: the model summarises before the next query
    { content: "I ran echo one and echo two.", cost: 0.01, ...usage(70) },
    { ...reply(4, "echo three"), ...usage(30) },
    { ...reply(5, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"), ...usage(35) },
  ];
  const compress = [
    "-c",
    "mechanisms.compression.enabled=true",
    "-c",
    "mechanisms.compression.prompt_tokens=50",
  ];
  const whole = await startFakeServer(script);
  const dir = await Deno.makeTempDir({ dir: DIR });
  let bodies: string[];
  try {
    assertEquals((await cli(runArgs(whole.url, ...compress), dir).done).code, 0);
    bodies = whole.requests.map((q) => q.raw);
  } finally {
    await whole.close();
  }
  const cut = await Deno.makeTempDir({ dir: DIR });
  const first = await startFakeServer(script.slice(0, 4));
  try {
    assertEquals((await cli(runArgs(first.url, ...compress, "--cost-limit", "0.04"), cut).done).code, 3);
  } finally {
    await first.close();
  }
  const r = await resume(cut, script.slice(4), "--cost-limit", "0");
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.bodies, bodies.slice(4));
  const { data } = await readTrajectory(`${cut}/t.resume1.traj.json`);
  const facts = data.info.mechanisms as { compression: { compactions: unknown[] } };
  assertEquals(facts.compression.compactions.length, 1, "the compaction before the resume is counted");
});

Deno.test("claudius resume of an interactive run without a terminal: refused unless -y, then goes on in yolo mode", async () => {
  const dir = await Deno.makeTempDir({ dir: DIR });
  const server = await startFakeServer(SCRIPT.slice(0, 3));
  try {
    assertEquals((await cli(runArgs(server.url, "--cost-limit", "0.02"), dir).done).code, 3);
  } finally {
    await server.close();
  }
  // As an interactive run in confirm mode would have recorded it.
  const data = JSON.parse(await Deno.readTextFile(`${dir}/t.traj.json`));
  data.info.config.agent_type = "claudius.agents.InteractiveAgent";
  data.info.config.agent.mode = "confirm";
  await Deno.writeTextFile(`${dir}/t.traj.json`, JSON.stringify(data, null, 2));
  const refused = await resume(dir, 2, "--cost-limit", "0");
  assertEquals(refused.code, 2);
  assertMatch(
    refused.stderr,
    /agent\.mode is 'confirm' \(set in .*t\.traj\.json\) but stdin is not a terminal.*pass -y/,
  );
  const r = await resume(dir, 2, "--cost-limit", "0", "-y");
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.bodies, golden.slice(2));
  const { data: resumed } = await readTrajectory(`${dir}/t.resume1.traj.json`);
  assertEquals(
    (resumed.info.config as { agent_type: string }).agent_type,
    "claudius.agents.InteractiveAgent",
  );
});
