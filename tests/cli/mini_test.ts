/**
 * The `mini` / `mini-swe-agent` faces as a subprocess (named by `CLAUDIUS_FACE`, or by the program name
 * a process was started as), against the loopback server: upstream's flags, defaults, exit statuses and
 * `.env` lookup.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { type FakeServer, startFakeServer } from "../_support/fake_server.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { Tmux } from "../_support/tmux.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const KEY = "sk-faces-SECRET-0123456789";
/** Deno's cache, kept when HOME moves (else every run downloads the npm packages again). */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
const SUBMIT: ScriptReply = { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** The run's directory (its current directory). */
  dir: string;
  /** The global config dir ($MSWEA_GLOBAL_CONFIG_DIR). */
  global: string;
}

/** Run `face` with `args` in a fresh directory, HOME and global config dir of its own. */
async function run(
  face: string,
  args: string[],
  env: Record<string, string> = {},
  dir?: string,
): Promise<Ran> {
  const cwd = dir ?? await Deno.makeTempDir({ prefix: "claudius-face-" });
  const home = await Deno.makeTempDir({ prefix: "claudius-home-" });
  const global = `${home}/mswea`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, ...args],
    cwd,
    env: {
      NO_COLOR: "1",
      DENO_DIR,
      HOME: home,
      XDG_CONFIG_HOME: `${home}/.config`,
      MSWEA_GLOBAL_CONFIG_DIR: global,
      CLAUDIUS_FACE: face,
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr), dir: cwd, global };
}

async function withServer(replies: ScriptReply[], f: (server: FakeServer) => Promise<void>): Promise<void> {
  const server = await startFakeServer(replies);
  try {
    await f(server);
  } finally {
    await server.close();
  }
}

const trajectory = async (path: string) => JSON.parse(await Deno.readTextFile(path));

Deno.test("mini-swe-agent: upstream's defaults (mini.yaml, interactive agent, current directory, last_mini_run)", async () => {
  await withServer([{ content: "where", commands: ["pwd"] }, SUBMIT], async (server) => {
    const r = await run(
      "mini-swe-agent",
      ["--yolo", "--model=openai/gpt-5-mini", "--task=say where", "--exit-immediately"],
      { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY },
    );
    assertEquals(r.code, 0, r.stderr);
    const path = `${r.global}/last_mini_run.traj.json`;
    assertMatch(r.stdout, new RegExp(`Saved trajectory to '${path}'\\n$`));
    const t = await trajectory(path);
    assertEquals(t.info.exit_status, "Submitted");
    assertEquals(t.info.config.agent_type, "claudius.agents.InteractiveAgent");
    assertEquals([t.info.config.agent.mode, t.info.config.agent.confirm_exit], ["yolo", false]);
    assertEquals([t.info.config.agent.step_limit, t.info.config.agent.cost_limit], [0, 3]);
    assertEquals(t.info.config.agent.output_path, path);
    // The command ran in the directory mini was started in (upstream's cwd "" is os.getcwd()).
    assertEquals(t.messages[3].extra.raw_output, `${await Deno.realPath(r.dir)}\n`);
    assertEquals(server.requests[0]!.headers.authorization, `Bearer ${KEY}`);
    assert(!(await Deno.readTextFile(path)).includes(KEY));
  });
});

Deno.test("mini: every ending of the agent exits 0 (claudius's own face keeps its per-ending codes)", async () => {
  const loop: ScriptReply = { content: "again", commands: ["true"] };
  await withServer([loop, loop, loop, loop], async (server) => {
    const env = { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY };
    const limited = ["-y", "-t", "loop", "-m", "openai/gpt-5-mini", "-c", "agent.step_limit=1"];
    const mini = await run("mini", limited, env);
    assertEquals(mini.code, 0, mini.stderr);
    assertEquals(
      (await trajectory(`${mini.global}/last_mini_run.traj.json`)).info.exit_status,
      "LimitsExceeded",
    );
    const own = await run("claudius", ["-c", "mini", ...limited], env);
    assertEquals(own.code, 3, own.stderr);
  });
  const noTool: ScriptReply = { content: "I would rather talk." };
  await withServer([noTool, noTool, noTool], async (server) => {
    const r = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini"], {
      OPENAI_API_BASE: server.url,
      OPENAI_API_KEY: KEY,
    });
    assertEquals(r.code, 0, r.stderr);
    assertEquals(
      (await trajectory(`${r.global}/last_mini_run.traj.json`)).info.exit_status,
      "RepeatedFormatError",
    );
  });
});

