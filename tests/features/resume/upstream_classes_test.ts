/**
 * readPredecessor() on upstream's trajectories: every class name upstream has ever recorded (read
 * from its source, v1.10 to v2.4.6) picks a claudius class, and a v1 trajectory (its own file
 * format) goes on in text mode with its regex and templates, against the loopback server.
 */
import { REGISTRY } from "../../../src/cli/classes.ts";
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import { MODEL_CLASSES } from "../../../src/core/models/classes.ts";
import { ENVIRONMENT_CLASSES } from "../../../src/core/environments/classes.ts";
import { UsageError } from "../../../src/lib/flags.ts";
import { readPredecessor } from "../../../src/features/resume/predecessor.ts";
import { resumeConfig } from "../../../src/cli/resume_config.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import { configIO, episodeDeps, runWithFeatures } from "../../_support/episode.ts";

const io = { ...configIO(), hostEnv: {}, warn: () => {} };

/** `git grep '^class'` over upstream's agents/, models/, environments/ and run/ at every tag. */
const AGENTS: Record<string, string> = {
  "minisweagent.agents.default.DefaultAgent": "default",
  "minisweagent.agents.interactive.InteractiveAgent": "interactive",
  "minisweagent.agents.interactive_textual._TextualAgent": "interactive",
  "minisweagent.agents.interactive_textual.TextualAgent": "interactive",
  "minisweagent.run.extra.swebench.ProgressTrackingAgent": "default",
  "minisweagent.run.benchmarks.swebench.ProgressTrackingAgent": "default",
  "minisweagent.run.benchmarks.utils.common.ProgressTrackingAgent": "default",
};
/** [v2 class, v1 class (replies read as text)]; "" where claudius has no counterpart. */
const MODELS: Record<string, [string, string]> = {
  "minisweagent.models.litellm_model.LitellmModel": ["litellm", "litellm_textbased"],
  "minisweagent.models.litellm_textbased_model.LitellmTextbasedModel": [
    "litellm_textbased",
    "litellm_textbased",
  ],
  "minisweagent.models.litellm_response_model.LitellmResponseModel": ["litellm_response", ""],
  "minisweagent.models.litellm_response_api_model.LitellmResponseAPIModel": ["litellm_response", ""],
  "minisweagent.models.anthropic.AnthropicModel": ["litellm", "litellm_textbased"],
  "minisweagent.models.openrouter_model.OpenRouterModel": ["openrouter", "openrouter_textbased"],
  "minisweagent.models.openrouter_textbased_model.OpenRouterTextbasedModel": [
    "openrouter_textbased",
    "openrouter_textbased",
  ],
  "minisweagent.models.openrouter_response_model.OpenRouterResponseModel": ["openrouter_response", ""],
  "minisweagent.models.portkey_model.PortkeyModel": ["portkey", ""],
  "minisweagent.models.portkey_response_model.PortkeyResponseAPIModel": ["portkey_response", ""],
  "minisweagent.models.portkey_response_api_model.PortkeyResponseAPIModel": ["portkey_response", ""],
  "minisweagent.models.requesty_model.RequestyModel": ["requesty", ""],
  "minisweagent.models.extra.roulette.RouletteModel": ["roulette", "roulette"],
  "minisweagent.models.extra.roulette.InterleavingModel": ["interleaving", "interleaving"],
  "minisweagent.models.test_models.DeterministicModel": ["deterministic", "deterministic"],
  "minisweagent.models.test_models.DeterministicToolcallModel": ["deterministic_toolcall", ""],
  "minisweagent.models.test_models.DeterministicResponseAPIToolcallModel": ["deterministic_response", ""],
};
const ENVIRONMENTS: Record<string, string> = {
  "minisweagent.environments.local.LocalEnvironment": "local",
  "minisweagent.environments.docker.DockerEnvironment": "docker",
  "minisweagent.environments.singularity.SingularityEnvironment": "singularity",
  "minisweagent.environments.extra.bubblewrap.BubblewrapEnvironment": "bubblewrap",
  "minisweagent.environments.extra.swerex_docker.SwerexDockerEnvironment": "swerex_docker",
  "minisweagent.environments.extra.swerex_modal.SwerexModalEnvironment": "swerex_modal",
  "minisweagent.environments.extra.contree.ContreeEnvironment": "contree",
};

