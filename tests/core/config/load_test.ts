import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "../../_support/assert.ts";
import {
  checkSource,
  type ConfigIO,
  findKeyLine,
  loadConfig,
  loadSpec,
  mergeTrees,
  parseKeyValue,
} from "../../../src/core/config/load.ts";
import { ApiError, ConfigError } from "../../../src/core/errors.ts";
import { configIO, episodeDeps } from "../../_support/episode.ts";

const io: ConfigIO = configIO();
const builtinDir = io.builtinDir;

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, text);
  return path;
}

Deno.test("mergeTrees() merges mappings recursively and replaces lists and scalars", () => {
  const merged = mergeTrees(
    { agent: { step_limit: 5, x: { a: 1 } }, environment: { run_args: ["--rm", "-x"] } },
    { agent: { x: { b: 2 } }, environment: { run_args: ["--init"] } },
    { agent: { step_limit: 7 } },
  );
  assertEquals(merged, {
    agent: { step_limit: 7, x: { a: 1, b: 2 } },
    environment: { run_args: ["--init"] },
  });
});

Deno.test("parseKeyValue() parses JSON values and keeps other text as strings", () => {
  assertEquals(parseKeyValue("agent.step_limit=5"), { agent: { step_limit: 5 } });
  assertEquals(parseKeyValue("model.model_kwargs.temperature=0.5"), {
    model: { model_kwargs: { temperature: 0.5 } },
  });
  assertEquals(parseKeyValue("model.model_name=openai/gpt-5"), { model: { model_name: "openai/gpt-5" } });
  assertEquals(parseKeyValue('environment.run_args=["--rm"]'), { environment: { run_args: ["--rm"] } });
  assertEquals(parseKeyValue("run.task=a=b"), { run: { task: "a=b" } });
  assertThrows(() => parseKeyValue("agent..x=1"), ConfigError);
});

Deno.test("parseKeyValue() refuses a value nested deeper than a config file may be, naming the key", () => {
  // 5,000 levels overflowed the stack in the merge, with no key named.
  const deep = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
  assertThrows(
    () => parseKeyValue(`model.model_kwargs=${deep(5000)}`),
    ConfigError,
    "Cannot use -c model.model_kwargs=...: its value nests deeper than 100 levels",
  );
  assertThrows(() => parseKeyValue(`model.model_kwargs=${"[".repeat(101)}${"]".repeat(101)}`), ConfigError);
  const ok = parseKeyValue(`model.model_kwargs=${deep(99)}`);
  assert(JSON.stringify(ok).length > 99 * 5);
});

Deno.test("loadSpec() finds built-in configs by name and accepts .yml files", async () => {
  const builtin = await loadSpec("default", io);
  assertEquals(builtin.path, `${builtinDir}/default.yaml`);
  const yml = await tempFile("mine.yml", "agent:\n  step_limit: 3\n");
  assertEquals((await loadSpec(yml, io)).data, { agent: { step_limit: 3 } });
  assertEquals((await loadSpec(yml.replace(/\.yml$/, ""), io)).data, { agent: { step_limit: 3 } });
});

Deno.test("loadSpec() reports a YAML syntax error with file, line and column", async () => {
  const path = await tempFile("bad.yaml", "agent:\n  step_limit: 3\n   cost_limit: [1\n");
  const e = await assertRejects(() => loadSpec(path, io), ConfigError);
  assertMatch(e.message, new RegExp(`^Cannot parse config ${path}:3:\\d+: `));
  await assertRejects(
    () => loadSpec("no-such-config", io),
    ConfigError,
    "Cannot find config 'no-such-config'",
  );
});

Deno.test("checkSource() names the unknown key, its file and line, and the nearest valid key", async () => {
  const path = await tempFile("typo.yaml", "agent:\n  step_limit: 3\n  step_limt: 4\n");
  const source = await loadSpec(path, io);
  const e = await assertRejects(() => checkSource(io.schema, source, () => {}), ConfigError);
  assertEquals(e.message, `Unknown config key 'agent.step_limt' in ${path}:3 (did you mean 'step_limit'?)`);
  const section = await loadSpec(await tempFile("s.yaml", "agnet:\n  step_limit: 1\n"), io);
  assertMatch(
    (await assertRejects(() => checkSource(io.schema, section, () => {}), ConfigError)).message,
    /did you mean 'agent'/,
  );
});

