/**
 * Upstream's eight configs run unchanged: tests/testdata/upstream_configs/ holds own-words stand-ins
 * with the same structure (keys, template constructs, env, limits, classes), and each is run through
 * the CLI against the loopback server with only the endpoint overridden (and the model name from
 * `MSWEA_MODEL_NAME` where the config has none, as upstream reads it). The benchmark configs run as
 * upstream's runners run them: `claudius batch --mode swebench|programbench` on the test image.
 * `mini` and `mini_textbased` ask for the interactive agent (`agent.mode: confirm`): they run with
 * `-c agent.mode=yolo`, as upstream's `mini -y` would.
 */
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { startAnthropicServer } from "../../_support/anthropic_server.ts";
import { runCommand } from "../../../src/lib/process.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import type { Json } from "../../../src/core/types.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const CONFIGS = new URL("../../testdata/upstream_configs/", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const inCI = Boolean(Deno.env.get("CI"));
const engine = (await runCommand(["docker", "image", "inspect", "claudius-test-tiny:latest"], {
  timeoutSeconds: 30,
}).catch(() => ({ exitCode: 1 }))).exitCode === 0;

/** Two tool-call replies: write a patch, then submit it (each reporting its cost, as OpenRouter does). */
const EPISODE: ScriptReply[] = [
  { content: "Write the patch.", commands: ["printf 'the patch\\n' > patch.txt"], cost: 0.01 },
  {
    content: "Submit.",
    commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"],
    cost: 0.01,
  },
];

async function claudius(args: string[], cwd: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, ...args],
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, text: d.decode(out.stdout) + d.decode(out.stderr) };
}

type Body = { [key: string]: Json };

/**
 * Run `configs` on one episode; returns the trajectory, the first request and the output. A config
 * with an `anthropic/` model speaks Anthropic's Messages API, so it runs against that loopback server.
 */
async function runOne(
  configs: string[],
  mode?: "swebench" | "programbench",
  env: Record<string, string> = {},
  more: string[] = [],
  api: "chat" | "anthropic" = "chat",
) {
  const server = api === "anthropic" ? await startAnthropicServer(EPISODE) : await startFakeServer(EPISODE);
  if (api === "anthropic") env = { ANTHROPIC_API_KEY: "sk-ant-test", ...env };
  const dir = await Deno.makeTempDir();
  try {
    const specs = [
      ...configs.flatMap((c) => ["-c", `${CONFIGS}${c}.yaml`]),
      "-c",
      `model.base_url=${server.url}`,
      ...more.flatMap((s) => ["-c", s]),
    ];
    let traj: string;
    let r;
    if (mode) {
      const record = {
        instance_id: "acme__tool-1",
        problem_statement: "Make it work.",
        image_name: "claudius-test-tiny",
      };
      await Deno.writeTextFile(`${dir}/instances.jsonl`, JSON.stringify(record) + "\n");
      r = await claudius(["batch", "--mode", mode, "instances.jsonl", "-o", "out", ...specs], dir, env);
      traj = `${dir}/out/acme__tool-1/acme__tool-1.traj.json`;
    } else {
      r = await claudius(["-t", "Make it work.", "-o", "run.traj.json", ...specs], dir, env);
      traj = `${dir}/run.traj.json`;
    }
    assertEquals(r.code, 0, r.text);
    const { data } = await readTrajectory(traj);
    assertEquals(data.info.exit_status, "Submitted", r.text);
    assertEquals(server.requests.length, 2);
    return { data, request: server.requests[0]!, body: server.requests[0]!.body as Body, text: r.text, dir };
  } finally {
    await server.close();
  }
}

for (const name of ["default", "mini", "mini_textbased"]) {
  const yolo = name.startsWith("mini") ? ["agent.mode=yolo"] : [];
  const also = yolo.length ? " (and agent.mode=yolo, as `mini -y`)" : "";
  Deno.test(`upstream's ${name}.yaml runs unchanged with only the endpoint overridden${also}`, async () => {
    const { data, body } = await runOne([name], undefined, { MSWEA_MODEL_NAME: "gpt-5-mini" }, yolo);
    assertEquals(data.info.submission, "the patch\n");
    // Upstream selects no text class in these configs: the default (tool-call) class runs, as upstream's.
    assertEquals([body.model, (body.tools as Body[])[0]!.type], ["gpt-5-mini", "function"]);
    assertEquals(body.drop_params, undefined, "litellm-only keys are not sent");
    const first = String(data.messages[1]!.content);
    assertMatch(first, /^Fix this: Make it work\./);
    const tool = String(data.messages[3]!.content);
    if (name === "mini") assertEquals(tool, '{\n  "returncode": 0,\n  "output": ""\n}');
    else assertEquals(tool, "<returncode>0</returncode>\n<output>\n</output>");
  });
}

Deno.test({
  name: "upstream's programbench.yaml runs unchanged in batch --mode programbench",
  ignore: !engine && !inCI,
  fn: async () => {
    await runCommand(["docker", "tag", "claudius-test-tiny:latest", "claudius-test-tiny:task_cleanroom_v6"], {
      timeoutSeconds: 30,
    });
    const { data, dir } = await runOne(["programbench"], "programbench", { MSWEA_MODEL_NAME: "gpt-5-mini" });
    assert((await Deno.stat(`${dir}/out/acme__tool-1/submission.tar.gz`)).isFile);
    assertEquals((data.info.config as { environment: Body }).environment.cwd, "/workspace");
  },
});

for (const name of ["swebench", "swebench_backticks", "swebench_xml"]) {
  Deno.test({
    name: `upstream's ${name}.yaml runs unchanged in batch --mode swebench`,
    ignore: !engine && !inCI,
    fn: async () => {
      const api = name === "swebench_xml" ? "chat" : "anthropic";
      const { data, body, dir } = await runOne([name], "swebench", {}, [], api);
      const preds = JSON.parse(await Deno.readTextFile(`${dir}/out/preds.json`));
      assertEquals(preds["acme__tool-1"].model_patch, "the patch\n");
      assertMatch(String(data.messages[1]!.content), /<pr_description>\nMake it work\.\n<\/pr_description>/);
      if (name === "swebench_xml") {
        assertEquals([body.model, body.usage], ["minimax/minimax-m2", { include: true }]);
      } else {
        assertEquals(body.model, "claude-sonnet-4-5-20250929");
      }
      // parallel_tool_calls: true, as litellm maps it for Anthropic.
      if (name === "swebench") {
        assertEquals(body.tool_choice, { type: "auto", disable_parallel_tool_use: false });
      }
    },
  });
}

Deno.test({
  name:
    "upstream's swebench_modal.yaml (after swebench.yaml) runs with portkey and Modal stood in for, noted",
  ignore: !engine && !inCI,
  fn: async () => {
    const { data, request, text } = await runOne(["swebench", "swebench_modal"], "swebench");
    assertMatch(text, /note: environment_class swerex_modal runs in a local docker container/);
    assertMatch(text, /note: model_class portkey: claudius's OpenAI-compatible client stands in/);
    assertEquals([(request.body as Body).model, request.headers["x-portkey-provider"]], [
      "gpt-5-mini",
      "@openai",
    ]);
    const env = (data.info.config as { environment: Body }).environment;
    assertEquals([env.image, env.container_timeout, env.pull_timeout], ["claudius-test-tiny", "1800s", 600]);
  },
});