const sys = { role: "system", content: "s" };
const user = { role: "user", content: "u" };

async function predecessorOf(types: Record<string, string>, v1 = false) {
  const path = `${await Deno.makeTempDir()}/up.traj.json`;
  const config = { agent: {}, model: { model_name: "m" }, environment: {}, ...types };
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      info: { mini_version: v1 ? "1.17.5" : "2.4.6", config },
      messages: [sys, user],
      trajectory_format: v1 ? "mini-swe-agent-1" : "mini-swe-agent-1.1",
    }),
  );
  return await readPredecessor(path, REGISTRY);
}

Deno.test("readPredecessor() maps every agent, model and environment class upstream has recorded, v1 and v2", async () => {
  const has = (table: object, cls: string) => cls !== "" && Object.hasOwn(table, cls);
  for (const v1 of [false, true]) {
    for (const [type, cls] of Object.entries(AGENTS)) {
      const p = await predecessorOf({ agent_type: type }, v1);
      assertEquals(p.source?.data.agent, { agent_class: cls }, type);
    }
    for (const [type, [v2cls, v1cls]] of Object.entries(MODELS)) {
      const p = await predecessorOf({ model_type: type }, v1);
      const cls = v1 ? v1cls : v2cls;
      const model = p.source?.data.model as Record<string, unknown>;
      const unknown = p.unknownClasses.find((u) => u.key === "model.model_class");
      if (has(MODEL_CLASSES, cls)) {
        assertEquals(model.model_class, cls, `${type} (v1: ${v1})`);
        assertEquals(unknown, undefined);
      } else {
        // No counterpart (yet): the refusal says why, not just "no claudius class".
        assertEquals(model.model_class, undefined, type);
        assertMatch(String(unknown?.why), v1 ? /upstream v1 read its replies as text/ : /no counterpart/);
      }
    }
    for (const [type, cls] of Object.entries(ENVIRONMENTS)) {
      const p = await predecessorOf({ environment_type: type }, v1);
      const env = p.source?.data.environment as Record<string, unknown>;
      assertEquals(env.environment_class, has(ENVIRONMENT_CLASSES, cls) ? cls : undefined, type);
    }
  }
  // Names that are not classes, and prototype keys, name no class.
  for (const type of ["toString", "constructor", "", "minisweagent.models.Nope"]) {
    const p = await predecessorOf({ model_type: type, agent_type: type, environment_type: type });
    assertEquals(p.unknownClasses.map((u) => u.key).sort(), [
      "agent.agent_class",
      "environment.environment_class",
      "model.model_class",
    ]);
  }
});