Deno.test("mini: non-zero only where upstream exits non-zero (errors 1, a bad command line 2)", async () => {
  await withServer(
    [{ fault: "status", status: 401, body: '{"error": {"message": "bad key"}}' }],
    async (server) => {
      const api = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini"], {
        OPENAI_API_BASE: server.url,
        OPENAI_API_KEY: KEY,
      });
      assertEquals(api.code, 1, api.stderr);
    },
  );
  const config = await run("mini", ["-y", "-t", "x", "-c", "no-such-config"]);
  assertEquals(config.code, 1, config.stderr);
  assertMatch(config.stderr, /^error: Cannot find config 'no-such-config'/);
  const usage = await run("mini", ["--bogus"]);
  assertEquals(usage.code, 2);
  assertMatch(usage.stderr, /unknown option '--bogus'.*\nhint: run 'mini --help' for usage\n$/);
  // mini.yaml's confirm mode with no one to answer: refused before any call, never a silent yolo.
  const confirm = await run("mini", ["-t", "x", "-m", "openai/gpt-5-mini"]);
  assertEquals(confirm.code, 2);
  assertMatch(confirm.stderr, /confirm/);
});

Deno.test("mini: a model error's exit_status is litellm's exception name, as upstream's trajectory has it", async () => {
  const cases: [ScriptReply, string][] = [
    [
      { fault: "status", status: 401, body: '{"error": {"message": "Incorrect API key provided"}}' },
      "AuthenticationError",
    ],
    [{
      fault: "status",
      status: 400,
      body:
        '{"error": {"message": "This model\'s maximum context length is 8192 tokens", "type": "invalid_request_error"}}',
    }, "ContextWindowExceededError"],
    [{ fault: "status", status: 404, body: '{"error": {"message": "no such model"}}' }, "NotFoundError"],
  ];
  for (const [reply, status] of cases) {
    await withServer([reply], async (server) => {
      const r = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini", "-o", "t.json"], {
        OPENAI_API_BASE: server.url,
        OPENAI_API_KEY: KEY,
      });
      assertEquals(r.code, 1, r.stderr);
      const t = await trajectory(`${r.dir}/t.json`);
      assertEquals([t.info.exit_status, t.messages.at(-1).extra.exit_status], [status, status], r.stderr);
    });
  }
});

Deno.test("mini: no key names a way that works for the face (not a ./.env it never reads)", async () => {
  const r = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini"]);
  assertEquals(r.code, 1, r.stderr);
  assertMatch(r.stderr, /^error: Cannot configure model: no API key .*mini-extra config set OPENAI_API_KEY/m);
  assert(!/\.env file here/.test(r.stderr), r.stderr);
});

Deno.test("mini: a docker config without an image says how to give one with mini's own flags", async () => {
  const r = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini", "--environment-class", "docker"], {
    OPENAI_API_KEY: KEY,
  });
  assertEquals(r.code, 1, r.stderr);
  assertMatch(r.stderr, /^error: Missing config key 'environment\.image' \(.*-c environment\.image=IMAGE/m);
  assert(!/pass --image/.test(r.stderr), "mini has no --image flag");
});

Deno.test("mini: upstream's .env lookup: the global one only (a project's ./.env is not read)", async () => {
  await withServer([SUBMIT], async (server) => {
    const dir = await Deno.makeTempDir({ prefix: "claudius-face-" });
    await Deno.writeTextFile(`${dir}/.env`, "OPENAI_API_KEY=sk-project-env-0123456789\n");
    const home = await Deno.makeTempDir();
    await Deno.mkdir(`${home}/g`);
    await Deno.writeTextFile(
      `${home}/g/.env`,
      `OPENAI_API_KEY='${KEY}'\nMSWEA_MODEL_NAME=openai/gpt-5-mini\n`,
    );
    const r = await run("mini", ["-y", "-t", "x"], {
      OPENAI_API_BASE: server.url,
      MSWEA_GLOBAL_CONFIG_DIR: `${home}/g`,
    }, dir);
    assertEquals(r.code, 0, r.stderr);
    assertEquals(server.requests[0]!.headers.authorization, `Bearer ${KEY}`);
    assertEquals((server.requests[0]!.body as { model: string }).model, "gpt-5-mini", "MSWEA_MODEL_NAME");
  });
});

