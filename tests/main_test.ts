/**
 * The CLI as a subprocess, against the loopback OpenAI-compatible server.
 */
import { assert, assertEquals, assertMatch } from "./_support/assert.ts";
import { NO_TMPFS } from "./_support/tmpfs.ts";
import { startFakeServer } from "./_support/fake_server.ts";
import type { ScriptReply } from "../src/core/models/extra/_script.ts";
import { readTrajectory } from "../src/core/trajectory.ts";
import type { Message } from "../src/core/types.ts";
import { VERSION } from "../src/core/version.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const SECRET = "sk-test-SECRET-0123456789";

interface Spawned {
  child: Deno.ChildProcess;
  dir: string;
  traj: string;
}

async function spawn(args: string[], env: Record<string, string> = {}): Promise<Spawned> {
  const dir = await Deno.makeTempDir();
  const traj = `${dir}/out/run.json`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, "-o", traj, ...args],
    cwd: dir,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  return { child, dir, traj };
}

async function runCli(args: string[], env: Record<string, string> = {}) {
  const s = await spawn(args, env);
  const out = await s.child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
    ...s,
  };
}

Deno.test("claudius runs a tool-call episode end to end and exits 0 on submission", async () => {
  const server = await startFakeServer([
    { content: "Look around.", commands: ["echo hello; echo oops >&2", "pwd"] },
    { content: "Submit.", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo the answer"] },
  ]);
  try {
    const r = await runCli([
      "--task",
      "Say hello",
      "-m",
      "test-model",
      "--base-url",
      server.url,
      "-c",
      "model.api_key_env=TEST_KEY",
    ], {
      TEST_KEY: SECRET,
    });
    assertEquals(r.code, 0, r.stderr);
    const { data } = await readTrajectory(r.traj);
    assertEquals(data.trajectory_format, "mini-swe-agent-1.1");
    assertEquals(data.messages.map((m: Message) => m.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "exit",
    ]);
    assertEquals(data.info.exit_status, "Submitted");
    assertEquals(data.info.submission, "the answer\n");
    const tool = data.messages[3]!;
    assertEquals(tool.tool_call_id, "call_0_0");
    assertEquals(tool.content, "<returncode>0</returncode>\n<output>\nhello\noops\n</output>\n");
    assertEquals(tool.extra?.raw_output, "hello\noops\n");
    // A fresh working directory of its own: workspace/<run time>/.
    assertMatch(
      String(data.messages[4]!.extra?.raw_output).trim(),
      new RegExp(`^${r.dir}/workspace/\\d{4}-\\S+$`),
    );
    assertMatch(String(data.messages[1]!.content), /Say hello/);
    // What the model was sent: no `extra`, the bash tool, and the key only in the header.
    assertEquals(server.requests.length, 2);
    const body = server.requests[1]!.body as { messages: Message[]; tools: unknown[]; model: string };
    assertEquals(body.model, "test-model");
    assertEquals(body.messages.map((m) => m.role), ["system", "user", "assistant", "tool", "tool"]);
    assert(body.messages.every((m) => !("extra" in m)));
    assertEquals(body.messages[3]!.content, tool.content);
    assertEquals(server.requests[0]!.headers.authorization, `Bearer ${SECRET}`);
    const file = await Deno.readTextFile(r.traj);
    assert(
      !file.includes(SECRET) && !r.stderr.includes(SECRET) && !r.stdout.includes(SECRET),
      "the key leaked",
    );
  } finally {
    await server.close();
  }
});

Deno.test("claudius sends no Authorization header when no key is configured", async () => {
  const server = await startFakeServer([{ commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] }]);
  try {
    const r = await runCli(["--task", "t", "-m", "local-model", "--base-url", server.url]);
    assertEquals(r.code, 0, r.stderr);
    assertEquals(server.requests[0]!.headers.authorization, undefined);
  } finally {
    await server.close();
  }
});

