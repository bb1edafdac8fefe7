/**
 * DockerEnvironment against real engines, Docker and Podman (each test runs under both, see
 * tests/_support/engines.ts), and the images of tests/testdata/images/build_images.sh. Without an
 * engine its tests are ignored, except when `CI` is set: there they fail.
 */
import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "../../_support/assert.ts";
import {
  defaultIsolationArgs,
  DockerEnvironment,
  type DockerEnvironmentConfig,
  type DockerEnvironmentDeps,
} from "../../../src/core/environments/extra/docker.ts";
import { containerLifetime } from "../../../src/core/environments/extra/_container_args.ts";
import { runCommand } from "../../../src/lib/process.ts";
import { ConfigError, EnvironmentLost } from "../../../src/core/errors.ts";
import { warnSlowBashEnv } from "../../../src/core/environments/extra/bash_env.ts";
import { resolveConfig } from "../../../src/core/config/load.ts";
import {
  cli,
  daemon2Pid,
  DEBIAN,
  type Engine,
  engineTest,
  eventually,
  TINY,
} from "../../_support/engines.ts";
import { configSchema } from "../../_support/episode.ts";

async function sh(script: string): Promise<{ code: number | null; out: string }> {
  const r = await runCommand(["bash", "-c", script], { timeoutSeconds: 120 });
  return { code: r.exitCode, out: r.output };
}

const runId = `t${Date.now().toString(36)}`;

/** A DockerEnvironment on engine `e` (its class's defaults: `executable: podman` for podman). */
function make(
  e: Engine,
  config: Partial<DockerEnvironmentConfig>,
  deps: Partial<DockerEnvironmentDeps> = {},
): DockerEnvironment {
  return new DockerEnvironment({ image: TINY, ...config }, { hostEnv: {}, runId, ...deps }, e.name);
}

/** Start an environment, run `fn`, always remove the container. */
async function withEnv(
  e: Engine,
  config: Partial<DockerEnvironmentConfig>,
  fn: (env: DockerEnvironment) => Promise<void> | void,
  hostEnv: Record<string, string> = {},
): Promise<void> {
  const env = make(e, config, { hostEnv });
  try {
    await env.start();
    await fn(env);
  } finally {
    await env.close();
  }
}

/** Command lines of every process in the container but the container's own `sleep` and init. */
async function processes(e: Engine, env: DockerEnvironment): Promise<string[]> {
  const r = await cli(e, [
    "exec",
    env.containerId,
    "sh",
    "-c",
    'for d in /proc/[0-9]*; do [ "${d#/proc/}" = "$$" ] || { tr "\\0" " " < $d/cmdline; echo; }; done',
  ]);
  return r.out.split("\n").map((l) => l.trim()).filter((l) =>
    l && !/^(sleep \S+$|\/sbin\/docker-init|\/run\/podman-init)/.test(l)
  );
}

Deno.test("DockerEnvironment() resolves upstream's defaults and rejects bad config", () => {
  const env = new DockerEnvironment({ image: TINY, cwd: "" }, { hostEnv: {}, runId: "x" });
  assertEquals(env.config, {
    image: TINY,
    cwd: "/",
    env: {},
    forward_env: [],
    timeout: 30,
    executable: "docker",
    run_args: ["--rm"],
    container_timeout: "2h",
    pull_timeout: 120,
    interpreter: ["bash", "-lc"],
  });
  assertEquals(env.type, "claudius.environments.DockerEnvironment");
  const make = (c: Record<string, unknown>) => () => new DockerEnvironment(c, { hostEnv: {}, runId: "x" });
  assertThrows(make({}), ConfigError, "environment.image");
  assertThrows(make({ image: TINY, interpreter: [] }), ConfigError, "environment.interpreter");
  assertThrows(make({ image: TINY, env: { A: {} } }), ConfigError, "environment.env");
  assertThrows(make({ image: TINY, timeout: "30" }), ConfigError, "environment.timeout");
});