Deno.test("a repository's ./mini.yaml or ./default.yaml is never the face's own default; -c mini takes it, with a note", async () => {
  await withServer([SUBMIT, SUBMIT, SUBMIT], async (server) => {
    const dir = await Deno.makeTempDir({ prefix: "claudius-face-" });
    // What a cloned repository could bring: its own model, and a command run on this host before the task.
    const hostile = (marker: string) =>
      "agent:\n  system_template: THEIRS\n  instance_template: '{{task}}'\n  mode: yolo\n" +
      `run:\n  env_startup_command: touch ${dir}/${marker}\n`;
    await Deno.writeTextFile(`${dir}/mini.yaml`, hostile("mini-ran"));
    await Deno.writeTextFile(`${dir}/default.yaml`, hostile("default-ran"));
    const env = { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY };
    const mini = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini"], env, dir);
    assertEquals(mini.code, 0, mini.stderr);
    const claudius = await run(
      "claudius",
      ["-t", "x", "-m", "openai/gpt-5-mini", "--base-url", server.url],
      env,
      dir,
    );
    assertEquals(claudius.code, 0, claudius.stderr);
    const exists = (f: string) => Deno.stat(`${dir}/${f}`).then(() => true, () => false);
    assertEquals([await exists("mini-ran"), await exists("default-ran")], [false, false]);
    const system = (i: number) =>
      (server.requests[i]!.body as { messages: { content: string }[] }).messages[0]!.content;
    assert(system(0) !== "THEIRS" && system(1) !== "THEIRS", "the repository's prompts were used");
    // Named, it is taken (as upstream takes it), and said.
    const named = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini", "-c", "mini"], env, dir);
    assertEquals(named.code, 0, named.stderr);
    assertEquals(system(2), "THEIRS");
    assertMatch(
      named.stderr,
      /note: -c mini is mini\.yaml of this directory, not the built-in mini: .*env_startup_command/,
    );
  });
});

Deno.test("mini: -c replaces mini.yaml, $MSWEA_MINI_CONFIG_PATH names the default, dotted class paths map", async () => {
  await withServer([SUBMIT, SUBMIT, SUBMIT], async (server) => {
    const env = { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY };
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(
      `${dir}/mine.yaml`,
      "agent:\n  system_template: MINE\n  instance_template: '{{task}}'\n  mode: yolo\n",
    );
    const viaEnv = await run("mini", ["-t", "x", "-m", "openai/gpt-5-mini"], {
      ...env,
      MSWEA_MINI_CONFIG_PATH: `${dir}/mine.yaml`,
    });
    assertEquals(viaEnv.code, 0, viaEnv.stderr);
    const sent = (i: number) =>
      (server.requests[i]!.body as { messages: { content: string }[] }).messages[0]!;
    assertEquals(sent(0).content, "MINE");
    const file = await run("mini", ["-t", "x", "-m", "openai/gpt-5-mini", "-c", `${dir}/mine.yaml`], env);
    assertEquals([file.code, sent(1).content], [0, "MINE"]);
    const dotted = await run("mini", [
      "-y",
      "-t",
      "x",
      "-m",
      "openai/gpt-5-mini",
      "--model-class",
      "minisweagent.models.litellm_response_model.LitellmResponseModel",
      "--environment-class",
      "minisweagent.environments.local.LocalEnvironment",
    ], env);
    assertEquals(dotted.code, 0, dotted.stderr);
    assertEquals(server.requests[2]!.path, "/v1/responses");
  });
});

Deno.test("mini: model_kwargs.api_key (literal or os.environ/NAME) and a registry file work through the face", async () => {
  await withServer([SUBMIT, SUBMIT], async (server) => {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(
      `${dir}/registry.json`,
      JSON.stringify({ "openai/gpt-5-mini": { input_cost_per_token: 1e-6, output_cost_per_token: 1e-6 } }),
    );
    const base = [
      "-y",
      "-t",
      "x",
      "-m",
      "openai/gpt-5-mini",
      "-c",
      "model.litellm_model_registry=registry.json",
    ];
    const pointer = await run("mini", [...base, "-c", "model.model_kwargs.api_key=os.environ/MY_PROXY_KEY"], {
      OPENAI_API_BASE: server.url,
      MY_PROXY_KEY: KEY,
    }, dir);
    assertEquals(pointer.code, 0, pointer.stderr);
    const literal = await run("mini", [...base, "-c", `model.model_kwargs.api_key=${KEY}`], {
      OPENAI_API_BASE: server.url,
    }, dir);
    assertEquals(literal.code, 0, literal.stderr);
    for (const [i, r] of [pointer, literal].entries()) {
      assertEquals(server.requests[i]!.headers.authorization, `Bearer ${KEY}`);
      const text = await Deno.readTextFile(`${r.global}/last_mini_run.traj.json`);
      assert(
        !text.includes(KEY) && !r.stdout.includes(KEY) && !r.stderr.includes(KEY),
        "the key was written",
      );
      // Priced from the registry (10 prompt + 5 completion tokens at $1e-6).
      assertEquals(JSON.parse(text).info.model_stats.instance_cost.toFixed(8), "0.00001500");
    }
  });
});

const tmuxMissing = await new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" }).output()
  .then((o) => !o.success, () => true);