Deno.test("claudius exits 3 at the step limit and 5 after repeated format errors", async () => {
  const server = await startFakeServer([{ commands: ["true"] }, { commands: ["true"] }]);
  try {
    const r = await runCli(["--task", "t", "-m", "m", "--base-url", server.url, "--step-limit", "2"]);
    assertEquals(r.code, 3, r.stderr);
    const { data } = await readTrajectory(r.traj);
    assertEquals(data.info.exit_status, "LimitsExceeded");
    assertEquals(data.info.model_stats, { instance_cost: 0, api_calls: 2 });
  } finally {
    await server.close();
  }
  const bad = await startFakeServer([{ content: "no tools" }, { content: "still none" }, {
    content: "nope",
  }]);
  try {
    const r = await runCli(["--task", "t", "-m", "m", "--base-url", bad.url]);
    assertEquals(r.code, 5, r.stderr);
    const { data } = await readTrajectory(r.traj);
    assertEquals(data.messages.map((m: Message) => m.role), [
      "system",
      "user",
      "user",
      "user",
      "user",
      "exit",
    ]);
    assertEquals(data.messages[2]!.extra?.interrupt_type, "FormatError");
  } finally {
    await bad.close();
  }
});

Deno.test("claudius reports usage and config errors on one line with exit code 2", async () => {
  const unknown = await runCli(["--task", "t", "--bogus"]);
  assertEquals(unknown.code, 2);
  assertMatch(unknown.stderr, /^error: .*--bogus.*\nhint: run 'claudius --help' for usage\n$/);
  // A subcommand's usage error points at that subcommand's help.
  const batchTypo = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, "batch", "x", "--workrs", "3"],
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  assertEquals(batchTypo.code, 2);
  assertMatch(
    new TextDecoder().decode(batchTypo.stderr),
    /^error: unknown option '--workrs' \(did you mean '--workers'\?\)\nhint: run 'claudius batch --help' for usage\n$/,
  );
  const badNumber = await runCli(["--task", "t", "--step-limit", "many"]);
  assertEquals(badNumber.code, 2);
  assertMatch(badNumber.stderr, /--step-limit must be a whole number/);
  const noTask = await runCli(["-m", "m"]);
  assertEquals(noTask.code, 2);
  assertMatch(noTask.stderr, /no task/);
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/c.yaml`, "agent:\n  step_limit: 2\nmodel:\n  temprature: 1\n");
  const typo = await runCli(["--task", "t", "-c", `${dir}/c.yaml`, "--strict-config"]);
  assertEquals(typo.code, 2);
  assertEquals(typo.stderr, `error: Unknown config key 'model.temprature' in ${dir}/c.yaml:4\n`);
});

Deno.test("claudius stops with RuntimeError when run.env_startup_command fails, before any model call", async () => {
  const server = await startFakeServer([{ commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] }]);
  try {
    const r = await runCli([
      "--task",
      "t",
      "-m",
      "m",
      "--base-url",
      server.url,
      "-c",
      "run.env_startup_command=echo 'no such repo'; exit 3",
    ]);
    assertEquals(r.code, 1, r.stderr);
    assertEquals(server.requests.length, 0, "no paid call after a failed startup command");
    // Upstream's words: RuntimeError(f"Error executing startup command: {out}").
    const text = "Error executing startup command: {'output': 'no such repo\\n', 'returncode': 3, " +
      "'exception_info': ''}";
    assertEquals(r.stderr.split("\n")[0], `error: ${text}`);
    const { data } = await readTrajectory(r.traj);
    assertEquals(data.info.exit_status, "RuntimeError");
    assertEquals(data.messages.map((m: Message) => m.role), ["exit"]);
    assertEquals(data.messages[0]!.content, text);
    assertEquals(data.messages[0]!.extra?.exception_str, text);
    // A long output: one clipped line on stderr, the whole of it in the trajectory.
    const long = await runCli([
      "--task",
      "t",
      "-m",
      "m",
      "--base-url",
      server.url,
      "-c",
      "run.env_startup_command=seq 9999; false",
    ]);
    assertEquals(long.code, 1, long.stderr);
    assertMatch(
      long.stderr,
      /^error: Error executing startup command: \{'output': '1\\n2\\n.{900,}\.\.\. \[\d+ more characters\]\n$/,
    );
    assertMatch(
      String((await readTrajectory(long.traj)).data.messages[0]!.content),
      /9998\\n9999\\n', 'returncode': 1/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("claudius names --task-file when it cannot be read and refuses an empty task before any call", async () => {
  const missing = await runCli(["--task-file", "nope.md", "-m", "m"]);
  assertEquals(missing.code, 2);
  assertMatch(missing.stderr, /^error: Cannot read --task-file 'nope.md': .*No such file/);
  const server = await startFakeServer([{ commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] }]);
  try {
    for (const [args, from] of [[["--task", " \n"], "--task"], [["-c", "run.task="], "run.task"]] as const) {
      const r = await runCli([...args, "-m", "m", "--base-url", server.url]);
      assertEquals(r.code, 2, r.stderr);
      assertMatch(r.stderr, new RegExp(`^error: The task is empty \\(${from}\\)`));
    }
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(`${dir}/empty.md`, "\n");
    const file = await runCli(["--task-file", `${dir}/empty.md`, "-m", "m", "--base-url", server.url]);
    assertMatch(file.stderr, /The task is empty \(--task-file '.*empty.md'\)/);
    assertEquals(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("claudius refuses a config or task file that is not UTF-8, naming the file, line and byte", async () => {
  const dir = await Deno.makeTempDir();
  const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
  await Deno.writeFile(`${dir}/latin1.yaml`, latin1("agent:\n  step_limit: 5\n  system_template: caf\xe9\n"));
  await Deno.writeFile(`${dir}/task.md`, latin1("fix the caf\xe9 menu\n"));
  const config = await runCli(["-c", "default", "-c", `${dir}/latin1.yaml`, "-t", "x", "-m", "m"]);
  assertEquals(config.code, 2);
  assertMatch(config.stderr, /error: Cannot read config .*latin1\.yaml: not UTF-8 text: byte 0xe9 on line 3/);
  const task = await runCli(["--task-file", `${dir}/task.md`, "-m", "m"]);
  assertEquals(task.code, 2);
  assertMatch(
    task.stderr,
    /^error: Cannot read --task-file '.*task\.md': not UTF-8 text: byte 0xe9 on line 1/,
  );
});

Deno.test("only main.ts reads the process environment (Deno.env); the rest is handed what it needs", async () => {
  const offenders: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".ts")) {
        (await Deno.readTextFile(path)).split("\n").forEach((line, i) => {
          const code = line.trim();
          if (/Deno\.env\b/.test(code) && !/^(\*|\/\/|\/\*\*)/.test(code)) offenders.push(`${path}:${i + 1}`);
        });
      }
    }
  };
  await walk(new URL("../src", import.meta.url).pathname);
  assertEquals(offenders, []);
});

Deno.test("claudius --help and --version print and exit 0; --version says where claudius runs from", async () => {
  const help = await runCli(["--help"]);
  assertEquals(help.code, 0);
  assertMatch(help.stdout, /Usage:/);
  const version = await runCli(["--version"]);
  const checkout = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  assertEquals(version.stdout, `claudius ${VERSION} (checkout ${checkout}, deno ${Deno.version.deno})\n`);
});

async function waitFor(pred: () => boolean | Promise<boolean>, ms = 10000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Each signal that ends a run cleanly: its exit code and the status recorded. */
const SIGNALS = [
  ["SIGINT", 130, "Interrupted"],
  ["SIGTERM", 143, "Terminated"],
  ["SIGHUP", 129, "Hangup"],
  ["SIGQUIT", 131, "Quit"],
] as const;

for (const [signal, code, status] of SIGNALS) {
  Deno.test(`claudius on ${signal} mid-command kills the command's group, records ${status}, exits ${code}`, async () => {
    const server = await startFakeServer([{
      commands: ["(sleep 1.5; touch late-marker) & echo started; sleep 30"],
    }]);
    try {
      const s = await spawn([
        "--task",
        "t",
        "-m",
        "m",
        "--base-url",
        server.url,
        "--create-cwd",
        "--cwd",
        "workspace",
      ]);
      await waitFor(() => server.requests.length === 1);
      await new Promise((r) => setTimeout(r, 500));
      s.child.kill(signal);
      const out = await s.child.output();
      assertEquals([out.code, out.signal], [code, null], new TextDecoder().decode(out.stderr));
      const { data, repaired } = await readTrajectory(s.traj);
      assertEquals(repaired, false);
      assertEquals(data.info.exit_status, status);
      assertEquals(data.messages.at(-1)!.role, "exit");
      await new Promise((r) => setTimeout(r, 1500));
      assertEquals(await Deno.stat(`${s.dir}/workspace/late-marker`).then(() => true, () => false), false);
    } finally {
      await server.close();
    }
  });
}

