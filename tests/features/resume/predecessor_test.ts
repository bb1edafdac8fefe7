/**
 * readPredecessor() and resumeConfig() in process: trajectories made by real runs (scripted model,
 * real bash) or written by hand, then resumed with runEpisode().
 */
import { REGISTRY } from "../../../src/cli/classes.ts";
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { loadConfig, type ResolvedConfig } from "../../../src/core/config/load.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { UsageError } from "../../../src/lib/flags.ts";
import type { Episode } from "../../../src/core/episode.ts";
import { readPredecessor } from "../../../src/features/resume/predecessor.ts";
import { resumeConfig } from "../../../src/cli/resume_config.ts";
import { LocalEnvironment } from "../../../src/core/environments/local.ts";
import { BubblewrapEnvironment } from "../../../src/core/environments/extra/bubblewrap.ts";
import { DockerEnvironment } from "../../../src/core/environments/extra/docker.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import { configIO, episodeDeps, runWithFeatures } from "../../_support/episode.ts";
import type { FeatureOptions } from "../../../src/cli/features.ts";

const io = { ...configIO(), hostEnv: {}, warn: () => {} };

async function config(specs: string[]): Promise<ResolvedConfig> {
  return (await loadConfig(["default", ...specs], io, () => {})).config;
}

async function episode(
  cfg: ResolvedConfig,
  path: string,
  more: Partial<Episode> = {},
  resume?: FeatureOptions["resume"],
) {
  const deps = episodeDeps({ runId: "resume" });
  return await runWithFeatures(cfg, { task: "t", outputPath: path, ...more }, deps, resume ? { resume } : {});
}

/** Resume `path` (config from the trajectory plus `specs`) into `out`. */
async function resumeRun(path: string, out: string, specs: string[] = []) {
  const p = await readPredecessor(path, REGISTRY);
  const { config: cfg } = await resumeConfig(
    { source: p.source!, unknownClasses: p.unknownClasses },
    specs,
    {},
    io,
  );
  return await episode(cfg, out, { top: p.top }, { ...p.state, restarted: false, replay: false });
}

const ok = (n: number) => ({ content: `ok ${n}`, commands: [`echo ${n}`], cost: 0.5 });
const bad = { content: "no tool call", cost: 0.25 };

Deno.test("a resumed run carries the format-error streak, calls and cost over, and goes on in the script", async () => {
  const dir = await Deno.makeTempDir();
  const replies = JSON.stringify([ok(1), bad, bad, bad, ok(5), ok(6)]);
  const cfg = await config([
    "model.model_class=scripted",
    `model.replies=${replies}`,
    "agent.max_consecutive_format_errors=2",
    `environment.cwd=${dir}/ws`,
    "run.create_cwd=true",
  ]);
  const first = await episode(cfg, `${dir}/a.traj.json`);
  assertEquals(first.result.exit_status, "RepeatedFormatError");
  const p = await readPredecessor(`${dir}/a.traj.json`, REGISTRY);
  assertEquals([p.state.nCalls, p.state.cost, p.state.formatErrors], [3, 1, 2]);
  // Raised to 3: the streak of 2 goes on, so the next malformed reply (the 4th) ends the run again.
  const again = await resumeRun(`${dir}/a.traj.json`, `${dir}/b.traj.json`, [
    "agent.max_consecutive_format_errors=3",
  ]);
  assertEquals(again.result.exit_status, "RepeatedFormatError");
  assertEquals([again.agent.nCalls, again.agent.cost], [4, 1.25]);
  // Raised to 5: two more chances, and the script goes on with reply 5 after reply 4.
  const more = await resumeRun(`${dir}/b.traj.json`, `${dir}/c.traj.json`, [
    "agent.max_consecutive_format_errors=5",
    "agent.step_limit=6",
  ]);
  assertEquals(more.result.exit_status, "LimitsExceeded");
  const { data } = await readTrajectory(`${dir}/c.traj.json`);
  const said = data.messages.filter((m) => m.role === "assistant").map((m) => m.content);
  assertEquals(said, ["ok 1", "ok 5", "ok 6"]);
  assertEquals(data.info.model_stats, { instance_cost: 2.25, api_calls: 6 });
  assertEquals((data.info.resumed_from as { trajectory: string }).trajectory, `${dir}/b.traj.json`);
});

