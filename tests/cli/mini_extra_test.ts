/**
 * The `mini-extra` face as a subprocess: upstream's subcommands mapped onto claudius's own (`config`
 * on the global `.env`, the benchmark runners as claudius batches or one instance's run), against the
 * loopback server.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
const KEY = "sk-extra-SECRET-0123456789";

async function extra(
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string; stdin?: string } = {},
) {
  const home = opts.env?.HOME ?? await Deno.makeTempDir({ prefix: "claudius-home-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, ...args],
    cwd: opts.cwd ?? home,
    env: {
      NO_COLOR: "1",
      DENO_DIR,
      HOME: home,
      MSWEA_GLOBAL_CONFIG_DIR: `${home}/g`,
      ...opts.env,
      CLAUDIUS_FACE: "mini-extra",
    },
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr), home };
}

Deno.test("mini-extra config set / unset edit the global .env as python-dotenv does; missing values are asked", async () => {
  const home = await Deno.makeTempDir();
  const env = { HOME: home };
  assertEquals((await extra(["config", "set", "MSWEA_MODEL_NAME", "openai/gpt-5-mini"], { env })).code, 0);
  assertEquals((await extra(["config", "set", "NOTE", "it's"], { env })).code, 0);
  const asked = await extra(["config", "set"], { env, stdin: "OPENAI_API_KEY\nsk-typed-0123\n" });
  assertEquals(asked.code, 0, asked.stderr);
  assertEquals(
    await Deno.readTextFile(`${home}/g/.env`),
    "MSWEA_MODEL_NAME='openai/gpt-5-mini'\nNOTE='it\\'s'\nOPENAI_API_KEY='sk-typed-0123'\n",
  );
  assertEquals(
    (await extra(["config", "set", "MSWEA_MODEL_NAME", "anthropic/claude-sonnet-4-5"], { env })).code,
    0,
  );
  assertEquals((await extra(["config", "unset", "NOTE"], { env })).code, 0);
  assertEquals(
    await Deno.readTextFile(`${home}/g/.env`),
    "MSWEA_MODEL_NAME='anthropic/claude-sonnet-4-5'\nOPENAI_API_KEY='sk-typed-0123'\n",
  );
  const missing = await extra(["config", "unset", "NOPE"], { env });
  assertEquals(missing.code, 0);
  assertMatch(missing.stderr, /warning: NOPE is not set in .*\/g\/\.env: nothing removed/);
  const setup = await extra(["config", "setup"], {
    env,
    stdin: "openai/gpt-5\nOPENAI_API_KEY\nsk-setup-0123\n",
  });
  assertEquals(setup.code, 0, setup.stderr);
  const text = await Deno.readTextFile(`${home}/g/.env`);
  assertMatch(text, /MSWEA_MODEL_NAME='openai\/gpt-5'\n/);
  assertMatch(text, /MSWEA_CONFIGURED='true'\n$/);
});

Deno.test("mini-extra config set / setup keep the global .env private (0600), also one made 0644 before", async () => {
  const home = await Deno.makeTempDir();
  const env = { HOME: home };
  const mode = async () => ((await Deno.stat(`${home}/g/.env`)).mode ?? 0) & 0o777;
  assertEquals((await extra(["config", "set", "OPENAI_API_KEY", KEY], { env })).code, 0);
  assertEquals((await mode()).toString(8), "600");
  await Deno.chmod(`${home}/g/.env`, 0o644);
  assertEquals((await extra(["config", "set", "MSWEA_MODEL_NAME", "openai/gpt-5-mini"], { env })).code, 0);
  assertEquals((await mode()).toString(8), "600");
  await Deno.chmod(`${home}/g/.env`, 0o644);
  assertEquals((await extra(["config", "unset", "MSWEA_MODEL_NAME"], { env })).code, 0);
  assertEquals((await mode()).toString(8), "600");
  const other = await Deno.makeTempDir();
  const setup = await extra(["config", "setup"], {
    env: { HOME: other },
    stdin: "m\nOPENAI_API_KEY\nsk-setup-0123\n",
  });
  assertEquals(setup.code, 0, setup.stderr);
  assertEquals((((await Deno.stat(`${other}/g/.env`)).mode ?? 0) & 0o777).toString(8), "600");
});

Deno.test("mini-extra config set: concurrent sets all land; a value the .env could not hold is refused, the file kept", async () => {
  const home = await Deno.makeTempDir();
  const env = { HOME: home };
  const runs = await Promise.all(
    Array.from({ length: 8 }, (_, i) => extra(["config", "set", `KEY_${i}`, `value-${i}`], { env })),
  );
  for (const r of runs) assertEquals(r.code, 0, r.stderr);
  const text = await Deno.readTextFile(`${home}/g/.env`);
  for (let i = 0; i < 8; i++) assert(text.includes(`KEY_${i}='value-${i}'\n`), text);
  // Asked for on stdin: a 1.1 MB argument is more than an argv may hold.
  const big = await extra(["config", "set", "HUGE"], { env, stdin: "x".repeat(1_100_000) + "\n" });
  assertEquals(big.code, 1, big.stderr); // a config error, as an upstream face exits on one
  assertMatch(
    big.stderr,
    /\nerror: Cannot set HUGE in .*\/g\/\.env: the file would be 1100\d+ bytes, more than the 1048576 claudius reads/,
  );
  assertEquals(await Deno.readTextFile(`${home}/g/.env`), text);
});

Deno.test("mini-extra: the list, an unknown subcommand named with its nearest, upstream's subset names refused", async () => {
  const list = await extra([]);
  assertEquals(list.code, 0);
  assertMatch(list.stdout, /inspect or i or inspector: /);
  const typo = await extra(["swebnch"]);
  assertEquals(typo.code, 2);
  assertMatch(typo.stderr, /unknown subcommand 'swebnch' \(did you mean 'swebench'\?\)/);
  const subset = await extra(["swebench", "--subset", "verified", "--split", "test"]);
  assertEquals(subset.code, 2);
  assertMatch(subset.stderr, /load_dataset\('princeton-nlp\/SWE-Bench_Verified', split='test'\)/);
  const pb = await extra(["programbench"]);
  assertEquals(pb.code, 2);
  assertMatch(pb.stderr, /needs TASKS/);
  // swebench-single takes its task from the instance (upstream's has no -t); the hint names its help.
  const task = await extra(["swebench-single", "-t", "x"]);
  assertEquals(task.code, 2);
  assertEquals(
    task.stderr,
    "error: unknown option '-t'\nhint: run 'mini-extra swebench-single --help' for usage\n",
  );
  // The runners' help gives their own defaults: docker, swebench's cost limit.
  const help = await extra(["swebench-single", "--help"]);
  assertMatch(help.stdout, /docker \(the benchmark's default\)/);
  assertMatch(help.stdout, /swebench's: 3/);
  assert(!/--task|local \(the default/.test(help.stdout), help.stdout);
  assertMatch((await extra(["swebench", "--help"])).stdout, /docker \(the benchmark's default\)/);
});

const DATASET = [
  { instance_id: "org__a-1", problem_statement: "Fix a." },
  { instance_id: "org__b-2", problem_statement: "Fix b." },
].map((r) => JSON.stringify(r)).join("\n") + "\n";

/** swebench's config on the local class, in `dir`: swebench.yaml's /testbed does not exist on the host. */
const onHost = (dir: string) => [
  "--environment-class",
  "local",
  "-m",
  "openai/gpt-5-mini",
  "-c",
  "swebench",
  "-c",
  `environment.cwd=${dir}`,
];