Deno.test("checkSource() names the key path and expected type of a wrong value", async () => {
  const e = await assertRejects(
    () =>
      checkSource(
        io.schema,
        { spec: 'agent.step_limit="x"', data: { agent: { step_limit: "x" } } },
        () => {},
      ),
    ConfigError,
  );
  assertEquals(
    e.message,
    `Config key 'agent.step_limit' in -c 'agent.step_limit="x"' must be an integer, got "x"`,
  );
  await assertRejects(
    () => checkSource(io.schema, { spec: "s", data: { environment: { run_args: "--rm" } } }, () => {}),
    ConfigError,
  );
});

Deno.test("checkSource() warns once per upstream key claudius does not act on", async () => {
  const warnings: string[] = [];
  await checkSource(io.schema, {
    spec: "s",
    data: {
      agent: { mode: "yolo", confirm_exit: false },
      // The singularity class's own key now: read by that class, not warned about.
      environment: { sandbox_build_retries: 5 },
      model: { multimodal_regex: "", cost_per_call: 1 },
    },
  }, (w) => warnings.push(w));
  assertEquals(warnings.length, 1);
  assertMatch(warnings[0]!, /^warning: config key 'model.cost_per_call'/);
});

Deno.test("checkSource() checks the interactive keys' values (patterns are checked where compiled)", async () => {
  const check = (agent: Record<string, unknown>) => () =>
    checkSource(io.schema, { spec: "s", data: { agent } }, () => {});
  await assertRejects(
    check({ mode: "ask" }),
    ConfigError,
    "'agent.mode' in -c 's' must be one of confirm, yolo, human",
  );
  await check({ mode: "human", whitelist_actions: ["^(?P<x>ls)\\b"], confirm_dangerous: ["(?i)rm -rf /"] })();
});

Deno.test("loadConfig() merges left to right and fills documented defaults", async () => {
  const { config } = await loadConfig(
    ["default", "agent.step_limit=7", "environment.env.EXTRA=1"],
    io,
    () => {},
  );
  assertEquals(config.agent.step_limit, 7);
  assertEquals(config.agent.cost_limit, 0);
  assertEquals(config.agent.max_consecutive_format_errors, 3);
  assertEquals(config.environment.timeout, 180);
  assertEquals((config.environment.env as Record<string, string>).EXTRA, "1");
  assertEquals((config.environment.env as Record<string, string>).PAGER, "cat");
  assert(String(config.model.observation_template).includes("elided_chars"));
  const bare = await loadConfig(["agent.system_template=s"], io, () => {});
  assertEquals(bare.config.agent.cost_limit, 3.0, "upstream's default cost limit when no config sets one");
});

Deno.test("loadConfig() reads files as PyYAML does: merge keys, yes/no; an empty file adds nothing", async () => {
  const overlay = await tempFile(
    "overlay.yaml",
    "agent:\n  <<: {step_limit: 9, cost_limit: 2}\n  cost_limit: 4\nrun:\n  save_patch: yes\n",
  );
  const { config } = await loadConfig(["default", overlay], io, () => {});
  assertEquals([config.agent.step_limit, config.agent.cost_limit, config.run.save_patch], [9, 4, true]);
  const empty = await tempFile("empty.yaml", "# everything commented out\n# agent:\n#   step_limit: 1\n");
  const same = await loadConfig(["default", empty], io, () => {});
  assertEquals(same.config.agent.step_limit, 1000);
});

Deno.test("findKeyLine() finds nested keys by indentation", () => {
  const text = "agent:\n  step_limit: 1\nmodel:\n  model_kwargs:\n    step_limit: 2\n  step_limit: 3\n";
  assertEquals(findKeyLine(text, ["model", "step_limit"]), 6);
  assertEquals(findKeyLine(text, ["agent", "step_limit"]), 2);
  assertEquals(findKeyLine(text, ["model", "model_kwargs", "step_limit"]), 5);
});

Deno.test("checkSource() names the template key, file and line of a template syntax error", async () => {
  const path = await tempFile(
    "t.yaml",
    "model:\n  observation_template: |\n    {% if output %}never closed\n",
  );
  const source = await loadSpec(path, io);
  const e = await assertRejects(() => checkSource(io.schema, source, () => {}), ConfigError);
  assertMatch(
    e.message,
    new RegExp(`^Config key 'model.observation_template' in ${path}:2: Cannot parse template: `),
  );
});

