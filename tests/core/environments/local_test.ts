import { assert, assertEquals, assertRejects, assertThrows } from "../../_support/assert.ts";
import { ConfigError, EnvironmentLost } from "../../../src/core/errors.ts";
import { LocalEnvironment } from "../../../src/core/environments/local.ts";
import { probeUname } from "../../../src/core/environments/_uname.ts";

const HOST = Deno.env.toObject();

async function sh(script: string): Promise<string> {
  const out = await new Deno.Command("bash", { args: ["-c", script] }).output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("LocalEnvironment.execute() runs bash and reports output and exit code", async () => {
  const env = new LocalEnvironment({}, HOST);
  assertEquals(await env.execute({ command: "echo hello; [[ 1 == 1 ]] && exit 7" }), {
    output: "hello\n",
    returncode: 7,
    exception_info: "",
  });
  assertEquals((await env.execute({ command: "echo a; echo b >&2; echo c" })).output, "a\nb\nc\n");
  assertEquals((await env.execute({ command: "cat; echo closed" })).output, "closed\n");
});

Deno.test("LocalEnvironment.execute() reports syntax errors with bash's line numbers", async () => {
  const out = await new LocalEnvironment({}, HOST).execute({ command: "echo (" });
  assertEquals(
    out.output,
    "bash: -c: line 1: syntax error near unexpected token `newline'\nbash: -c: line 1: `echo ('\n",
  );
  assertEquals(out.returncode, 2);
});

Deno.test("LocalEnvironment.execute() merges config env over the host env, in cwd", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const env = new LocalEnvironment({ cwd: dir, env: { A: "config" } }, {
      A: "host",
      B: "host",
      PATH: HOST.PATH ?? "",
    });
    const out = await env.execute({ command: 'echo "$A $B ${HOME-nohome}"; pwd' });
    assertEquals(out.output, `config host nohome\n${dir}\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LocalEnvironment.execute() times out like upstream, keeping partial output", async () => {
  const env = new LocalEnvironment({ timeout: 1 }, HOST);
  const t0 = performance.now();
  const out = await env.execute({ command: "echo partial; sleep 60 & sleep 5" });
  assert(performance.now() - t0 < 3000);
  const message = "Command 'echo partial; sleep 60 & sleep 5' timed out after 1 seconds";
  assertEquals(out, {
    output: "partial\n",
    returncode: -1,
    exception_info: `An error occurred while executing the command: ${message}`,
    extra: { exception_type: "TimeoutExpired", exception: message },
  });
  const half = await new LocalEnvironment({ timeout: 0.5 }, HOST).execute({ command: "sleep 5" });
  assertEquals(
    half.exception_info,
    "An error occurred while executing the command: Command 'sleep 5' timed out after 0.5 seconds",
  );
});

Deno.test("LocalEnvironment.execute() turns a spawn failure into an observation", async () => {
  const noInterp = await new LocalEnvironment({ interpreter: ["no-such-shell", "-c"] }, HOST).execute({
    command: "true",
  });
  assertEquals(
    [noInterp.returncode, noInterp.exception_info],
    [-1, "An error occurred while executing the command: Cannot run command: no-such-shell: not found"],
  );
});

Deno.test("LocalEnvironment.execute() ends the run EnvironmentLost once a command removed the working directory", async () => {
  const dir = await Deno.makeTempDir();
  const env = new LocalEnvironment({ cwd: `${dir}/ws` }, HOST);
  await Deno.mkdir(`${dir}/ws`);
  assertEquals((await env.execute({ command: "cd .. && rm -rf ws" })).returncode, 0);
  // Before: every later command failed to start (returncode -1, FileNotFoundError) until a limit.
  const err = await assertRejects(() => env.execute({ command: "ls" }), EnvironmentLost);
  assertEquals(err.messages, [{
    role: "exit",
    content: `the working directory ${dir}/ws is gone (a command removed it): no command can run there`,
    extra: { exit_status: "EnvironmentLost", submission: "" },
  }]);
});

Deno.test("LocalEnvironment.execute() stops on abort and close() kills running commands", async () => {
  const env = new LocalEnvironment({ timeout: 0 }, HOST);
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 200);
  const aborted = await env.execute({ command: "echo before; sleep 30" }, ctl.signal);
  assertEquals(
    [aborted.output, aborted.returncode, aborted.exception_info],
    ["before\n", -1, "An error occurred while executing the command: interrupted"],
  );
  const running = env.execute({ command: "sleep 30" });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const t0 = performance.now();
  await env.close();
  assert(performance.now() - t0 < 2000);
  assertEquals((await running).returncode, -1);
  await env.close();
  assertEquals((await env.execute({ command: "echo again" })).output, "again\n");
});

Deno.test("LocalEnvironment.execute() decodes CRLF, lone CR, invalid UTF-8 and astral characters", async () => {
  const out = await new LocalEnvironment({}, HOST).execute({
    command: String.raw`printf 'a\r\nb\rc\xff\xe2\x82\n\xf0\x9f\x98\x80\x00end'`,
  });
  assertEquals(out.output, "a\nb\nc\uFFFD\uFFFD\n😀\0end");
});

Deno.test("LocalEnvironment.templateVars() gives config and uname, never the host environment", async () => {
  const env = new LocalEnvironment({ env: { X: "1" } }, { ...HOST, SECRET_API_KEY: "sk-123" });
  await env.start();
  const vars = env.templateVars();
  const [system, node, release, version, machine] =
    (await sh("uname -s; uname -n; uname -r; uname -v; uname -m"))
      .split("\n");
  assertEquals(vars, {
    cwd: "",
    env: { X: "1" },
    timeout: 30,
    interpreter: ["bash", "-c"],
    system,
    node,
    release,
    version,
    machine,
  });
  assertEquals(env.type, "claudius.environments.LocalEnvironment");
});

Deno.test("probeUname() parses one uname -snrvm line and rejects anything else", async () => {
  const line = "Linux box 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01) x86_64\n";
  assertEquals(await probeUname((argv) => Promise.resolve(argv.join(" ") === "uname -snrvm" ? line : "")), {
    system: "Linux",
    node: "box",
    release: "6.1.0-18-amd64",
    version: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
    machine: "x86_64",
  });
  for (const bad of ["Linux\n", "a b c d\n", "a b c d e\nf\n"]) {
    let err: unknown;
    await probeUname(() => Promise.resolve(bad)).catch((e) => (err = e));
    assert(err instanceof Error && err.message.startsWith("Cannot probe uname"), bad);
  }
});

Deno.test("LocalEnvironment() rejects ill-typed config fields", () => {
  assertThrows(
    () => new LocalEnvironment({ timeout: "30" as unknown as number }, HOST),
    ConfigError,
    "timeout",
  );
  assertThrows(() => new LocalEnvironment({ interpreter: [] }, HOST), ConfigError, "interpreter");
  assertThrows(
    () => new LocalEnvironment({ env: { A: {} as unknown as string } }, HOST),
    ConfigError,
    "environment.env",
  );
  // A variable no process environment can hold would make every command fail to start.
  for (const env of [{ A: "x\u0000y" }, { "A=B": "x" }, { "": "x" }]) {
    assertThrows(() => new LocalEnvironment({ env }, HOST), ConfigError, "environment.env");
  }
  // YAML scalars are variables' values as upstream writes them: `env: {N: 1}` means "1".
  assertEquals(new LocalEnvironment({ env: { N: 1 as unknown as string } }, HOST).config.env.N, "1");
  assertEquals(
    "environment_class" in new LocalEnvironment({ environment_class: "local" }, HOST).config,
    false,
  );
});

Deno.test("LocalEnvironment.close() ends the background processes commands left running", async () => {
  const env = new LocalEnvironment({ timeout: 10 }, HOST);
  // Alive: exists and is no zombie (a killed orphan waits for init to reap it).
  const alive = (pid: string) => sh(`ps -o stat= -p ${pid} | grep -qv Z && echo yes || echo no`);
  // A server started in the background (output detached, so the command returns at once), a
  // double-forked one (reparented to init, still in the command's group), and one still printing.
  const a = (await env.execute({ command: "sleep 300 >/dev/null 2>&1 & echo $!" })).output.trim();
  const b = (await env.execute({ command: "( sleep 301 >/dev/null 2>&1 & echo $! )" })).output.trim();
  const c = (await env.execute({ command: "nohup sleep 302 >/dev/null 2>&1 & echo $!" })).output.trim();
  // Job control (`set -m`) puts a background job in a group of its own, still in the command's session.
  const d = (await env.execute({ command: "set -m; sleep 303 >/dev/null 2>&1 & echo $!" })).output.trim();
  for (const pid of [a, b, c, d]) assertEquals(await alive(pid), "yes\n", `${pid} runs between steps`);
  await env.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of [a, b, c, d]) assertEquals(await alive(pid), "no\n", `${pid} outlived the environment`);
});

Deno.test("LocalEnvironment.execute() runs a 150 KB heredoc (too long for an argument) with stdin closed", async () => {
  const env = new LocalEnvironment({ timeout: 10 }, Deno.env.toObject());
  await env.start();
  try {
    const body = "é".repeat(75_000); // 150,000 bytes of UTF-8
    const out = await env.execute({
      command: `cat <<'EOF' | wc -c\n${body}\nEOF\nread -r x; echo "stdin: $?"; echo "$0" >&2; exit 3`,
    });
    assertEquals(out, { output: "150001\nstdin: 1\nbash\n", returncode: 3, exception_info: "" });
  } finally {
    await env.close();
  }
});

Deno.test("LocalEnvironment.execute() does not source BASH_ENV, as upstream's /bin/sh", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    // A slow rc file that announces itself: bash -c would source it before every command.
    await Deno.writeTextFile(`${dir}/rc`, "echo SOURCED; sleep 5\n");
    const env = new LocalEnvironment({ cwd: dir, timeout: 3, env: { BASH_ENV: `${dir}/rc` } }, HOST);
    const started = performance.now();
    const out = await env.execute({ command: 'echo "rc=$BASH_ENV"' });
    assertEquals(out, { output: `rc=${dir}/rc\n`, returncode: 0, exception_info: "" });
    assert(performance.now() - started < 2500, "the rc file was sourced");
    // The variable reaches what the command starts: a nested bash sources it, as under upstream.
    assertEquals((await env.execute({ command: "bash -c 'echo nested' | head -1" })).output, "SOURCED\n");
    // A host BASH_ENV is not sourced either, and bash's messages keep their line numbers.
    const host = new LocalEnvironment({ timeout: 3 }, { ...HOST, BASH_ENV: `${dir}/rc` });
    assertEquals(
      (await host.execute({ command: "echo (" })).output,
      "bash: -c: line 1: syntax error near unexpected token `newline'\nbash: -c: line 1: `echo ('\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("claudius killed by SIGKILL leaves no command running: the running one and background ones die", async () => {
  const dir = await Deno.makeTempDir();
  const command = "sleep 371 >/dev/null 2>&1 & echo $! > bg.pid; echo $$ > fg.pid; sleep 372";
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../../main.ts", import.meta.url).pathname,
      "-t",
      "t",
      "--model-class",
      "scripted",
    ]
      .concat([
        "-c",
        `model.replies=[{"commands":[${JSON.stringify(command)}]}]`,
        "--create-cwd",
        "--cwd",
        "ws",
        "-o",
        "t.json",
      ]),
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const pidFile = `${dir}/ws/fg.pid`;
  for (let i = 0; i < 300 && !(await Deno.stat(pidFile).then(() => true, () => false)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // The guard learns a command's group moments after it starts (a pipe write); a kill in that instant
  // escapes it. Under a loaded CI that instant can reach tens of ms: kill well after it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.kill("SIGKILL");
  await child.status;
  const pids = [await Deno.readTextFile(`${dir}/ws/bg.pid`), await Deno.readTextFile(pidFile)].map((p) =>
    p.trim()
  );
  const alive = (pid: string) => sh(`ps -o stat= -p ${pid} | grep -qv Z && echo yes || echo no`);
  let left = pids;
  for (let i = 0; i < 100 && left.length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = (await Promise.all(pids.map(async (p) => (await alive(p)) === "yes\n" ? [p] : []))).flat();
  }
  await sh(`kill -KILL ${left.join(" ")} 2>/dev/null`);
  assertEquals(left, [], "commands outlived their claudius");
});