Deno.test("mini-extra swebench: a claudius batch in swebench mode; an instance that errors still exits 0", async () => {
  const server = await startFakeServer([
    { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo the-patch"] },
    { fault: "status", status: 400, body: '{"error": {"message": "bad request"}}' },
  ]);
  try {
    const dir = await Deno.makeTempDir({ prefix: "claudius-extra-" });
    await Deno.writeTextFile(`${dir}/lite_dev.jsonl`, DATASET);
    const r = await extra([
      "swebench",
      "--subset",
      "lite_dev.jsonl",
      ...onHost(dir),
      "-c",
      "agent.mode=yolo",
      "-o",
      "out",
    ], { cwd: dir, env: { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY } });
    assertEquals(r.code, 0, r.stderr);
    const preds = JSON.parse(await Deno.readTextFile(`${dir}/out/preds.json`));
    // The failed instance has its empty prediction, as upstream's runner writes it.
    assertEquals(Object.keys(preds).sort(), ["org__a-1", "org__b-2"]);
    assertEquals([preds["org__a-1"].model_patch, preds["org__b-2"].model_patch], ["the-patch\n", ""]);
  } finally {
    await server.close();
  }
});

Deno.test("mini-extra swebench: every instance failing with one error is a failed batch, exit 1", async () => {
  const server = await startFakeServer([
    { fault: "status", status: 401, body: '{"error": {"message": "bad key"}}' },
    { fault: "status", status: 401, body: '{"error": {"message": "bad key"}}' },
  ]);
  try {
    const dir = await Deno.makeTempDir({ prefix: "claudius-extra-" });
    await Deno.writeTextFile(`${dir}/lite_dev.jsonl`, DATASET);
    const env = { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY };
    const r = await extra(
      ["swebench", "--subset", "lite_dev.jsonl", ...onHost(dir), "-c", "agent.mode=yolo", "-o", "out"],
      { cwd: dir, env },
    );
    // Before: exit 0, as if done (upstream's runners exit 0 whatever failed).
    assertEquals(r.code, 1, r.stderr);
    assertMatch(r.stdout, /^every instance run ended with AuthenticationError: the batch failed /m);
    assertEquals(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

Deno.test("mini-extra swebench-single: one instance (by index), its trajectory at -o, exit 0", async () => {
  const server = await startFakeServer([{
    content: "done",
    commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"],
  }]);
  try {
    const dir = await Deno.makeTempDir({ prefix: "claudius-extra-" });
    await Deno.writeTextFile(`${dir}/lite_dev.jsonl`, DATASET);
    const r = await extra([
      "swebench-single",
      "--subset",
      "lite_dev.jsonl",
      "-i",
      "1",
      ...onHost(dir),
      "-y",
      "--exit-immediately",
      "-o",
      `${dir}/one.traj.json`,
    ], { cwd: dir, env: { OPENAI_API_BASE: server.url, OPENAI_API_KEY: KEY } });
    assertEquals(r.code, 0, r.stderr);
    const t = JSON.parse(await Deno.readTextFile(`${dir}/one.traj.json`));
    assertEquals(t.info.exit_status, "Submitted");
    assertMatch(t.messages[1].content, /Fix b\./);
    assert(!JSON.stringify(t).includes(KEY));
  } finally {
    await server.close();
  }
});