Deno.test("model.model_kwargs.timeout is the request deadline when model.request_timeout is unset", async () => {
  const { startFakeServer } = await import("../../_support/fake_server.ts");
  const { makeModel } = await import("../../../src/core/models/classes.ts");
  const server = await startFakeServer([{ fault: "stall", seconds: 5 }]);
  try {
    const { config } = await loadConfig(
      ["default", "model.model_kwargs.timeout=0.3", "model.retry_attempts=1", `model.base_url=${server.url}`],
      io,
      () => {},
      { overrides: { model: { model_name: "m" } } },
    );
    const model = await makeModel(config.model, 0, episodeDeps({ cwd: "/" }));
    const started = performance.now();
    const error = await assertRejects(() => model.query([{ role: "user", content: "hi" }]), ApiError);
    assert(performance.now() - started < 3000, "the 600 s default must not win over model_kwargs.timeout");
    assertMatch(String(error), /within 0\.3 s/);
  } finally {
    await server.close();
  }
});

Deno.test("loadConfig() applies the chosen class's defaults and warns about keys only other classes read", async () => {
  const warnings: string[] = [];
  const { config } = await loadConfig(
    ["default", "environment.image=python:3.12"],
    io,
    (l) => warnings.push(l),
    { overrides: { environment: { environment_class: "docker" } }, implicit: 1 },
  );
  assertEquals(config.environment.interpreter, ["bash", "-lc"], "docker's interpreter");
  assertEquals(config.environment.run_args, ["--rm"]);
  assertEquals(warnings.length, 0);
  const localWarnings: string[] = [];
  const local = await loadConfig(
    ["default", "environment.image=python:3.12"],
    io,
    (l) => localWarnings.push(l),
    { implicit: 1 },
  );
  assertEquals(local.config.environment.interpreter, ["bash", "-c"], "local's interpreter");
  assert(!("image" in local.config.environment));
  assertEquals(localWarnings, [
    "warning: config key 'environment.image' (-c 'environment.image=python:3.12') is not used by " +
    "environment.environment_class 'local'",
  ]);
  await assertRejects(
    () => loadConfig(["default", "environment.environment_class=dokcer"], io, () => {}),
    ConfigError,
    "Unknown environment.environment_class 'dokcer' in -c 'environment.environment_class=dokcer' (known: local, docker",
  );
});

Deno.test("loadConfig() takes upstream's MSWEA_* variables for unset keys, and a config still wins", async () => {
  const hostEnv = { MSWEA_COST_TRACKING: "ignore_errors", MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT: "4" };
  const { config } = await loadConfig(["default"], io, () => {}, { hostEnv });
  assertEquals([config.model.cost_tracking, config.model.retry_attempts], ["ignore_errors", 4]);
  const set = await loadConfig(["default", "model.retry_attempts=2"], io, () => {}, { hostEnv });
  assertEquals(set.config.model.retry_attempts, 2);
  await assertRejects(
    () => loadConfig(["default"], io, () => {}, { hostEnv: { MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT: "x" } }),
    ConfigError,
    "Environment variable MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT (for model.retry_attempts) must be an integer",
  );
  await assertRejects(
    () =>
      loadConfig(["default"], io, () => {}, { hostEnv: { MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT: "0x10" } }),
    ConfigError,
    'got "0x10"',
  );
});