Deno.test("resumeConfig() says why an upstream v1 class has no text-mode counterpart", async () => {
  const p = await predecessorOf({ model_type: "minisweagent.models.portkey_model.PortkeyModel" }, true);
  const e = await resumeConfig({ source: p.source!, unknownClasses: p.unknownClasses }, [], {}, io).catch((
    e,
  ) => e);
  assert(e instanceof ConfigError, String(e));
  assertMatch(
    e.message,
    /model_type '\S+PortkeyModel' \(upstream v1 read its replies as text, and claudius has no/,
  );
});

/** An upstream v1 file as v1.17's save_traj writes it: timestamps beside content, a closing user message. */
function v1Trajectory(cwd: string, status: string) {
  const t0 = 1_750_000_000;
  return {
    info: {
      exit_status: status,
      submission: status === "Submitted" ? "done\n" : "",
      model_stats: { instance_cost: 0.02, api_calls: 2 },
      mini_version: "1.17.5",
      config: {
        agent: {
          system_template: "You are a helpful assistant.",
          instance_template: "Task: {{task}}",
          timeout_template: "The command timed out: {{output}}",
          format_error_template: "Please always provide EXACTLY ONE action in triple backticks.",
          action_observation_template:
            "<returncode>{{output.returncode}}</returncode>\n<output>\n{{output.output}}</output>",
          action_regex: "```bash\\s*\\n(.*?)\\n```",
          step_limit: 2,
          cost_limit: 3.0,
        },
        model: {
          model_name: "test-model",
          model_kwargs: {},
          set_cache_control: null,
          cost_tracking: "default",
        },
        environment: { cwd, env: {}, timeout: 30 },
        agent_type: "minisweagent.agents.default.DefaultAgent",
        model_type: "minisweagent.models.litellm_model.LitellmModel",
        environment_type: "minisweagent.environments.local.LocalEnvironment",
      },
    },
    messages: [
      { role: "system", content: "You are a helpful assistant.", timestamp: t0 },
      { role: "user", content: "Task: count", timestamp: t0 + 1 },
      {
        role: "assistant",
        content: "THOUGHT: look\n\n```bash\necho one\n```",
        timestamp: t0 + 2,
        extra: { response: { id: "r1", choices: [] } },
      },
      { role: "user", content: "<returncode>0</returncode>\n<output>\none\n</output>", timestamp: t0 + 3 },
      { role: "assistant", content: "two blocks ```bash\na\n``` ```bash\nb\n```", timestamp: t0 + 4 },
      {
        role: "user",
        content: "Please always provide EXACTLY ONE action in triple backticks.",
        timestamp: t0 + 5,
      },
      { role: "user", content: status === "Submitted" ? "done\n" : "", timestamp: t0 + 6 },
    ],
    trajectory_format: "mini-swe-agent-1",
  };
}

Deno.test("a trajectory of upstream v1 resumes in text mode with its own regex and templates", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/ws`);
  await Deno.writeTextFile(`${dir}/done.json`, JSON.stringify(v1Trajectory(`${dir}/ws`, "Submitted")));
  const refused = await readPredecessor(`${dir}/done.json`, REGISTRY).catch((e) => e);
  assert(refused instanceof UsageError);
  assertMatch(refused.message, /ended with Submitted/);

  await Deno.writeTextFile(`${dir}/v1.json`, JSON.stringify(v1Trajectory(`${dir}/ws`, "LimitsExceeded")));
  const p = await readPredecessor(`${dir}/v1.json`, REGISTRY);
  assertEquals(p.notes.length, 1);
  assertMatch(p.notes[0]!, /upstream v1 trajectory: going on in text mode/);
  // The closing message is dropped; the timestamps move into extra (they are not sent).
  assertEquals(p.state.messages.length, 6);
  assertEquals(p.state.messages.map((m) => Object.keys(m).sort().join()), [
    "content,extra,role",
    "content,extra,role",
    "content,extra,role",
    "content,extra,role",
    "content,extra,role",
    "content,extra,role",
  ]);
  assertEquals([p.state.nCalls, p.state.cost], [2, 0.02]);
  const server = await startFakeServer([
    { content: "```bash\necho two\n```", cost: 0.01 },
    { content: "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```", cost: 0.01 },
  ]);
  try {
    const { config } = await resumeConfig(
      { source: p.source!, unknownClasses: p.unknownClasses },
      [`model.base_url=${server.url}`, "agent.step_limit=0"],
      {},
      io,
    );
    assertEquals(config.model.model_class, "litellm_textbased");
    assertEquals(config.model.action_regex, "```bash\\s*\\n(.*?)\\n```");
    const out = `${dir}/next.json`;
    const r = await runWithFeatures(config, { task: "t", outputPath: out, top: p.top }, episodeDeps(), {
      resume: { ...p.state, restarted: false, replay: false },
    });
    assertEquals(r.result.exit_status, "Submitted");
    const first = server.requests[0]!.body as { messages: Record<string, unknown>[]; tools?: unknown };
    assertEquals(first.tools, undefined);
    assertEquals(first.messages.map((m) => Object.keys(m).sort().join()), Array(6).fill("content,role"));
    const { data } = await readTrajectory(out);
    // v1's regex found the action, v1's observation template rendered its output.
    assertEquals(data.messages[7]?.content, "<returncode>0</returncode>\n<output>\ntwo\n</output>");
  } finally {
    await server.close();
  }
});

Deno.test("readPredecessor() of claudius's own trajectory picks a class that behaves as the one that ran", async () => {
  for (const [name, cls] of Object.entries(MODEL_CLASSES)) {
    const p = await predecessorOf({ model_type: cls.type });
    const picked = String((p.source?.data.model as Record<string, unknown>).model_class);
    const { doc: _a, ...behaviour } = cls;
    const { doc: _b, ...same } = MODEL_CLASSES[picked]!;
    assertEquals(same, behaviour, `${name} ran, ${picked} would go on`);
  }
});
