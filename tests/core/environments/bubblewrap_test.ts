/**
 * BubblewrapEnvironment with the real `bwrap`. When bwrap is missing or cannot create namespaces
 * here these tests are ignored with the reason, except when `CI` is set: there they must run.
 */
import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "../../_support/assert.ts";
import { BubblewrapEnvironment } from "../../../src/core/environments/extra/bubblewrap.ts";
import { runCommand } from "../../../src/lib/process.ts";
import type { ConfigInput } from "../../../src/core/config/keys.ts";
import type { BUBBLEWRAP_KEYS } from "../../../src/core/environments/_keys.ts";
import { warnSlowBashEnv } from "../../../src/core/environments/extra/bash_env.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { makeEnvironment } from "../../../src/core/environments/classes.ts";
import { configIO, episodeDeps, runWithFeatures } from "../../_support/episode.ts";
import { loadConfig } from "../../../src/core/config/load.ts";

const probe = await runCommand(["bwrap", "--ro-bind", "/", "/", "true"], { timeoutSeconds: 30 }).then(
  (r) => (r.exitCode === 0 ? "" : `\`bwrap --ro-bind / / true\` fails: ${r.output.trim()}`),
  (e) => `bwrap is not installed (${e instanceof Error ? e.message : e})`,
);
const inCI = Boolean(Deno.env.get("CI"));
if (probe && !inCI) console.error(`bubblewrap_test.ts: ${probe}: bubblewrap tests ignored (set CI to fail)`);

function bwrapTest(name: string, fn: () => Promise<void>): void {
  Deno.test({
    name,
    ignore: probe !== "" && !inCI,
    fn: async () => {
      if (probe) throw new Error(`Cannot run bubblewrap tests: ${probe} and CI is set`);
      await fn();
    },
  });
}

async function withEnv(
  config: ConfigInput<typeof BUBBLEWRAP_KEYS>,
  fn: (env: BubblewrapEnvironment, cwd: string) => void | Promise<void>,
  hostEnv: Record<string, string> = Deno.env.toObject(),
): Promise<void> {
  const cwd = await Deno.makeTempDir({ prefix: "claudius-bwrap-" });
  const env = new BubblewrapEnvironment({ ...config, cwd }, { hostEnv });
  try {
    await env.start();
    await fn(env, cwd);
  } finally {
    await env.close();
    await Deno.remove(cwd, { recursive: true });
  }
}

bwrapTest("BubblewrapEnvironment.execute() writes inside cwd and cannot write to /usr", async () => {
  await withEnv({}, async (env, cwd) => {
    const ok = await env.execute({ command: "echo made > inside.txt && pwd" });
    assertEquals(ok, { output: `${cwd}\n`, returncode: 0, exception_info: "" });
    assertEquals(await Deno.readTextFile(`${cwd}/inside.txt`), "made\n");
    const usr = await env.execute({ command: "touch /usr/claudius-bwrap-probe" });
    assertEquals(usr.returncode, 1);
    assertMatch(usr.output, /Read-only file system/);
    // /tmp is private to each sandbox: nothing written there reaches the host or the next command.
    await env.execute({ command: "echo x > /tmp/claudius-bwrap-private" });
    assertEquals(
      (await env.execute({ command: "test -e /tmp/claudius-bwrap-private; echo $?" })).output,
      "1\n",
    );
    await assertRejects(() => Deno.stat("/tmp/claudius-bwrap-private"), Deno.errors.NotFound);
  });
});

bwrapTest("BubblewrapEnvironment network: false leaves only the loopback interface", async () => {
  const interfaces = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '";
  await withEnv({ network: false }, async (env) => {
    assertEquals((await env.execute({ command: interfaces })).output, "lo\n");
  });
  const host = (await runCommand(["bash", "-c", interfaces], { timeoutSeconds: 10 })).output;
  await withEnv({}, async (env) => {
    assertEquals((await env.execute({ command: interfaces })).output, host);
  });
});

bwrapTest("BubblewrapEnvironment.execute() kills the whole sandbox on timeout", async () => {
  await withEnv({ timeout: 1 }, async (env, cwd) => {
    const t0 = performance.now();
    const out = await env.execute({ command: "echo started; sleep 60 | cat & echo $! > bg.pid; sleep 60" });
    const seconds = (performance.now() - t0) / 1000;
    assert(seconds < 4, `took ${seconds} s`);
    assertEquals(out.returncode, -1);
    assertEquals(out.output, "started\n");
    assertMatch(
      out.exception_info,
      /^An error occurred while executing the command: Command '\['bwrap', '--unshare-user-try', .*'--die-with-parent', '--bind', .*'bash', '-c', 'echo started; .*'\]' timed out after 1 seconds$/,
    );
    assertEquals(out.extra?.exception_type, "TimeoutExpired");
    const pid = (await Deno.readTextFile(`${cwd}/bg.pid`)).trim();
    // `cat`, because Deno refuses reads under /proc/<pid>/ without --allow-all.
    const stat = await runCommand(["cat", `/proc/${pid}/stat`], { timeoutSeconds: 10 });
    const state = stat.exitCode === 0 ? stat.output.split(") ")[1]?.[0] : "gone";
    assert(state === "gone" || state === "Z", `background pipeline ${pid} survived the timeout: ${state}`);
  });
});

