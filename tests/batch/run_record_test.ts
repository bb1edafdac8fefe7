/**
 * `<out>/run.json` of `claudius batch` as a subprocess: one entry per invocation with claudius's
 * version, the command line without its secrets, each config file's digest and what it is, the prompts'
 * source, the model as configured and as served, each image with the digest its engine reports, and the
 * price table.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { cli, freshHome } from "../_support/upstream.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { runCommand } from "../../src/lib/process.ts";
import { sha256Hex } from "../../src/lib/sha256.ts";
import { VERSION } from "../../src/core/version.ts";

const SUBMIT: ScriptReply = { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };
const KEY = "sk-runjson-SECRET-0123456789";
const inCI = Boolean(Deno.env.get("CI"));
const engine = (await runCommand(["docker", "image", "inspect", "claudius-test-tiny:latest"], {
  timeoutSeconds: 30,
}).catch(() => ({ exitCode: 1 }))).exitCode === 0;

async function runJson(dir: string) {
  return JSON.parse(await Deno.readTextFile(`${dir}/run.json`));
}

Deno.test("batch writes run.json once per invocation: version, redacted command line, config digests, prompts, models, price table", async () => {
  const env = { ...await freshHome(), OPENAI_API_KEY: KEY, CLAUDIUS_PYTHON: "" };
  const tasks = `${env.HOME}/tasks`;
  await Deno.mkdir(tasks);
  await Deno.writeTextFile(`${tasks}/t1.md`, "Say done.");
  await Deno.writeTextFile(`${env.HOME}/limits.yaml`, "agent:\n  step_limit: 7\n");
  const server = await startFakeServer([SUBMIT, SUBMIT], { model: "gpt-5-mini-2025-08-07" });
  try {
    const args = [
      "batch",
      "tasks",
      "-o",
      "out",
      "-m",
      "openai/gpt-5-mini",
      "-c",
      "default",
      "-c",
      "limits.yaml",
      "-c",
      `model.base_url=${server.url}`,
      "-c",
      `model.model_kwargs.api_key=${KEY}`,
    ];
    const first = await cli(args, env);
    assertEquals(first.code, 0, first.stderr + first.stdout);
    const text = await Deno.readTextFile(`${env.HOME}/out/run.json`);
    assert(!text.includes(KEY), "no secret in run.json");
    const data = JSON.parse(text);
    assertEquals(data.format, "claudius-run-1");
    assertEquals(data.invocations.length, 1);
    const [run] = data.invocations;
    assertEquals([run.claudius_version, run.mini_version, run.cwd], [VERSION, "2.4.6", env.HOME]);
    assertEquals(run.command_line, [
      "claudius",
      ...args.slice(0, -1),
      "model.model_kwargs.api_key=[REDACTED]",
    ]);
    assertEquals(run.config_files.map((f: { spec: string }) => f.spec), ["default", "limits.yaml"]);
    const [builtin, mine] = run.config_files;
    assertEquals(builtin.source, "claudius");
    assertEquals(mine, {
      spec: "limits.yaml",
      source: "file",
      path: `${env.HOME}/limits.yaml`,
      sha256: await sha256Hex(await Deno.readFile(`${env.HOME}/limits.yaml`)),
    });
    assertEquals(run.prompts.source, "claudius");
    assertEquals(run.model, { configured: "openai/gpt-5-mini", served: { "gpt-5-mini-2025-08-07": 1 } });
    assertMatch(run.price_table, /^@pydantic\/genai-prices \d+\.\d+\.\d+$/);
    assertMatch(run.started_at, /^\d{4}-\d\d-\d\dT/);
    assertMatch(run.ended_at, /^\d{4}-\d\d-\d\dT/);
    // The trajectory says the same of its prompts.
    const traj = JSON.parse(await Deno.readTextFile(`${env.HOME}/out/t1/t1.traj.json`));
    assertEquals(traj.info.prompts, run.prompts);
    // A rerun (nothing left to do) adds its own entry; the first is kept.
    const again = await cli(args, env);
    assertEquals(again.code, 0, again.stderr);
    const both = await runJson(`${env.HOME}/out`);
    assertEquals(both.invocations.length, 2);
    assertEquals(both.invocations[0], run);
    assertEquals(both.invocations[1].model.served, {});
  } finally {
    await server.close();
  }
});

Deno.test({
  name: "batch --mode swebench's run.json names each image with the id and digests its engine reports",
  ignore: !engine && !inCI,
  fn: async () => {
    const env = { ...await freshHome(), OPENAI_API_KEY: KEY, CLAUDIUS_PYTHON: "" };
    const record = {
      instance_id: "acme__tool-1",
      problem_statement: "Say done.",
      image_name: "claudius-test-tiny",
    };
    await Deno.writeTextFile(`${env.HOME}/inst.jsonl`, JSON.stringify(record) + "\n");
    const server = await startFakeServer([SUBMIT]);
    try {
      const r = await cli(
        [
          "batch",
          "--mode",
          "swebench",
          "inst.jsonl",
          "-o",
          "out",
          "-m",
          "openai/gpt-5-mini",
          "-c",
          `model.base_url=${server.url}`,
        ],
        env,
      );
      assertEquals(r.code, 0, r.stderr);
      const [run] = (await runJson(`${env.HOME}/out`)).invocations;
      const inspected = await runCommand([
        "docker",
        "image",
        "inspect",
        "--format",
        "{{.Id}}",
        "claudius-test-tiny",
      ], {
        timeoutSeconds: 30,
      });
      assertEquals(run.images["claudius-test-tiny"].id, inspected.output.trim());
      assertEquals(run.images["claudius-test-tiny"].engine, "docker");
      assertEquals(run.config_files[0].spec, "benchmarks/swebench");
    } finally {
      await server.close();
    }
  },
});