Deno.test("environment_class podman resolves executable podman (the class's own default), docker docker", () => {
  const resolve = (environment: Record<string, unknown>) =>
    resolveConfig([{ spec: "test", data: { environment: { image: TINY, ...environment } } }], {
      schema: configSchema(),
    }).environment;
  assertEquals(resolve({ environment_class: "podman" }).executable, "podman");
  assertEquals(resolve({ environment_class: "docker" }).executable, "docker");
  assertEquals(resolve({ environment_class: "podman", executable: "/opt/podman" }).executable, "/opt/podman");
  assertEquals(
    new DockerEnvironment({ image: TINY }, { hostEnv: {}, runId: "x" }, "podman").config.executable,
    "podman",
  );
});

Deno.test("defaultIsolationArgs() caps ProgramBench's 20 CPUs / 60g at what the host has", () => {
  const base = ["--rm", "--network", "none", "--cap-drop", "SYS_PTRACE", "--init"];
  assertEquals(defaultIsolationArgs(2, 8 * 1024 ** 3), [...base, "--cpus", "2", "--memory", "8192m"]);
  assertEquals(defaultIsolationArgs(64, 512 * 1024 ** 3), [...base, "--cpus", "20", "--memory", "60g"]);
  assertEquals(defaultIsolationArgs(0, 0), base);
});

engineTest("execute() runs a command and returns its output and exit code", async (e) => {
  await withEnv(e, {}, async (env) => {
    assertEquals(await env.execute({ command: "echo 'hello world'" }), {
      output: "hello world\n",
      returncode: 0,
      exception_info: "",
    });
    const r = await env.execute({ command: "echo partial; exit 42" });
    assertEquals([r.output, r.returncode], ["partial\n", 42]);
    assertEquals((await env.execute({ command: "kill -9 $$" })).returncode, 137);
  });
});

engineTest("execute() sets env, forwards host variables when set, and env wins", async (e) => {
  const hostEnv = { HOST_VAR: "from_host", CONFLICT: "from_host" };
  const config = {
    env: { SET_VAR: "from config", CONFLICT: "from_config" },
    forward_env: ["HOST_VAR", "NONEXISTENT_VAR", "CONFLICT"],
  };
  await withEnv(e, config, async (env) => {
    const r = await env.execute({ command: 'echo "$SET_VAR|$HOST_VAR|[$NONEXISTENT_VAR]|$CONFLICT"' });
    assertEquals(r.output, "from config|from_host|[]|from_config\n");
  }, hostEnv);
});

engineTest("execute() puts no forwarded value on an argv other local users can read", async (e) => {
  const secret = `s3cret-${crypto.randomUUID()}`;
  const hostEnv = { ...Deno.env.toObject(), API_TOKEN: secret };
  await withEnv(e, { forward_env: ["API_TOKEN"] }, async (env) => {
    const seen = env.execute({ command: 'sleep 1.5; printf %s "$API_TOKEN"' });
    await new Promise((r) => setTimeout(r, 700));
    // Every command line on the host (what `ps` shows every user), the engine CLI's included.
    const argvs = (await sh("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '")).out;
    assertEquals((await seen).output, secret);
    assert(argvs.includes(env.containerId), "the exec client was not seen running");
    assert(!argvs.includes(secret), "a forwarded value is on an argv");
  }, hostEnv);
});

engineTest("execute() puts no environment.env value on an argv either", async (e) => {
  const secret = `s3cret-${crypto.randomUUID()}`;
  const config = { env: { HF_TOKEN: secret, PAGER: "cat" } };
  await withEnv(e, config, async (env) => {
    const seen = env.execute({ command: 'sleep 1.5; printf "%s %s" "$HF_TOKEN" "$PAGER"' });
    await new Promise((r) => setTimeout(r, 700));
    const argvs = (await sh("cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '")).out;
    assertEquals((await seen).output, `${secret} cat`);
    assert(argvs.includes(env.containerId), "the exec client was not seen running");
    assert(!argvs.includes(secret), "an environment.env value is on an argv");
  }, Deno.env.toObject());
});

engineTest("execute() runs in cwd (default /)", async (e) => {
  await withEnv(e, {}, async (env) => assertEquals((await env.execute({ command: "pwd" })).output, "/\n"));
  await withEnv(e, { cwd: "/tmp" }, async (env) => {
    assertEquals((await env.execute({ command: "pwd" })).output, "/tmp\n");
  });
});