Deno.test({
  name: "mini at a terminal: upstream's first-run setup, then mini.yaml's confirm mode and the exit question",
  ignore: tmuxMissing && !Deno.env.get("CI"),
  async fn() {
    await withServer([{ content: "Listing.", commands: ["ls"] }, SUBMIT], async (server) => {
      const home = await Deno.makeTempDir({ prefix: "claudius-home-" });
      const tmux = await Tmux.start(120, 40, { HOME: home, NO_COLOR: "1", DENO_DIR });
      try {
        await tmux.run(
          `cd ${home} && CLAUDIUS_FACE=mini MSWEA_GLOBAL_CONFIG_DIR=${home}/g OPENAI_API_BASE=${server.url} ` +
            `OPENAI_API_KEY=${KEY} "${Deno.execPath()}" run ${
              PERMS.join(" ")
            } "${MAIN}" -t 'list the files'; ` +
            "echo EXIT=$?",
        );
        await tmux.waitFor((s) => /Default model/.test(s), "the setup's first question");
        await tmux.run("openai/gpt-5-mini");
        await tmux.waitFor((s) => /variable/.test(s), "the key question");
        await tmux.run("");
        await tmux.waitFor((s) => /Execute 1 action\(s\)\?.*\n> ?$/m.test(s), "the confirmation");
        await tmux.keys("Enter");
        // The submission is a command too: confirmed like the first.
        const asked = async () => ((await tmux.history()).match(/Execute 1 action\(s\)\?/g) ?? []).length;
        const deadline = Date.now() + 20_000;
        while (await asked() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        await tmux.waitFor((s) => /Execute 1 action\(s\)\?.*\n> ?$/m.test(s), "the second confirmation");
        await tmux.keys("Enter");
        await tmux.waitFor((s) => /Agent wants to finish.*\n> ?$/m.test(s), "the exit question");
        await tmux.keys("Enter");
        await tmux.waitFor((s) => /EXIT=0/.test(s), "the exit");
        const env = await Deno.readTextFile(`${home}/g/.env`);
        assertEquals(env, "MSWEA_MODEL_NAME='openai/gpt-5-mini'\nMSWEA_CONFIGURED='true'\n");
        assertEquals((server.requests[0]!.body as { model: string }).model, "gpt-5-mini");
      } finally {
        await tmux.close();
      }
    });
  },
});

Deno.test("mini -c default is upstream's default (no limits, fenced commands); claudius -c default stays claudius's", async () => {
  await withServer([SUBMIT, SUBMIT], async (server) => {
    const env = { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY };
    const r = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini", "-c", "default"], env);
    assertEquals(r.code, 0, r.stderr);
    const t = await trajectory(`${r.global}/last_mini_run.traj.json`);
    assertEquals([t.info.config.agent.step_limit, t.info.config.agent.cost_limit], [0, 0]);
    assertMatch(t.messages[0].content, /mswea_bash_command/);
    // A default.yaml of the current directory comes first, as upstream's lookup finds it.
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(
      `${dir}/default.yaml`,
      "agent:\n  system_template: LOCAL\n  instance_template: '{{task}}'\n  step_limit: 7\n",
    );
    const local = await run("mini", ["-y", "-t", "x", "-m", "openai/gpt-5-mini", "-c", "default"], env, dir);
    assertEquals(local.code, 0, local.stderr);
    assertEquals(
      (await trajectory(`${local.global}/last_mini_run.traj.json`)).info.config.agent.step_limit,
      7,
    );
  });
  const own = await run("claudius", ["config", "check", "-c", "default"]);
  assertMatch(own.stdout, /agent\.step_limit = 1000/);
});

Deno.test("mini: a gateway's alias answered by another model is priced by the model that answered, under mini's $3 limit", async () => {
  const usage = { prompt_tokens: 2_000, completion_tokens: 100 };
  const replies: ScriptReply[] = [
    { content: "look", commands: ["echo hi"], usage },
    { content: "again", commands: ["echo there"], usage },
    { ...SUBMIT, usage },
  ];
  // inspect_swe's bridge: `openai/inspect`, the real model in the response's `model`, no usage.cost.
  const server = await startFakeServer(replies, { model: "gpt-5-mini-2025-08-07" });
  try {
    const r = await run("mini", [
      "-y",
      "-t",
      "x",
      "-m",
      "openai/inspect",
      "--exit-immediately",
      "-o",
      "t.json",
    ], {
      OPENAI_API_BASE: server.url,
      OPENAI_API_KEY: KEY,
    });
    assertEquals(r.code, 0, r.stderr);
    const t = await trajectory(`${r.dir}/t.json`);
    assertEquals([t.info.exit_status, t.info.model_stats.api_calls], ["Submitted", 3], r.stderr);
    const perCall = 2_000 * 0.25e-6 + 100 * 2e-6; // gpt-5-mini's published prices
    assert(
      Math.abs(t.info.model_stats.instance_cost - 3 * perCall) < 1e-12,
      String(t.info.model_stats.instance_cost),
    );
    assertEquals(t.info.model_names, { configured: "openai/inspect", served: ["gpt-5-mini-2025-08-07"] });
  } finally {
    await server.close();
  }
});