Deno.test("claudius in a terminal that closes (SIGHUP, stderr gone) records Hangup and kills the command", async () => {
  const dir = await Deno.makeTempDir();
  const socket = `claudius-test-${crypto.randomUUID().slice(0, 8)}`;
  const tmux = (...args: string[]) =>
    new Deno.Command("tmux", {
      args: ["-L", socket, ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    })
      .output();
  const replies = JSON.stringify([{ commands: ["(sleep 1.5; touch late) & touch started; sleep 30"] }]);
  const argv = [Deno.execPath(), "run", ...PERMS, MAIN, "--task", "t", "--model-class", "scripted", "-v"];
  argv.push("--create-cwd", "--cwd", "workspace");
  const line = [...argv, "-c", `model.replies=${replies}`, "-o", `${dir}/t.json`]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const started = await tmux("new-session", "-d", "-c", dir, `exec ${line}`);
  assertEquals(started.code, 0, new TextDecoder().decode(started.stderr));
  try {
    const pid = Number(new TextDecoder().decode((await tmux("display", "-p", "#{pane_pid}")).stdout));
    await waitFor(() => Deno.stat(`${dir}/workspace/started`).then(() => true, () => false));
    await tmux("kill-server");
    await waitFor(async () =>
      (await new Deno.Command("kill", { args: ["-0", String(pid)] }).output()).code !== 0
    );
    const { data } = await readTrajectory(`${dir}/t.json`);
    assertEquals(data.info.exit_status, "Hangup");
    await new Promise((r) => setTimeout(r, 2000));
    assertEquals(await Deno.stat(`${dir}/workspace/late`).then(() => true, () => false), false);
  } finally {
    await tmux("kill-server");
  }
});

Deno.test("claudius whose terminal closes at a prompt ends Hangup (129) with its trajectory whole", async () => {
  const dir = await Deno.makeTempDir();
  const socket = `claudius-test-${crypto.randomUUID().slice(0, 8)}`;
  const tmux = (...args: string[]) =>
    new Deno.Command("tmux", {
      args: ["-L", socket, ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    })
      .output();
  const replies = JSON.stringify([{ commands: ["echo hi"] }]);
  const argv = [Deno.execPath(), "run", ...PERMS, MAIN, "--task", "t", "--agent-class", "interactive"];
  const line = [
    ...argv,
    "-c",
    "agent.mode=confirm",
    "--model-class",
    "scripted",
    "-c",
    `model.replies=${replies}`,
  ]
    .concat(["-o", `${dir}/t.json`]).map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  // The shell outlives the hangup (it ignores SIGHUP) to write claudius's exit status down.
  await Deno.writeTextFile(`${dir}/run.sh`, `trap '' HUP\n${line} 2>${dir}/err\necho $? > ${dir}/rc\n`);
  const started = await tmux("new-session", "-d", "-x", "100", "-y", "30", "-c", dir, `bash ${dir}/run.sh`);
  assertEquals(started.code, 0, new TextDecoder().decode(started.stderr));
  try {
    await waitFor(async () =>
      new TextDecoder().decode((await tmux("capture-pane", "-p")).stdout).includes("Execute 1 action(s)?")
    );
    await tmux("kill-server");
    await waitFor(() => Deno.stat(`${dir}/rc`).then((s) => s.size > 0, () => false));
    const stderr = await Deno.readTextFile(`${dir}/err`);
    assertEquals((await Deno.readTextFile(`${dir}/rc`)).trim(), "129", stderr);
    assert(!stderr.includes("Input/output error"), stderr);
    const { data, repaired } = await readTrajectory(`${dir}/t.json`);
    assertEquals([repaired, data.info.exit_status, data.messages.at(-1)!.role], [false, "Hangup", "exit"]);
  } finally {
    await tmux("kill-server");
  }
});

for (
  const [what, breakIt, where] of [
    ["a pipe is put in its place", "rm -f out/run.json && mkfifo out/run.json", "beside it"],
    ["its directory becomes a file", "rm -rf out && touch out", "in the temporary directory"],
  ] as const
) {
  Deno.test(`claudius whose trajectory path stops being writable (${what}) goes on ${where}`, async () => {
    // The model's own commands do it (the working directory is the run's own under the temp dir).
    const server = await startFakeServer([
      { content: "one", commands: ["echo one"] },
      { content: "break", commands: [`cd .. && ${breakIt}`] },
      { content: "three", commands: ["echo three"] },
      { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
    ]);
    try {
      const r = await runCli([
        "--task",
        "t",
        "-m",
        "m",
        "--base-url",
        server.url,
        "--create-cwd",
        "--cwd",
        "ws",
      ]);
      assertEquals(r.code, 0, r.stderr);
      const moved = /it goes on in (\S+)\n/.exec(r.stderr)?.[1];
      assert(moved && moved.endsWith(".traj.json"), r.stderr);
      // The summary names it as the user would type it (relative to where claudius ran).
      const shown = moved!.startsWith(`${r.dir}/`) ? moved!.slice(r.dir.length + 1) : moved!;
      assertMatch(r.stderr, new RegExp(`trajectory saved to ${shown.replace(/[.]/g, "\\.")} `));
      if (where === "beside it") assert(moved!.startsWith(`${r.dir}/out/`), moved);
      const { data } = await readTrajectory(moved!);
      assertEquals(data.info.exit_status, "Submitted");
      // Every paid step is there: system, task, then four replies and their observations, the ending.
      assertEquals(data.messages.filter((m: Message) => m.role === "assistant").length, 4);
      if (where !== "beside it") await Deno.remove(moved!);
    } finally {
      await server.close();
    }
  });
}

Deno.test("claudius killed with SIGKILL leaves a trajectory readable up to the last step", async () => {
  const replies: ScriptReply[] = Array.from({ length: 50 }, (_, i) => ({ commands: [`echo step ${i}`] }));
  const server = await startFakeServer(replies);
  try {
    const s = await spawn(["--task", "t", "-m", "m", "--base-url", server.url]);
    await waitFor(() => server.requests.length >= 10);
    s.child.kill("SIGKILL");
    await s.child.output();
    const { data } = await readTrajectory(s.traj);
    assert(data.messages.length >= 2 + 2 * 8, `only ${data.messages.length} messages`);
    assertEquals(data.messages[0]!.role, "system");
  } finally {
    await server.close();
  }
});

Deno.test("claudius stops after one call when a cost limit is set and no cost is known, unless MSWEA_COST_TRACKING says ignore", async () => {
  const replies: ScriptReply[] = [{ commands: ["true"] }, {
    commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"],
  }];
  const strict = await startFakeServer(replies);
  try {
    const r = await runCli(["--task", "t", "-m", "m", "--base-url", strict.url, "--cost-limit", "3"]);
    assertEquals(r.code, 2, r.stderr);
    assertEquals(strict.requests.length, 1);
    assertMatch(r.stderr, /^error: .*cost.*unknown/m);
    const { data } = await readTrajectory(r.traj);
    assertEquals(data.info.exit_status, "ConfigError");
  } finally {
    await strict.close();
  }
  const lenient = await startFakeServer(replies);
  try {
    const r = await runCli(["--task", "t", "-m", "m", "--base-url", lenient.url, "--cost-limit", "3"], {
      MSWEA_COST_TRACKING: "ignore_errors",
    });
    assertEquals(r.code, 0, r.stderr);
    assertEquals(lenient.requests.length, 2);
  } finally {
    await lenient.close();
  }
});

Deno.test("claudius records a template error of the first message in the trajectory", async () => {
  const server = await startFakeServer([{ commands: ["true"] }]);
  try {
    const r = await runCli([
      "--task",
      "t",
      "-m",
      "m",
      "--base-url",
      server.url,
      "-c",
      "agent.instance_template={{ tsak }}",
    ]);
    assertEquals(r.code, 1, r.stderr);
    assertEquals(
      r.stderr.split("\n")[0],
      "error: Cannot render agent.instance_template: 'tsak' is undefined",
    );
    const { data } = await readTrajectory(r.traj);
    assertEquals(data.info.exit_status, "UndefinedError");
    assertEquals(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("claudius reads upstream's global .env after its own: ~/.config/claudius/.env, then mini-swe-agent's, then ./.env's keys", async () => {
  const server = await startFakeServer(
    Array.from({ length: 4 }, () => ({ commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] })),
  );
  const dir = await Deno.makeTempDir();
  const config = `${dir}/xdg`;
  await Deno.mkdir(`${config}/mini-swe-agent`, { recursive: true });
  await Deno.mkdir(`${config}/claudius`, { recursive: true });
  await Deno.mkdir(`${dir}/global`);
  await Deno.writeTextFile(`${config}/mini-swe-agent/.env`, "MSWEA_MODEL_NAME=from-default-global\n");
  await Deno.writeTextFile(`${dir}/global/.env`, "MSWEA_MODEL_NAME=from-global-dir\n");
  const model = async (env: Record<string, string>) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...PERMS, MAIN, "-t", "t", "--base-url", server.url, "-o", `${dir}/t.json`],
      cwd: dir,
      env: { NO_COLOR: "1", XDG_CONFIG_HOME: config, ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    return (server.requests.at(-1)!.body as { model: string }).model;
  };
  try {
    assertEquals(await model({}), "from-default-global");
    assertEquals(await model({ MSWEA_GLOBAL_CONFIG_DIR: `${dir}/global` }), "from-global-dir");
    await Deno.writeTextFile(`${config}/claudius/.env`, "MSWEA_MODEL_NAME=from-claudius\n");
    assertEquals(await model({ MSWEA_GLOBAL_CONFIG_DIR: `${dir}/global` }), "from-claudius");
    // The project's ./.env comes last and sets keys only: the model stays the user's.
    await Deno.writeTextFile(`${dir}/.env`, "MSWEA_MODEL_NAME=from-cwd\n");
    assertEquals(await model({}), "from-claudius");
  } finally {
    await server.close();
  }
});

Deno.test("claudius stops a run at MSWEA_GLOBAL_CALL_LIMIT with upstream's RuntimeError, exit 1", async () => {
  const server = await startFakeServer([{ commands: ["true"] }, { commands: ["true"] }, {
    commands: ["true"],
  }]);
  try {
    const r = await runCli([
      "-t",
      "t",
      "-m",
      "m",
      "--base-url",
      server.url,
      "-c",
      "model.cost_tracking=ignore_errors",
    ], {
      MSWEA_GLOBAL_CALL_LIMIT: "2",
    });
    assertEquals(r.code, 1, r.stderr);
    assertMatch(r.stderr, /Global cost\/call limit: \$0\.0000 \/ 2\n/);
    assertMatch(r.stderr, /error: Global cost\/call limit exceeded: \$0\.0000 \/ 2/);
    assertEquals(server.requests.length, 2);
    assertEquals((await readTrajectory(r.traj)).data.info.exit_status, "RuntimeError");
  } finally {
    await server.close();
  }
});

/** claudius in `cwd` with exactly `args` (no -o added). */
async function claudiusIn(cwd: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("claudius refuses an unusable output path before the first model call or command", async () => {
  const dir = await Deno.makeTempDir();
  const readOnly = `${dir}/ro`;
  await Deno.mkdir(readOnly);
  const root = Deno.uid() === 0; // root writes through permissions: a read-only mount then
  if (root) {
    const m = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "ro,size=16k", "tmpfs", readOnly],
    })
      .output();
    assert(m.success, new TextDecoder().decode(m.stderr));
  } else await Deno.chmod(readOnly, 0o555);
  await Deno.mkdir(`${dir}/a-dir`);
  const server = await startFakeServer([{ commands: ["touch ran"] }]);
  try {
    for (
      const output of [
        `${readOnly}/t.json`,
        `${readOnly}/sub/t.json`,
        `${dir}/a-dir`,
        "/dev/null",
        "/dev/stdout",
        "-",
      ]
    ) {
      const r = await claudiusIn(dir, [
        "--task",
        "t",
        "-m",
        "m",
        "--base-url",
        server.url,
        "-o",
        output,
        "--create-cwd",
        "--cwd",
        "workspace",
      ]);
      assertEquals(r.code, 2, `${output}: ${r.stderr}`);
      assertMatch(r.stderr, new RegExp(`^error: Cannot write the trajectory to '${output}': [^\\n]+\\n$`));
    }
    assertEquals(server.requests.length, 0);
    assertEquals(await Deno.stat(`${dir}/workspace/ran`).then(() => true, () => false), false);
  } finally {
    await server.close();
    if (root) await new Deno.Command("umount", { args: [readOnly] }).output();
  }
});

Deno.test("claudius refuses a run.atif_path that is the trajectory itself or a directory, before any call", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/a-dir`);
  const server = await startFakeServer([{ commands: ["touch ran"] }]);
  try {
    for (
      const [output, atif] of [
        ["t.traj.json", "t.traj.json"],
        ["out/t.traj.json", "t.traj.json"], // relative to the trajectory's directory
        ["t.traj.json", `${dir}/t.traj.json`],
        ["t.traj.json", "a-dir"],
      ]
    ) {
      const r = await claudiusIn(dir, [
        ...["--task", "t", "-m", "m", "--base-url", server.url, "-o", output!, "-c", `run.atif_path=${atif}`],
      ]);
      assertEquals(r.code, 2, `${output} ${atif}: ${r.stderr}`);
      assertMatch(
        r.stderr,
        /^error: Cannot write run\.atif_path '[^']+': it is (the trajectory|a directory)/,
      );
    }
    assertEquals(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("claudius runs started together with the default output path each get their own file", async () => {
  const n = 4;
  const submit: ScriptReply = { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };
  const server = await startFakeServer(Array(n).fill(submit));
  try {
    const dir = await Deno.makeTempDir();
    const runs = await Promise.all(
      Array.from({ length: n }, () => claudiusIn(dir, ["--task", "t", "-m", "m", "--base-url", server.url])),
    );
    for (const r of runs) assertEquals(r.code, 0, r.stderr);
    const names = [...Deno.readDirSync(`${dir}/runs`)].map((e) => e.name).sort();
    assertEquals(names.length, n, names.join(" "));
    for (const name of names) {
      assertMatch(name, /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[0-9a-f]{4}(\.traj)?\.json$/);
      assertEquals((await readTrajectory(`${dir}/runs/${name}`)).data.info.exit_status, "Submitted");
    }
  } finally {
    await server.close();
  }
});

Deno.test({
  name: "claudius on a full disk stops, names the trajectory and what to do, and leaves it valid JSON",
  ignore: NO_TMPFS, // mounting a tmpfs needs root
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const disk = `${dir}/disk`;
    await Deno.mkdir(disk);
    const m = await new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", "size=64k", "tmpfs", disk] })
      .output();
    assert(m.success, new TextDecoder().decode(m.stderr));
    const print = "head -c 3000 /dev/zero | tr '\\0' x";
    const server = await startFakeServer(Array(40).fill({ commands: [print] }));
    try {
      const traj = `${disk}/run.json`;
      const r = await claudiusIn(dir, ["--task", "t", "-m", "m", "--base-url", server.url, "-o", traj]);
      assertEquals(r.code, 1, r.stderr);
      assertMatch(
        r.stderr,
        new RegExp(`\\nerror: Cannot save trajectory ${traj}: No space left on device.*free space`),
      );
      const data = JSON.parse(await Deno.readTextFile(traj)); // as strict as Python's json.load
      assert(server.requests.length < 40, "the run went on after the disk filled");
      // Every reply but the last is kept; the last too when the disk filled only after it was saved.
      const kept = data.messages.filter((m: Message) => m.role === "assistant").length;
      assert(kept === server.requests.length || kept === server.requests.length - 1, `${kept} replies kept`);
    } finally {
      await server.close();
      await new Deno.Command("umount", { args: [disk] }).output();
    }
  },
});

Deno.test("claudius pays once for each quirky completion: normalised, or a format error the model sees", async () => {
  const body = (message: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: "x",
      choices: message ? [{ index: 0, message, finish_reason: "tool_calls" }] : [],
      usage: { prompt_tokens: 1, completion_tokens: 1, cost: 0.01 },
      ...extra,
    });
  const ok = (b: string): ScriptReply => ({ fault: "status", status: 200, body: b });
  const bash = (args: unknown, id?: unknown) => ({
    ...(id === undefined ? {} : { id }),
    type: "function",
    function: { name: "bash", arguments: args },
  });
  const server = await startFakeServer([
    // A tool call without an id, its arguments an object (not a JSON string).
    ok(body({ role: "assistant", content: null, tool_calls: [bash({ command: "echo one" })] })),
    // Content as a list of text parts; a numeric id.
    ok(body({
      role: "assistant",
      content: [{ type: "text", text: "Now " }, { type: "text", text: "two." }],
      tool_calls: [bash('{"command": "echo two"}', 7)],
    })),
    // Content the model cannot have meant, then no message at all: format errors, still paid.
    ok(body({ role: "assistant", content: 42, tool_calls: [bash('{"command": "echo three"}', "c3")] })),
    ok(body(undefined)),
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"], cost: 0.01 },
  ]);
  try {
    const r = await runCli(["--task", "t", "-m", "m", "--base-url", server.url]);
    assertEquals(r.code, 0, r.stderr);
    assertEquals(server.requests.length, 5);
    const { data } = await readTrajectory(r.traj);
    assertEquals(data.info.model_stats, { instance_cost: 0.05, api_calls: 5 });
    const m = data.messages;
    assertEquals(m.map((x: Message) => x.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "user",
      "user",
      "assistant",
      "exit",
    ]);
    const call = m[2]!.tool_calls![0]!;
    assertMatch(call.id, /^call_[0-9a-f]{24}$/);
    assertEquals([call.function.arguments, m[3]!.tool_call_id, m[3]!.extra?.raw_output], [
      '{"command":"echo one"}',
      call.id,
      "one\n",
    ]);
    assertEquals([m[4]!.content, m[4]!.tool_calls![0]!.id, m[5]!.tool_call_id], ["Now two.", "7", "7"]);
    assertMatch(String(m[6]!.content), /content is neither text nor a list of text parts/);
    assertMatch(String(m[7]!.content), /no message/);
    assertEquals([m[6]!.extra?.cost, m[7]!.extra?.cost], [0.01, 0.01]);
    // What went back to the provider is what was recorded, in the standard shape.
    const sent = (server.requests[1]!.body as { messages: Message[] }).messages[2]!;
    assertEquals(sent.tool_calls, [{
      id: call.id,
      type: "function",
      function: { name: "bash", arguments: '{"command":"echo one"}' },
    }]);
  } finally {
    await server.close();
  }
});

Deno.test("claudius refuses a device or /proc path in one line naming it, exit 2 (the compiled permissions)", async () => {
  const replies = '[{"commands": ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]}]';
  const r = await runCli([
    "--task",
    "t",
    "--model-class",
    "scripted",
    "-c",
    `model.replies=${replies}`,
    "--create-cwd",
    "--cwd",
    "/dev/shm/claudius-x",
  ]);
  assertEquals(r.code, 2, r.stderr);
  assertEquals(
    r.stderr,
    "error: Cannot use environment.cwd '/dev/shm/claudius-x': cannot create it: \"/dev/shm/claudius-x\" is a " +
      "device, /proc or /sys path, which claudius does not use; give a directory (--cwd DIR)\n",
  );
});