bwrapTest("BubblewrapEnvironment passes the host environment, and env wins over wrapper_args", async () => {
  const hostEnv = { ...Deno.env.toObject(), CLAUDIUS_HOST_VAR: "from-host" };
  await withEnv({ env: { PATH: "/opt/none:/usr/bin:/bin", MY_VAR: "a b 'c'" } }, async (env) => {
    const out = await env.execute({ command: 'printf "%s|%s|%s" "$CLAUDIUS_HOST_VAR" "$MY_VAR" "$PATH"' });
    assertEquals(out.output, "from-host|a b 'c'|/opt/none:/usr/bin:/bin");
  }, hostEnv);
  await withEnv({}, async (env) => {
    const out = await env.execute({ command: 'echo "$PATH"' });
    assertEquals(out.output, "/usr/local/bin:/usr/sbin:/usr/bin:/bin\n");
  }, hostEnv);
});

bwrapTest("BubblewrapEnvironment.templateVars() has the config and the host's uname", async () => {
  await withEnv({ network: false }, (env, cwd) => {
    const vars = env.templateVars();
    assertEquals(vars.cwd, cwd);
    assertEquals(vars.network, false);
    assertEquals(vars.node, Deno.hostname());
    assertEquals(vars.system, "Linux");
    assert(Array.isArray(vars.wrapper_args) && vars.wrapper_args.includes("--tmpfs"));
    assert(!(vars.wrapper_args as string[]).includes("--new-session"));
  });
});

bwrapTest("BubblewrapEnvironment.start() fails naming bwrap's complaint", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    const env = new BubblewrapEnvironment(
      { cwd, wrapper_args: ["--ro-bind", "/claudius-no-such-dir", "/x"] },
      { hostEnv: Deno.env.toObject() },
    );
    await assertRejects(
      () => env.start(),
      Error,
      "Cannot start bubblewrap sandbox: bwrap: Can't find source path",
    );
    await env.close();
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("BubblewrapEnvironment rejects a relative cwd and a wrong network type", () => {
  assertThrows(() => new BubblewrapEnvironment({ cwd: "work" }, { hostEnv: {} }), ConfigError, "cwd");
  assertThrows(
    () => new BubblewrapEnvironment({ cwd: "/tmp", network: "no" as unknown as boolean }, { hostEnv: {} }),
    ConfigError,
    "'environment.network' must be true or false",
  );
});

bwrapTest("makeEnvironment() builds bubblewrap in ./workspace (created) with the config's keys", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const env = await makeEnvironment(
      { environment_class: "bubblewrap", cwd: "", timeout: 5, network: false, forward_env: [] },
      episodeDeps({ hostEnv: Deno.env.toObject(), runId: "bw", cwd: dir }),
    );
    assert(env instanceof BubblewrapEnvironment);
    await env.start();
    const out = await env.execute({ command: "pwd; touch made" });
    await env.close();
    assertEquals(out.output, `${dir}/workspace\n`);
    assertEquals(env.config.timeout, 5);
    assert((await Deno.stat(`${dir}/workspace/made`)).isFile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

bwrapTest("BubblewrapEnvironment.execute() runs a 150 KB heredoc (too long for an argument)", async () => {
  await withEnv({}, async (env) => {
    const out = await env.execute({ command: `cat <<'EOF' | wc -c\n${"x".repeat(150_000)}\nEOF` });
    assertEquals(out, { output: "150001\n", returncode: 0, exception_info: "" });
  });
});

bwrapTest(
  "warnSlowBashEnv() says how long the BASH_ENV file bash sources takes, not when it is quick",
  async () => {
    await withEnv({}, async (_, cwd) => {
      await Deno.writeTextFile(`${cwd}/slow_rc`, "sleep 2.2\n");
      await Deno.writeTextFile(`${cwd}/quick_rc`, ":\n");
      for (const [rc, expected] of [["slow_rc", 1], ["quick_rc", 0]] as const) {
        const config = { environment_class: "bubblewrap", env: { BASH_ENV: `${cwd}/${rc}` }, timeout: 20 };
        const env = new BubblewrapEnvironment({ ...config, cwd }, { hostEnv: Deno.env.toObject() });
        await env.start();
        const logs: string[] = [];
        try {
          await warnSlowBashEnv(env, config, (l) => logs.push(l));
        } finally {
          await env.close();
        }
        assertEquals(logs.length, expected, logs.join("\n"));
        if (expected) {
          assertMatch(
            logs[0]!,
            /BASH_ENV=.*slow_rc: bash sources it before every command, which takes 2\.\d s/,
          );
        }
      }
    });
  },
);

bwrapTest("a run whose environment sources a failing BASH_ENV says so before its first step", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-bwrap-" });
  try {
    // Fails only where it is sourced the second time: the empty command after the sandbox's start.
    await Deno.writeTextFile(
      `${dir}/rc`,
      `echo >> ${dir}/sourced; [ "$(wc -l < ${dir}/sourced)" = 2 ] && exit 3\n`,
    );
    const overrides = {
      agent: { step_limit: 1 },
      model: { model_class: "scripted", replies: [{ commands: ["echo hi"] }] },
      environment: { environment_class: "bubblewrap", cwd: dir, env: { BASH_ENV: `${dir}/rc` } },
    };
    const { config } = await loadConfig(["default"], configIO(), () => {}, { overrides });
    const logs: string[] = [];
    await runWithFeatures(
      config,
      { task: "t", outputPath: `${dir}/t.traj.json` },
      episodeDeps({ log: (l) => logs.push(l) }),
    );
    const warned = logs.findIndex((l) =>
      l.startsWith(`warning: environment.env.BASH_ENV=${dir}/rc: bash sources it`)
    );
    assert(warned >= 0, logs.join("\n"));
    assertMatch(logs[warned]!, /an empty command failed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