engineTest(
  "execute() runs in a cwd the image lacks (docker makes it; podman would refuse to start)",
  async (e) => {
    await withEnv(e, { cwd: "/work/new dir" }, async (env) => {
      assertEquals((await env.execute({ command: "pwd" })).output, "/work/new dir\n");
    });
  },
);

engineTest("execute() keeps the order of interleaved stdout and stderr", async (e) => {
  await withEnv(e, {}, async (env) => {
    const command = "for i in $(seq 1 300); do echo out$i; echo err$i >&2; done";
    const expected = Array.from({ length: 300 }, (_, i) => `out${i + 1}\nerr${i + 1}\n`).join("");
    assertEquals((await env.execute({ command })).output, expected);
  });
});

async function assertTimeoutKillsChildren(e: Engine, image: string): Promise<void> {
  await withEnv(e, { image, timeout: 1, run_args: ["--rm", "--init"] }, async (env) => {
    const command = "(sleep 2; touch /tmp/marker) & echo started; sleep 30";
    const started = performance.now();
    const r = await env.execute({ command });
    assert(performance.now() - started < 4000, "the timeout did not end the command");
    assertEquals([r.output, r.returncode], ["started\n", -1]);
    const text = `Command '['${e.name}', 'exec', '-w', '/', '${env.containerId}', 'bash', '-lc', ` +
      `'(sleep 2; touch /tmp/marker) & echo started; sleep 30']' timed out after 1 seconds`;
    assertEquals(r.exception_info, `An error occurred while executing the command: ${text}`);
    assertEquals(r.extra, { exception_type: "TimeoutExpired", exception: text });
    assertEquals(await processes(e, env), []);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const marker = await env.execute({ command: "ls /tmp/marker" });
    assert(marker.returncode !== 0, "the background child survived the timeout");
  });
}

engineTest("execute() on timeout kills the command and its children inside the container", async (e) => {
  await assertTimeoutKillsChildren(e, TINY);
});

engineTest("execute() on timeout kills the command and its children inside a Debian container", async (e) => {
  if ((await cli(e, ["image", "inspect", DEBIAN])).code !== 0) {
    if (Deno.env.get("CI")) throw new Error(`${DEBIAN} is missing on ${e.name} and CI is set`);
    console.error(`docker_test.ts: ${DEBIAN} missing on ${e.name} (build_images.sh --debian): skipped`);
    return;
  }
  await assertTimeoutKillsChildren(e, DEBIAN);
});

engineTest("execute() reports a timeout with Python's repr of upstream's docker argv", async (e) => {
  const env = { W: "a\\b\x01\x7f\x80\xa0\xad\u{1F600}\u{E0001}\u2028 \r", Q: "x'y", D: `it's "q"` };
  await withEnv(e, { timeout: 1, env, interpreter: ["bash", "-c"] }, async (docker) => {
    const r = await docker.execute({ command: "sleep 5\n\t# é\u200b" });
    const id = docker.containerId;
    const expected = `Command '['${e.name}'` + String
      .raw`, 'exec', '-w', '/', '-e', 'W=a\\b\x01\x7f\x80\xa0\xad😀\U000e0001\u2028 \r', '-e', "Q=x'y", '-e', 'D=it\'s "q"', '${id}', 'bash', '-c', 'sleep 5\n\t# é\u200b']' timed out after 1 seconds`;
    assertEquals(r.extra?.exception, expected);
  });
});

engineTest("execute() on abort kills the command inside the container", async (e) => {
  await withEnv(e, {}, async (env) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const r = await env.execute({ command: "echo begun; sleep 30 & sleep 30" }, controller.signal);
    assertEquals([r.output, r.returncode, r.exception_info], [
      "begun\n",
      -1,
      "An error occurred while executing the command: interrupted",
    ]);
    assertEquals(await processes(e, env), []);
  });
});

engineTest("templateVars() describe the container, not the host", async (e) => {
  await withEnv(e, {}, (env) => {
    const vars = env.templateVars();
    assertEquals(vars.node, env.containerId.slice(0, 12));
    assert(vars.node !== Deno.hostname());
    assertEquals([vars.system, vars.image, vars.cwd, vars.executable], ["Linux", TINY, "/", e.name]);
    assertMatch(String(vars.machine), /\w/);
  });
});

