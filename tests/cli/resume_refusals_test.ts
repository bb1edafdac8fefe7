/**
 * `claudius resume` as a subprocess on files it cannot continue: each is refused with one line naming
 * the file and why, exit 2 (a usage error), before any model call. The scripted model: no endpoint.
 */
import { assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function claudius(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/** A trajectory's `info.config`, as a test edits it. */
type Config = { [section: string]: { [key: string]: unknown } } & { environment_type?: string };

const SUBMIT = 'model.replies=[{"commands":["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]}]';
const STEP = { content: "look", commands: ["ls"] };
const SUBMIT_REPLY = { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };

Deno.test("claudius resume refuses a file that is no trajectory: one line naming it, exit 2, nothing run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-resume-refusals-" });
  const files: Record<string, string> = {
    "null.json": "null",
    "number.json": "42",
    "numbers.json": "[1, 2]",
    "strings.json": '["a", "b"]',
    "no-messages.json": '{"a": 1}',
    "messages-text.json": '{"messages": "x"}',
    "no-roles.json": '{"messages": [{"foo": 1}, {"bar": 2}]}',
    "empty.json": "",
    "binary.json": "\u0000\u0001",
  };
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(`${dir}/${name}`, text);
  await Deno.mkdir(`${dir}/a-directory`);
  // A pipe would block the read until someone writes to it.
  await new Deno.Command("mkfifo", { args: [`${dir}/a-pipe`] }).output();
  for (const name of [...Object.keys(files), "a-directory", "a-pipe"]) {
    const r = await claudius(
      ["resume", name, "--model-class", "scripted", "-c", SUBMIT, "-o", "out.json"],
      dir,
    );
    assertEquals(r.code, 2, `${name}: ${r.stderr}`);
    assertMatch(r.stderr, new RegExp(`^error: Cannot resume ${dir}/${name}: [^\\n]+\\n`), name);
    assertEquals(r.stderr.includes("resuming"), false, `${name} was resumed: ${r.stderr}`);
    assertEquals(await Deno.stat(`${dir}/out.json`).then(() => true, () => false), false, name);
  }
});

Deno.test("claudius resume refuses a local run whose working directory is gone, naming it; --cwd or mkdir goes on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-resume-refusals-" });
  const replies = 'model.replies=[{"commands":["echo made > f.txt"]},{"commands":["cat f.txt"]}]';
  const run = await claudius(
    [
      "-t",
      "t",
      "--model-class",
      "scripted",
      "-c",
      replies,
      "--step-limit",
      "1",
      "--create-cwd",
      "--cwd",
      "ws",
      "-o",
      "t.json",
    ],
    dir,
  );
  assertEquals(run.code, 3, run.stderr);
  await Deno.remove(`${dir}/ws`, { recursive: true });
  const more = ["--model-class", "scripted", "-c", replies, "--step-limit", "2"];
  const gone = await claudius(["resume", "t.json", ...more], dir);
  assertEquals(gone.code, 2, gone.stderr);
  assertMatch(
    gone.stderr,
    new RegExp(`^error: Cannot resume ${dir}/t\\.json: its working directory ${dir}/ws no longer exists`),
  );
  assertEquals(await Deno.stat(`${dir}/t.resume1.json`).then(() => true, () => false), false);
  await Deno.mkdir(`${dir}/moved`);
  const moved = await claudius(["resume", "t.json", ...more, "--create-cwd", "--cwd", "moved"], dir);
  assertEquals(moved.code, 3, moved.stderr);
});

Deno.test("claudius resume refuses a trajectory that a live run is still writing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-resume-refusals-" });
  const replies = 'model.replies=[{"commands":["echo one"]},{"commands":["touch started; sleep 30"]}]';
  const live = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "-t",
      "t",
      "--model-class",
      "scripted",
      "-c",
      replies,
      "--create-cwd",
      "--cwd",
      "ws",
      "-o",
      "t.json",
    ],
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let i = 0; i < 300 && !(await Deno.stat(`${dir}/ws/started`).then(() => true, () => false)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const r = await claudius(["resume", "t.json", "--model-class", "scripted", "-c", replies], dir);
    assertEquals(r.code, 2, r.stderr);
    assertMatch(
      r.stderr,
      new RegExp(`^error: Cannot resume ${dir}/t\\.json: a running claudius is still writing it`),
    );
  } finally {
    live.kill("SIGTERM");
    await live.status;
  }
});

Deno.test("claudius resume refuses --patch or run.atif_path naming the trajectory being resumed, which is never changed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-resume-refusals-" });
  const replies =
    'model.replies=[{"commands":["echo a > f"]},{"commands":["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]}]';
  const args = ["--model-class", "scripted", "-c", replies, "--create-cwd", "--cwd", "ws"];
  assertEquals((await claudius(["-t", "t", ...args, "--step-limit", "1", "-o", "t.json"], dir)).code, 3);
  const before = await Deno.readFile(`${dir}/t.json`);
  const r = await claudius(["resume", "t.json", "--step-limit", "3", "--patch", "./t.json"], dir);
  assertEquals(r.code, 2, r.stderr);
  assertMatch(r.stderr, /^error: --patch names the trajectory being resumed/);
  const atif = await claudius(["resume", "t.json", "--step-limit", "3", "-c", "run.atif_path=t.json"], dir);
  assertEquals(atif.code, 2, atif.stderr);
  assertMatch(
    atif.stderr,
    /\nerror: Cannot write run\.atif_path '.*t\.json': it is the trajectory being resumed/,
  );
  assertEquals(await Deno.readFile(`${dir}/t.json`), before);
});

