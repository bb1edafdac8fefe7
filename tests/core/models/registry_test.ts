/**
 * `model.litellm_model_registry` (and `$LITELLM_MODEL_REGISTRY_PATH`): upstream's litellm model
 * registry file prices a model the database does not know, through the CLI.
 */
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { startFakeServer } from "../../_support/fake_server.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const SUBMIT = { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"], usage: { prompt_tokens: 1000 } };

async function run(dir: string, args: string[], env: Record<string, string> = {}) {
  await Deno.mkdir(`${dir}/ws`, { recursive: true });
  const server = await startFakeServer([SUBMIT], { model: "custom-model" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "-t", "t", "-m", "hosted_vllm/custom-model", "--base-url", server.url]
        .concat([
          "-c",
          "agent.cost_limit=1",
          "-o",
          `${dir}/t.traj.json`,
          "--create-cwd",
          "--cwd",
          `${dir}/ws`,
          ...args,
        ]),
      cwd: dir,
      env,
      stdin: "null",
      stderr: "piped",
    }).output();
    return { code: out.code, stderr: new TextDecoder().decode(out.stderr), requests: server.requests.length };
  } finally {
    await server.close();
  }
}

const cost = async (dir: string) =>
  JSON.parse(await Deno.readTextFile(`${dir}/t.traj.json`)).info.model_stats.instance_cost as number;

Deno.test("a litellm model registry prices a model nothing else can, from the key or the variable", async () => {
  const dir = await Deno.makeTempDir();
  const registry = {
    "hosted_vllm/custom-model": { input_cost_per_token: 2e-6, output_cost_per_token: 1e-5, mode: "chat" },
    "bare-model": { input_cost_per_token: 1e-6, output_cost_per_token: 1e-6 },
  };
  await Deno.writeTextFile(`${dir}/registry.json`, JSON.stringify(registry));

  // Without it, the local server's calls cost nothing.
  const free = await run(dir, []);
  assertEquals([free.code, free.requests], [0, 1], free.stderr);
  assertEquals(await cost(dir), 0);

  const keyed = await run(dir, ["-c", "model.litellm_model_registry=registry.json"]);
  assertEquals(keyed.code, 0, keyed.stderr);
  assert(Math.abs((await cost(dir)) - (1000 * 2e-6 + 5 * 1e-5)) < 1e-12);

  const fromEnv = await run(dir, [], { LITELLM_MODEL_REGISTRY_PATH: `${dir}/registry.json` });
  assertEquals(fromEnv.code, 0, fromEnv.stderr);
  assert(Math.abs((await cost(dir)) - (1000 * 2e-6 + 5 * 1e-5)) < 1e-12);

  // Configured prices win over the registry.
  const configured = await run(dir, [
    "-c",
    "model.litellm_model_registry=registry.json",
    "-c",
    "model.input_cost_per_token=0",
    "-c",
    "model.output_cost_per_token=0",
  ]);
  assertEquals(configured.code, 0, configured.stderr);
  assertEquals(await cost(dir), 0);
});

Deno.test("a litellm model registry that cannot be used is a one-line error naming it, before any call", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/list.json`, "[]");
  await Deno.writeTextFile(
    `${dir}/half.json`,
    JSON.stringify({ "hosted_vllm/custom-model": { input_cost_per_token: 1e-6 } }),
  );
  const cases: [string[], Record<string, string>, RegExp][] = [
    [
      [],
      { LITELLM_MODEL_REGISTRY_PATH: `${dir}/list.json` },
      /LITELLM_MODEL_REGISTRY_PATH '.*list\.json': it is not a JSON object/,
    ],
    [
      ["-c", "model.litellm_model_registry=half.json"],
      {},
      /"hosted_vllm\/custom-model" needs input_cost_per_token and output_cost_per_token/,
    ],
  ];
  for (const [args, env, message] of cases) {
    const r = await run(dir, args, env);
    assertEquals([r.code, r.requests], [2, 0], r.stderr);
    assertMatch(r.stderr, message);
    assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
  }
});

Deno.test("a litellm model registry that is not a file is skipped with a note, as upstream skips it", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/a-dir`);
  for (const path of ["missing.json", "a-dir"]) {
    const r = await run(dir, [
      "-c",
      `model.litellm_model_registry=${path}`,
      "-c",
      "model.cost_tracking=ignore_errors",
    ]);
    assertEquals([r.code, r.requests], [0, 1], r.stderr);
    assertMatch(
      r.stderr,
      new RegExp(`model\\.litellm_model_registry '.*${path}' (does not exist|is not a file); skipped`),
    );
  }
  // Not a file and no other price: as with no registry at all, the local server is free.
  const free = await run(dir, ["-c", "model.litellm_model_registry=missing.json"]);
  assertEquals([free.code, free.requests, await cost(dir)], [0, 1, 0], free.stderr);
});