engineTest("start() labels the container, close() removes it and lets its guard go", async (e) => {
  const env = make(e, {}, { runId: `${runId}-close` });
  await env.start();
  const ps = ["ps", "-a", "--filter", `label=claudius.run=${runId}-close`, "--format", "{{.Names}}"];
  assertEquals((await cli(e, ps)).out, `${env.containerName}\n`);
  const labels = await cli(e, ["inspect", "-f", '{{index .Config.Labels "claudius.pid"}}', env.containerId]);
  assertEquals(labels.out, `${Deno.pid}\n`);
  const guards = async () =>
    (await sh("ps -eo args")).out.split("\n")
      .filter((l) => l.includes("claudius-guard") && l.includes(env.containerName));
  assertEquals((await guards()).length, 1, "no guard holds the container's removal");
  await env.close();
  await env.close();
  assertEquals((await cli(e, ps)).out, "");
  assert(await eventually(async () => (await guards()).length === 0, 5000), "the guard outlived close()");
});

engineTest("start() keeps the container as long as the run's wall-time limit needs", async (e) => {
  await withEnv(e, {}, async () => {}); // the image is there
  const env = make(e, {}, { runSeconds: 21600 });
  try {
    await env.start();
    const cmd = await cli(e, ["inspect", "-f", "{{json .Config.Cmd}}", env.containerId]);
    assertEquals(JSON.parse(cmd.out), ["sleep", "22200s"]);
  } finally {
    await env.close();
  }
});

Deno.test("containerLifetime() is container_timeout, or the wall-time limit plus 10 minutes when longer", () => {
  assertEquals(containerLifetime("2h", 21600), "22200s");
  assertEquals(containerLifetime("7h", 21600), "7h");
  assertEquals(containerLifetime("2h", 0), "2h");
  assertEquals(containerLifetime("3600", 3000), "3600");
  assertEquals(containerLifetime("90m", 6000), "6600s");
  assertEquals(containerLifetime("infinity", 21600), "infinity");
});

engineTest("start() rejects with the engine's own reason when the image is missing", async (e) => {
  const env = make(e, { image: "claudius-test-missing:latest", pull_timeout: 30 });
  const err = await assertRejects(() => env.start(), Error);
  assertMatch(
    err.message,
    /^Cannot start container from image claudius-test-missing:latest on the default \w+ engine: /,
  );
  assert(!/Unable to find image .* locally$/.test(err.message), err.message);
  // Docker names the failed pull, podman the short name it cannot resolve.
  assertMatch(err.message, e.name === "docker" ? /Error response from daemon/ : /short-name/);
  assertEquals(env.engineFault()?.kind, "start");
  await env.close();
});

engineTest("--network none leaves only the loopback interface", async (e) => {
  const args = defaultIsolationArgs(navigator.hardwareConcurrency, 1024 ** 3);
  await withEnv(e, { run_args: args }, async (env) => {
    assertEquals((await env.execute({ command: "ls /sys/class/net" })).output, "lo\n");
  });
});

engineTest("execute() throws EnvironmentLost once the container is killed from outside", async (e) => {
  await withEnv(e, {}, async (env) => {
    assertEquals((await env.execute({ command: "true" })).returncode, 0);
    await cli(e, ["kill", env.containerId]);
    const err = await assertRejects(() => env.execute({ command: "echo hi" }), EnvironmentLost);
    assertEquals(err.messages, [{
      role: "exit",
      content: `container ${env.containerName} is gone`,
      extra: { exit_status: "EnvironmentLost", submission: "" },
    }]);
    assertEquals(env.engineFault(), undefined, "a gone container is not the engine's fault");
  });
});

engineTest("execute() throws EnvironmentLost once a command removed the working directory", async (e) => {
  await withEnv(e, { cwd: "/work" }, async (env) => {
    // A failing command in a directory that is there stays an observation.
    assertEquals((await env.execute({ command: "exit 127" })).returncode, 127);
    assertEquals((await env.execute({ command: "cd / && rm -rf /work" })).returncode, 0);
    // Before: every later command failed to start (returncode 126 or 127) until a limit ended the run.
    const err = await assertRejects(() => env.execute({ command: "ls" }), EnvironmentLost);
    assertEquals(err.messages, [{
      role: "exit",
      content:
        `the working directory /work is gone from container ${env.containerName} (a command removed it): ` +
        "no command can run there",
      extra: { exit_status: "EnvironmentLost", submission: "" },
    }]);
  });
});