Deno.test("claudius resume sends your key to the endpoint its trajectory names only when the command line names it again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-resume-refusals-" });
  const server = await startFakeServer([STEP, SUBMIT_REPLY, SUBMIT_REPLY]);
  const key = { OPENAI_API_KEY: "sk-resume-SECRET-0123456789" };
  try {
    const model = ["-m", "openai/gpt-5-mini", "--create-cwd", "--cwd", "ws"];
    const first = await claudius(
      ["-t", "t", ...model, "--base-url", server.url, "--step-limit", "1", "-o", "t.json"],
      dir,
      key,
    );
    assertEquals(first.code, 3, first.stderr);
    assertEquals(server.requests.length, 1);
    // Before: the resume went to the recorded base_url with the key of this shell, without a word.
    const refused = await claudius(["resume", "t.json", "--step-limit", "0"], dir, key);
    assertEquals(refused.code, 2, refused.stderr);
    assertEquals(
      refused.stderr,
      `error: Cannot resume ${dir}/t.json: its trajectory sends the model's requests, with your key, to ` +
        `model.base_url '${server.url}'; give it again to go on there (--base-url ${server.url} or ` +
        `-c model.base_url=${server.url}) or name another\n`,
    );
    assertEquals(server.requests.length, 1);
    const again = await claudius(
      ["resume", "t.json", "--step-limit", "0", "--base-url", server.url],
      dir,
      key,
    );
    assertEquals(again.code, 0, again.stderr);
    assertEquals(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

Deno.test("claudius resume takes neither the variable of your key nor a host program from its trajectory without a word", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-resume-refusals-" });
  const server = await startFakeServer([STEP, SUBMIT_REPLY]);
  // The endpoint is yours (a variable of your environment); the trajectory says which key goes there.
  const env = { OPENAI_API_KEY: "sk-resume-SECRET-0123456789", HOSTED_VLLM_API_BASE: server.url };
  try {
    const first = await claudius(
      [
        ...["-t", "t", "-m", "hosted_vllm/m", "-c", "model.api_key_env=OPENAI_API_KEY", "--create-cwd"],
        ...["--cwd", "ws", "--step-limit", "1", "-o", "t.json"],
      ],
      dir,
      env,
    );
    assertEquals([first.code, server.requests.length], [3, 1], first.stderr);
    // Before: the resume sent OPENAI_API_KEY wherever the trajectory's model prefix pointed.
    const refused = await claudius(["resume", "t.json", "--step-limit", "0"], dir, env);
    assertEquals(
      [refused.code, refused.stderr],
      [
        2,
        `error: Cannot resume ${dir}/t.json: its trajectory sends your OPENAI_API_KEY as the model's key ` +
        "(model.api_key_env); give it again to go on with it (-c model.api_key_env=OPENAI_API_KEY) or name " +
        "another\n",
      ],
    );
    assertEquals(server.requests.length, 1);
    const traj = JSON.parse(await Deno.readTextFile(`${dir}/t.json`));
    const edit = async (name: string, change: (config: Config) => void) => {
      const copy = structuredClone(traj);
      change(copy.info.config);
      await Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(copy));
      return await claudius(["resume", name, "--step-limit", "0"], dir, env);
    };
    const bedrock = await edit("bedrock.json", (c) => {
      c.model = { model_name: "bedrock/m", model_kwargs: { aws_bedrock_runtime_endpoint: server.url } };
    });
    assertEquals(bedrock.code, 2, bedrock.stderr);
    assertMatch(
      bedrock.stderr,
      /^error: Cannot resume .*bedrock\.json: its trajectory sends the model's requests, with your key, to model\.model_kwargs\.aws_bedrock_runtime_endpoint 'http:/,
    );
    await Deno.writeTextFile(`${dir}/engine`, `#!/bin/sh\necho ran >> ${dir}/engine.log\nexit 1\n`, {
      mode: 0o755,
    });
    const program = await edit("program.json", (c) => {
      delete c.model!.api_key_env;
      c.environment = { environment_class: "docker", image: "x", executable: `${dir}/engine` };
      c.environment_type = "claudius.environments.DockerEnvironment";
    });
    assertEquals(program.code, 2, program.stderr);
    assertMatch(
      program.stderr,
      /^error: Cannot resume .*program\.json: its trajectory runs environment\.executable '.*\/engine' on this host; give it again/,
    );
    assertEquals(await Deno.stat(`${dir}/engine.log`).catch(() => undefined), undefined);
    assertEquals(server.requests.length, 1);
    const again = await claudius(
      ["resume", "t.json", "--step-limit", "0", "-c", "model.api_key_env=OPENAI_API_KEY"],
      dir,
      env,
    );
    assertEquals([again.code, server.requests.length], [0, 2], again.stderr);
  } finally {
    await server.close();
  }
});
