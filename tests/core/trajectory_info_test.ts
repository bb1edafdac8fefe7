import { assert, assertEquals } from "../_support/assert.ts";
import { DefaultAgent } from "../../src/core/agent.ts";
import { LocalEnvironment } from "../../src/core/environments/local.ts";
import { ChatModel } from "../../src/core/models/model.ts";
import { ScriptedClient } from "../../src/core/models/extra/scripted.ts";
import { trajectoryInfo, UPSTREAM_VERSION } from "../../src/core/trajectory_info.ts";
import { VERSION } from "../../src/core/version.ts";

function agent(): DefaultAgent {
  const env = new LocalEnvironment({ env: { WHERE: "tok-0123456789abcdef" }, timeout: 10 }, {});
  const model = new ChatModel({}, new ScriptedClient([], { model_name: "scripted" }), "toolcall", "test");
  return new DefaultAgent(
    {
      system_template: "s",
      instance_template: "Key sk-abcdefghijklmnopqrstuvwxyz here",
      step_limit: 0,
      cost_limit: 0,
      wall_time_limit_seconds: 0,
      max_consecutive_format_errors: 3,
      output_path: null,
    },
    model,
    env,
  );
}

Deno.test("trajectoryInfo() records a config field changed in place, the rest redacted as before", () => {
  const a = agent();
  const first = trajectoryInfo(a, ["tok-0123456789abcdef"]);
  assertEquals(first.config.agent.instance_template, "Key [REDACTED] here");
  assertEquals(first.config.agent.step_limit, 0);
  assert(JSON.stringify(first.config.environment).includes("[REDACTED]"));
  assert(!JSON.stringify(first).includes("tok-0123456789abcdef"));
  // The interactive agent changes its limits and mode on the agent's own config object.
  const config = a.config as unknown as Record<string, unknown>;
  config.step_limit = 7;
  config.mode = "yolo";
  const second = trajectoryInfo(a, ["tok-0123456789abcdef"]);
  assertEquals([second.config.agent.step_limit, second.config.agent.mode], [7, "yolo"]);
  assertEquals(second.config.agent.instance_template, "Key [REDACTED] here");
  assertEquals(trajectoryInfo(a, ["tok-0123456789abcdef"]).config, second.config);
  // Other secrets: the config is redacted anew.
  assertEquals(
    JSON.stringify(trajectoryInfo(a, []).config.environment).includes("tok-0123456789abcdef"),
    true,
  );
});

Deno.test("trajectoryInfo() names claudius's classes and versions: mini_version is the upstream reproduced", () => {
  const info = trajectoryInfo(agent());
  assertEquals(info.mini_version, UPSTREAM_VERSION);
  assertEquals(info.claudius_version, VERSION);
  assertEquals(
    [info.config.agent_type, info.config.model_type, info.config.environment_type].map((t) =>
      t.split(".")[0]
    ),
    ["claudius", "test", "claudius"],
  );
});