engineTest("execute() throws EnvironmentLost after container_timeout ends the container", async (e) => {
  await withEnv(e, { container_timeout: "2s" }, async (env) => {
    assertEquals((await env.execute({ command: "echo running" })).output, "running\n");
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await assertRejects(() => env.execute({ command: "echo still" }), EnvironmentLost);
  });
});

engineTest("start() keeps the engine's real error when the engine cannot be reached", async (e) => {
  const env = make(e, {}, { hostEnv: Deno.env.toObject(), dockerHost: "unix:///nonexistent/claudius.sock" });
  const err = await assertRejects(() => env.start(), Error);
  assertMatch(
    err.message,
    e.name === "docker"
      ? /^Cannot start container from image .* on unix:\/\/\/nonexistent\/claudius\.sock: Cannot connect to the Docker daemon at unix:\/\/\/nonexistent\/claudius\.sock/
      : /^Cannot start container from image .* on unix:\/\/\/nonexistent\/claudius\.sock: unable to connect to Podman socket: .*no such file or directory/,
  );
  assert(!/--help/.test(err.message), err.message);
  await env.close();
});

/** A CLI that answers like an unreachable engine once `<dir>/down` exists. */
const DOWN_CLI = (e: Engine, dir: string) =>
  `#!/usr/bin/env bash
if [ -e '${dir}/down' ]; then
  echo "${e.name}: Cannot connect to the engine at unix:///gone.sock. Is it running?" >&2
  echo >&2; echo "Run '${e.name} $1 --help' for more information" >&2; exit 1
fi
exec ${e.name} "$@"
`;

engineTest(
  "execute() ends with EnvironmentLost naming the engine's error when the engine becomes unreachable",
  async (e) => {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(`${dir}/${e.name}`, DOWN_CLI(e, dir), { mode: 0o755 });
    const logs: string[] = [];
    const env = make(e, { executable: `${dir}/${e.name}` }, { log: (l) => logs.push(l), guardSeconds: 3 });
    await env.start();
    const id = env.containerId;
    try {
      await Deno.writeTextFile(`${dir}/down`, "");
      const err = await assertRejects(() => env.execute({ command: "echo hi" }), EnvironmentLost);
      assertEquals(
        err.messages[0]?.content,
        `Cannot reach the default ${e.name} engine: Cannot connect to the engine at unix:///gone.sock. ` +
          `Is it running?; container ${env.containerName} is unreachable`,
      );
      assertEquals(env.engineFault()?.kind, "down");
      await env.close();
      assertMatch(
        logs.join("\n"),
        new RegExp(
          `container .* is left on the default ${e.name} engine: .*\`claudius reap --executable ${dir}/${e.name}\` removes it`,
        ),
      );
    } finally {
      await cli(
        e,
        ["rm", "-f", "-t", "0", id].filter((a) => e.name === "podman" || (a !== "-t" && a !== "0")),
      );
      await Deno.remove(dir, { recursive: true });
    }
  },
);

/** Stop the second engine's daemon for `fn`, always continue it. */
async function frozen<T>(e: Engine, fn: () => Promise<T>): Promise<T> {
  const pid = await daemon2Pid(e);
  Deno.kill(pid, "SIGSTOP");
  try {
    return await fn();
  } finally {
    Deno.kill(pid, "SIGCONT");
  }
}

/** `claudius reap` as a run on engine `e`'s second engine prints it. */
const reapHint = (e: Engine) =>
  `claudius reap${e.name === "podman" ? " --executable podman" : ""} --docker-host ${e.host2}`;