Deno.test("a resumed run's clock starts at the time its predecessor had run (wall-time limit, elapsed_seconds)", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/t.traj.json`;
  await episode(
    await config([
      "model.model_class=scripted",
      `model.replies=${JSON.stringify([ok(1), ok(2)])}`,
      "agent.step_limit=2",
    ]),
    path,
  );
  // Make the recorded span 100 s: the first assistant message 100 s before the last observation.
  const text = await Deno.readTextFile(path);
  const first = /"timestamp": ([\d.]+)/.exec(text)!;
  await Deno.writeTextFile(path, text.replace(first[0], `"timestamp": ${Number(first[1]) - 100}`));
  const p = await readPredecessor(path, REGISTRY);
  assert(p.state.elapsedMs >= 100_000 && p.state.elapsedMs < 110_000, String(p.state.elapsedMs));
  const r = await resumeRun(path, `${dir}/r.traj.json`, [
    "agent.step_limit=0",
    "agent.wall_time_limit_seconds=90",
  ]);
  assertEquals(r.result.exit_status, "TimeExceeded");
  assertEquals(r.agent.nCalls, 2, "stopped before any further call");
});

Deno.test("a trajectory of 130,000 messages resumes (no argument list or stack grows with its length)", async () => {
  // Math.max(...timestamps) took one argument per message: past ~125k messages, a RangeError.
  const dir = await Deno.makeTempDir();
  const path = `${dir}/long.traj.json`;
  const cfg = await config([
    "model.model_class=scripted",
    `model.replies=${
      JSON.stringify([ok(1), ok(2), { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] }])
    }`,
    "agent.step_limit=1",
    `environment.cwd=${dir}`,
  ]);
  assertEquals((await episode(cfg, path)).result.exit_status, "LimitsExceeded");
  const { data } = await readTrajectory(path);
  const exit = data.messages.pop()!;
  assertEquals(exit.role, "exit");
  const at = Number(data.messages[2]!.extra?.timestamp);
  // The comments a person made between steps (interactive runs): no call each, a timestamp each.
  const notes = Array.from({ length: 130_000 }, (_, i) => ({
    role: "user",
    content: `note ${i}`,
    extra: { timestamp: at + i / 1000 },
  }));
  data.info.exit_status = "";
  await Deno.writeTextFile(path, JSON.stringify({ ...data, messages: [...data.messages, ...notes] }));
  const p = await readPredecessor(path, REGISTRY);
  assertEquals([p.state.messages.length, p.state.nCalls, p.state.elapsedMs], [130_004, 1, 129_999]);
  const r = await resumeRun(path, `${dir}/more.traj.json`, ["agent.step_limit=0"]);
  assertEquals([r.result.exit_status, r.agent.nCalls], ["Submitted", 3]);
  assertEquals((await readTrajectory(`${dir}/more.traj.json`)).data.messages.length, 130_008);
});

Deno.test("readPredecessor() refuses what cannot be continued, and counts from the messages when info is lost", async () => {
  const dir = await Deno.makeTempDir();
  const write = (name: string, data: unknown) => Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(data));
  const sys = { role: "system", content: "s" };
  const user = { role: "user", content: "u" };
  const exit = (status: string) => ({
    role: "exit",
    content: status,
    extra: { exit_status: status, submission: "" },
  });
  await write("done.json", { messages: [sys, user, exit("Submitted")], info: {} });
  await write("lone.json", { messages: [exit("RuntimeError")], info: {} });
  for (
    const [name, why] of [["done.json", "ended with Submitted"], ["lone.json", "never reached the model"]]
  ) {
    const e = await readPredecessor(`${dir}/${name}`, REGISTRY).catch((e) => e);
    assert(e instanceof UsageError, String(e));
    assertMatch(e.message, new RegExp(`^Cannot resume ${dir}/${name}: .*${why}`));
  }
  // Text mode, no info (torn away): a step cut short, calls and cost from the messages.
  const step = (n: number, cost: number) => ({
    role: "assistant",
    content: `step ${n}`,
    extra: { actions: [{ command: `echo ${n}` }], cost, timestamp: 1000 + n },
  });
  const observation = { role: "user", content: "<output>", extra: { raw_output: "1\n", returncode: 0 } };
  const formatError = { role: "user", content: "fix", extra: { interrupt_type: "FormatError", cost: 0.5 } };
  await write("torn.json", { messages: [sys, user, step(1, 1), observation, formatError, step(2, 2)] });
  const p = await readPredecessor(`${dir}/torn.json`, REGISTRY);
  assertEquals(p.source, undefined);
  assertEquals(p.state.pending?.content, "step 2");
  assertEquals([p.state.nCalls, p.state.cost, p.state.formatErrors, p.state.elapsedMs], [3, 3.5, 0, 1000]);
  // A recorded type claudius does not know (a user's own class) needs a class named on the command line.
  await write("custom.json", {
    messages: [sys, user],
    info: {
      config: {
        agent: {},
        agent_type: "claudius.agent.DefaultAgent",
        model: { model_name: "m" },
        model_type: "mylab.models.MyModel",
        environment: {},
        environment_type: "claudius.environments.LocalEnvironment",
      },
    },
  });
  const u = await readPredecessor(`${dir}/custom.json`, REGISTRY);
  const refused = await resumeConfig({ source: u.source!, unknownClasses: u.unknownClasses }, [], {}, io)
    .catch((e) => e);
  assert(refused instanceof ConfigError);
  assertMatch(
    refused.message,
    /model_type 'mylab\.models\.MyModel' is no claudius class: name one with -c model\.model_class=\.\.\./,
  );
  const named = await resumeConfig(
    { source: u.source!, unknownClasses: u.unknownClasses },
    [
      "model.model_class=openai",
    ],
    {},
    io,
  );
  assertEquals(named.config.model.model_class, "openai");
});

Deno.test("resumeConfig() takes a redacted value from its environment variable, else names every key to give again", async () => {
  const source = {
    spec: "t.json",
    path: "t.json",
    data: {
      agent: { agent_class: "default" },
      model: { model_class: "openai", model_name: "[REDACTED]", base_url: "https://u:[REDACTED]@h/v1" },
      environment: { environment_class: "local", env: { HF_TOKEN: "[REDACTED]" } },
    },
  };
  const e = await resumeConfig({ source, unknownClasses: [] }, [], {}, io).catch((e) => e);
  assert(e instanceof ConfigError);
  assertEquals(
    e.message,
    "Cannot resume t.json: its trajectory holds values saved redacted ([REDACTED]): give them again with " +
      "-c KEY=VALUE or a config file: model.model_name (or set MSWEA_MODEL_NAME), model.base_url, " +
      "environment.env.HF_TOKEN",
  );
  const { config: cfg } = await resumeConfig(
    { source, unknownClasses: [] },
    ["model.base_url=https://h/v1", "environment.env.HF_TOKEN=hf_new"],
    {},
    { ...io, hostEnv: { MSWEA_MODEL_NAME: "from-env" } },
  );
  assertEquals([cfg.model.model_name, cfg.model.base_url, cfg.environment.env], [
    "from-env",
    "https://h/v1",
    { HF_TOKEN: "hf_new" },
  ]);
});

Deno.test("each environment records the type of its class's row (which a resume reads back)", () => {
  const types = [
    new LocalEnvironment({}, {}).type,
    new DockerEnvironment({ image: "x" }, { hostEnv: {}, runId: "t" }).type,
    new BubblewrapEnvironment({ cwd: "/tmp" }, { hostEnv: {} }).type,
  ];
  const rows = REGISTRY.environments;
  assertEquals(types, [rows.local!.type, rows.docker!.type, rows.bubblewrap!.type]);
});

Deno.test("resumeConfig() names every class a trajectory of custom classes lacks in one error", async () => {
  const path = `${await Deno.makeTempDir()}/custom.traj.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      messages: [{ role: "system", content: "s" }, { role: "user", content: "u" }],
      info: {
        config: {
          agent: {},
          agent_type: "minisweagent.agents.default.DefaultAgent",
          model: { model_name: "m" },
          model_type: "mylab.models.MyModel",
          environment: {},
          environment_type: "mylab.environments.Sandbox",
        },
      },
    }),
  );
  const p = await readPredecessor(path, REGISTRY);
  const refused = await resumeConfig(
    { source: p.source!, unknownClasses: p.unknownClasses },
    [
      "agent.agent_class=default",
    ],
    {},
    io,
  ).catch((e) => e);
  assert(refused instanceof ConfigError, String(refused));
  assertMatch(
    refused.message,
    /model_type 'mylab\.models\.MyModel' and environment_type 'mylab\.environments\.Sandbox' are no claudius classes: name them with -c model\.model_class=\.\.\. -c environment\.environment_class=\.\.\.$/,
  );
});