Deno.test("loadSpec() looks in the current dir, $MSWEA_CONFIG_DIR, the built-ins, then their extra/ and benchmarks/", async () => {
  const root = await Deno.makeTempDir();
  const builtin = `${root}/builtin`;
  const mine = `${root}/mine`;
  for (const dir of [`${builtin}/extra`, `${builtin}/benchmarks`, mine, `${root}/cwd`]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  const put = (path: string, steps: number) => Deno.writeTextFile(path, `agent:\n  step_limit: ${steps}\n`);
  await put(`${builtin}/extra/x.yaml`, 1);
  await put(`${builtin}/benchmarks/x.yaml`, 2);
  await put(`${builtin}/benchmarks/y.yml`, 3);
  await put(`${mine}/x.yaml`, 4);
  await put(`${root}/cwd/x.yaml`, 5);
  const steps = async (spec: string, configDir?: string) => {
    const source = await loadSpec(
      spec,
      configIO({ builtinDir: builtin, ...(configDir ? { configDir } : {}) }),
    );
    return (source.data.agent as { step_limit: number }).step_limit;
  };
  assertEquals(await steps("x"), 1, "built-in extra/ before benchmarks/");
  assertEquals(await steps("y"), 3, "benchmarks/, .yml accepted");
  assertEquals(await steps("x.yaml", mine), 4, "$MSWEA_CONFIG_DIR before the built-ins");
  const cwd = Deno.cwd();
  Deno.chdir(`${root}/cwd`);
  try {
    assertEquals(await steps("x", mine), 5, "the current directory first");
  } finally {
    Deno.chdir(cwd);
  }
});

Deno.test("loadSpec() says once that an upstream name runs claudius's own words, unless claudius/NAME names them", async () => {
  const notes: string[] = [];
  // claudius's own default (ProgramBench's settings) is no upstream name; textbased is claudius's only.
  await loadSpec("default", io, (l) => notes.push(l));
  await loadSpec("textbased", io, (l) => notes.push(l));
  assertEquals(notes, []);
  // Every upstream built-in name resolves to claudius's own file of that name, with one note.
  for (
    const name of [
      "mini",
      "mini.yaml",
      "mini_textbased",
      "benchmarks/swebench_backticks",
      "swebench_xml",
      "upstream/default",
    ]
  ) {
    const said: string[] = [];
    const source = await loadSpec(name, io, (l) => said.push(l));
    const file = name.replace(/^benchmarks\//, "").replace(/\.yaml$/, "");
    assertMatch(source.path ?? "", new RegExp(`${file}\.yaml$`));
    assertEquals(said.length, 1, name);
    assertMatch(
      said[0]!,
      new RegExp(
        `^note: ${
          file.replace(/^.*\//, "") === "default" ? "upstream/default" : file
        }'s prompts are claudius's own words, ` +
          `not mini-swe-agent's \\(-c claudius/\\S+ names them so\\); 'claudius config import-upstream' .*brings upstream's$`,
      ),
    );
    const own: string[] = [];
    const named = await loadSpec(`claudius/${name}`, io, (l) => own.push(l));
    assertEquals([named.path, own], [source.path, []], `claudius/${name}`);
  }
});

Deno.test("loadSpec() prefers NAME.yaml over a file named NAME (a program called mini never shadows -c mini)", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/mini`, "\u007fELF not yaml");
  const cwd = Deno.cwd();
  Deno.chdir(dir);
  try {
    assertEquals((await loadSpec("mini", io)).path, `${builtinDir}/mini.yaml`);
    await Deno.writeTextFile(`${dir}/only`, "agent:\n  step_limit: 2\n");
    assertEquals((await loadSpec("only", io)).data, { agent: { step_limit: 2 } });
  } finally {
    Deno.chdir(cwd);
  }
});

Deno.test("loadConfig() runs upstream's swerex environments as docker, with one note and translated timeouts", async () => {
  const notes: string[] = [];
  const { config } = await loadConfig(
    [
      "default",
      "environment.environment_class=swerex_modal",
      "environment.image=img",
      "environment.startup_timeout=600",
      "environment.runtime_timeout=1800.5",
      "environment.install_pipx=true",
    ],
    io,
    (l) => notes.push(l),
    { implicit: 1 },
  );
  assertEquals(config.environment.environment_class, "docker");
  assertEquals([config.environment.pull_timeout, config.environment.container_timeout], [600, "1800.5s"]);
  assert(!("install_pipx" in config.environment) && !("startup_timeout" in config.environment));
  assertEquals(notes.length, 1);
  assertMatch(notes[0]!, /^note: environment_class swerex_modal runs in a local docker container/);
  const chosen = await loadConfig(
    [
      "default",
      "environment.environment_class=swerex_modal",
      "environment.startup_timeout=600",
      "environment.pull_timeout=5",
    ],
    io,
    () => {},
    { implicit: 1 },
  );
  assertEquals(chosen.config.environment.pull_timeout, 5, "a docker key the config sets wins");
  const rex = await loadConfig(["default", "environment.environment_class=swerex_docker"], io, () => {}, {
    implicit: 1,
  });
  assertEquals(rex.config.environment.environment_class, "docker");
});