engineTest(
  "execute() notices an engine that stops answering before the command's timeout; the guard removes the container once it answers",
  async (e) => {
    const logs: string[] = [];
    const env = make(e, { timeout: 60 }, {
      hostEnv: Deno.env.toObject(),
      dockerHost: e.host2,
      engineProbeSeconds: 2,
      guardSeconds: 60,
      log: (l) => logs.push(l),
    });
    await env.start();
    const id = env.containerId;
    const clients = async () =>
      (await sh("ps -eo args")).out.split("\n").filter((l) => l.startsWith(`${e.name} `) && l.includes(id));
    try {
      await frozen(e, async () => {
        const t0 = Date.now();
        const err = await assertRejects(() => env.execute({ command: "echo hi; sleep 50" }), EnvironmentLost);
        assertEquals(
          err.messages[0]?.content,
          `${e.host2} stopped answering (no reply to \`${e.name} inspect\` within 2 s); container ${env.containerName} is unreachable`,
        );
        assert(Date.now() - t0 < 10_000, `EnvironmentLost after ${Date.now() - t0} ms (timeout 60 s)`);
        assertEquals(env.engineFault()?.kind, "down");
        const t1 = Date.now();
        await env.close();
        assert(Date.now() - t1 < 5000, `close() took ${Date.now() - t1} ms`);
        assertMatch(logs.join("\n"), new RegExp(`is left on ${e.host2}: .*\`${reapHint(e)}\` removes it`));
        assertEquals(await clients(), [], `a ${e.name} CLI client outlived the run`);
      });
      const left = async () => (await cli(e, ["inspect", id], e.host2)).code === 0;
      assert(await eventually(async () => !(await left()), 20_000), "the guard did not remove the container");
    } finally {
      await cli(e, ["rm", "-f", id], e.host2);
    }
  },
  true,
);

engineTest(
  "start() against a frozen engine names the reap command, and a container it creates late is removed",
  async (e) => {
    const logs: string[] = [];
    const tag = `${runId}-late${e.name}`;
    const env = make(e, { pull_timeout: 2 }, {
      hostEnv: Deno.env.toObject(),
      runId: tag,
      dockerHost: e.host2,
      engineProbeSeconds: 2,
      guardSeconds: 60,
      log: (l) => logs.push(l),
    });
    const ps = ["ps", "-a", "-q", "--filter", `label=claudius.run=${tag}`];
    try {
      await frozen(e, async () => {
        const t0 = Date.now();
        const err = await assertRejects(() => env.start(), Error);
        assertMatch(err.message, /the engine does not answer/);
        assert(Date.now() - t0 < 10_000, `start() failed after ${Date.now() - t0} ms`);
        assertEquals(env.engineFault()?.kind, "down");
        await env.close();
        assertMatch(
          logs.join("\n"),
          new RegExp(`may still appear on ${e.host2}: .*\`${reapHint(e)}\` removes it`),
        );
      });
      // The engine may create it now, from the request it was frozen with: the guard removes it.
      assert(
        await eventually(async () => (await cli(e, ps, e.host2)).out.trim() === "", 30_000),
        `a container of the frozen start is left: ${(await cli(e, ps, e.host2)).out}`,
      );
    } finally {
      const ids = (await cli(e, ps, e.host2)).out.trim().split("\n").filter(Boolean);
      if (ids.length) await cli(e, ["rm", "-f", ...ids], e.host2);
    }
  },
  true,
);

engineTest(
  "DockerEnvironment.execute() runs a 150 KB heredoc (too long for an argument) with stdin closed",
  async (e) => {
    await withEnv(e, {}, async (env) => {
      const out = await env.execute({
        command: `cat <<'EOF' | wc -c\n${"x".repeat(150_000)}\nEOF\nread -r x; echo $?`,
      });
      assertEquals(out, { output: "150001\n1\n", returncode: 0, exception_info: "" });
    });
  },
);

engineTest("warnSlowBashEnv() warns before the first step when the BASH_ENV file hangs bash", async (e) => {
  const config = {
    environment_class: e.name,
    env: { BASH_ENV: "/tmp/rc" },
    timeout: 2,
    interpreter: ["bash", "-c"],
  };
  await withEnv(e, config, async (env) => {
    const logs: string[] = [];
    await warnSlowBashEnv(env, config, (l) => logs.push(l));
    assertEquals(logs.length, 0);
    // A FIFO nobody writes to: bash blocks opening it before every command.
    assertEquals((await env.execute({ command: "mkfifo /tmp/rc" })).returncode, 0);
    await warnSlowBashEnv(env, config, (l) => logs.push(l));
    assertEquals(logs.length, 1);
    assertMatch(
      logs[0]!,
      /BASH_ENV=\/tmp\/rc: .*did not finish within 2 s: expect every command to time out/,
    );
  });
});
