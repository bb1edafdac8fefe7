/**
 * Upstream's names and the faces' defaults resolve to upstream's own files once they are imported or
 * found in an installed Python package (stand-ins in our own words, vouched for by
 * `CLAUDIUS_TEST_UPSTREAM_DIGESTS`): the first request's messages are then those sent when the same
 * file is given by path, byte for byte, against the loopback server. Without them, each run of such a
 * name says in one line that its prompts are claudius's own words.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { cli, freshHome, type Ran, standInRelease } from "../_support/upstream.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { runCommand } from "../../src/lib/process.ts";
import { sha256Hex } from "../../src/lib/sha256.ts";
import { VERSION } from "../../src/core/version.ts";

const EPISODE: ScriptReply[] = [
  { content: "Look.", commands: ["echo hi"] },
  { content: "Submit.", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
];
const MINI = [
  "-y",
  "-t",
  "Make it work.",
  "--exit-immediately",
  "-m",
  "openai/gpt-5-mini",
  "-o",
  "run.traj.json",
];
const OWN_WORDS = /^note: (\S+)'s prompts are claudius's own words, not mini-swe-agent's/m;
const inCI = Boolean(Deno.env.get("CI"));
const engine = (await runCommand(["docker", "image", "inspect", "claudius-test-tiny:latest"], {
  timeoutSeconds: 30,
}).catch(() => ({ exitCode: 1 }))).exitCode === 0;

/** Run against a fresh loopback server; the messages of its first request, and what the CLI said. */
async function firstMessages(args: string[], env: Record<string, string>, face?: string) {
  const server = await startFakeServer(EPISODE);
  try {
    const r = await cli([...args, "-c", `model.base_url=${server.url}`], env, face ? { face } : {});
    assertEquals(r.code, 0, r.stderr);
    const body = server.requests[0]?.body as { messages?: unknown } | undefined;
    return { r, messages: JSON.stringify(body?.messages) };
  } finally {
    await server.close();
  }
}

async function prompts(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(path)).info.prompts;
}

const ownWordsLines = (r: Ran) => r.stderr.split("\n").filter((l) => OWN_WORDS.test(l));

Deno.test("after import-upstream, mini's default and -c mini send what upstream's file given by path sends, byte for byte", async () => {
  const release = await standInRelease();
  const env = {
    ...await freshHome(),
    CLAUDIUS_TEST_UPSTREAM_DIGESTS: release.table,
    OPENAI_API_KEY: "sk-test",
    CLAUDIUS_PYTHON: "",
  };
  const own = await firstMessages(MINI, env, "mini");
  assertEquals(ownWordsLines(own.r).length, 1, own.r.stderr);
  const imported = await cli(["config", "import-upstream", release.root], env);
  assertEquals(imported.code, 0, imported.stderr);
  const byPath = await firstMessages([...MINI, "-c", `${release.config}/mini.yaml`], env, "mini");
  const byName = await firstMessages(MINI, env, "mini");
  const named = await firstMessages([...MINI, "-c", "mini"], env, "mini");
  const claudius = await firstMessages(
    [
      "-t",
      "Make it work.",
      "-m",
      "openai/gpt-5-mini",
      "-c",
      "mini",
      "-c",
      "agent.mode=yolo",
      "-o",
      "c.traj.json",
    ],
    env,
  );
  assertEquals(byName.messages, byPath.messages);
  assertEquals(named.messages, byPath.messages);
  assertEquals(claudius.messages, byPath.messages);
  assert(own.messages !== byPath.messages, "the stand-in is not claudius's own mini.yaml");
  for (const run of [byName, named, claudius]) assertEquals(ownWordsLines(run.r), [], run.r.stderr);
  // Every trajectory says where its prompts came from.
  const upstream = {
    source: "upstream",
    version: "2.4.6",
    sha256: { "mini.yaml": release.digests["mini.yaml"] },
    origin: "imported",
    digest_table: release.table,
  };
  assertEquals(await prompts(`${env.HOME}/run.traj.json`), upstream);
  assertEquals(await prompts(`${env.HOME}/c.traj.json`), upstream);
  // claudius's own words stay reachable by a name of their own, and say nothing.
  const ownAgain = await firstMessages([...MINI, "-c", "claudius/mini"], env, "mini");
  assertEquals([ownAgain.messages, ownWordsLines(ownAgain.r)], [own.messages, []]);
  const ownPrompts = await prompts(`${env.HOME}/run.traj.json`);
  assertEquals([ownPrompts.source, ownPrompts.version, Object.keys(ownPrompts.sha256 as object)], [
    "claudius",
    VERSION,
    ["mini.yaml"],
  ]);
  // A file given by path whose digest is a release's is upstream's; any other file is the user's.
  await firstMessages([...MINI, "-c", `${release.config}/mini.yaml`], env, "mini");
  assertEquals(await prompts(`${env.HOME}/run.traj.json`), {
    ...upstream,
    origin: "file",
    path: `${release.config}/mini.yaml`,
  });
  const mine = `${env.HOME}/mine.yaml`;
  await Deno.writeTextFile(mine, (await Deno.readTextFile(`${release.config}/mini.yaml`)) + "# mine\n");
  await firstMessages([...MINI, "-c", mine], env, "mini");
  assertEquals(await prompts(`${env.HOME}/run.traj.json`), {
    source: "file",
    path: mine,
    sha256: await sha256Hex(await Deno.readFile(mine)),
  });
});

Deno.test("without upstream's files, a run of an upstream name or face says once, in one line, that its prompts are claudius's own words", async () => {
  const env = { ...await freshHome(), OPENAI_API_KEY: "sk-test", CLAUDIUS_PYTHON: "" };
  const mini = await firstMessages(MINI, env, "mini");
  assertEquals(ownWordsLines(mini.r).map((l) => OWN_WORDS.exec(l)![1]), ["mini"]);
  assertMatch(
    ownWordsLines(mini.r)[0]!,
    /'claudius config import-upstream' \(or 'mini-extra config import-upstream'\) brings upstream's$/,
  );
  const text = await firstMessages(
    ["-t", "Make it work.", "-m", "openai/gpt-5-mini", "-c", "mini_textbased", "-c", "agent.mode=yolo"],
    env,
  );
  assertEquals(ownWordsLines(text.r).map((l) => OWN_WORDS.exec(l)![1]), ["mini_textbased"]);
  const plain = await firstMessages(["-t", "Make it work.", "-m", "openai/gpt-5-mini"], env);
  assertEquals(ownWordsLines(plain.r), [], "claudius's own default is no upstream name");
});

Deno.test("an installed minisweagent package is found without importing it, checked, cached, and its mini.yaml used", async () => {
  const release = await standInRelease("2.4.6", ["mini.yaml"]);
  const site = `${release.root}/src`; // holds minisweagent/ (its __init__ raises if imported)
  const home = await freshHome();
  const log = `${home.HOME}/python.log`;
  const python = `${home.HOME}/python3`;
  await Deno.writeTextFile(python, `#!/bin/sh\necho asked >> ${log}\nexec /usr/bin/python3 "$@"\n`);
  await Deno.chmod(python, 0o755);
  const env = {
    ...home,
    CLAUDIUS_TEST_UPSTREAM_DIGESTS: release.table,
    OPENAI_API_KEY: "sk-test",
    CLAUDIUS_PYTHON: python,
    PYTHONPATH: site,
  };
  const asked = async () => (await Deno.readTextFile(log).catch(() => "")).split("\n").length - 1;
  // The directory the user runs in is no place Python imports from: a repository's json.py never runs.
  await Deno.writeTextFile(
    `${home.HOME}/json.py`,
    "raise SystemExit('imported from the working directory')\n",
  );
  const byPath = await firstMessages([...MINI, "-c", `${release.config}/mini.yaml`], env, "mini");
  assertEquals(await asked(), 0, "a file given by path needs no lookup");
  const found = await firstMessages(MINI, env, "mini");
  assertEquals(found.messages, byPath.messages);
  assertEquals(ownWordsLines(found.r), [], found.r.stderr);
  assertEquals(await asked(), 1);
  await firstMessages(MINI, env, "mini");
  assertEquals(await asked(), 1, "the second run uses the cached lookup");
  await Deno.writeTextFile(`${site}/new_module.py`, "");
  await firstMessages(MINI, env, "mini");
  assertEquals(await asked(), 2, "a change on its sys.path asks again");
  // A package whose file is not its release's is not used, and says so.
  await Deno.writeTextFile(`${release.config}/mini.yaml`, "# changed\n", { append: true });
  const changed = await firstMessages(MINI, env, "mini");
  assertMatch(
    changed.r.stderr,
    /^note: the Python package \S+minisweagent \(mini-swe-agent 2\.4\.6\) is not used: its config\/mini\.yaml is not 2\.4\.6's \(sha256 \w+; 2\.4\.6's is \w+\)/m,
  );
  assertEquals(ownWordsLines(changed.r).length, 1);
});

Deno.test({
  name:
    "after import-upstream, mini-extra swebench and batch --mode swebench run upstream's swebench.yaml (its path's messages); before, they say so",
  ignore: !engine && !inCI,
  fn: async () => {
    const release = await standInRelease();
    const env = {
      ...await freshHome(),
      CLAUDIUS_TEST_UPSTREAM_DIGESTS: release.table,
      OPENAI_API_KEY: "sk-test",
      CLAUDIUS_PYTHON: "",
    };
    const record = {
      instance_id: "acme__tool-1",
      problem_statement: "Make it work.",
      image_name: "claudius-test-tiny",
    };
    await Deno.writeTextFile(`${env.HOME}/inst.jsonl`, JSON.stringify(record) + "\n");
    const extra = (out: string, more: string[] = []) => [
      "swebench",
      "--subset",
      "inst.jsonl",
      "-o",
      out,
      "-m",
      "openai/gpt-5-mini",
      ...more,
    ];
    const before = await firstMessages(extra("before"), env, "mini-extra");
    assertEquals(ownWordsLines(before.r).map((l) => OWN_WORDS.exec(l)![1]), ["swebench"]);
    const batchBefore = await firstMessages(
      ["batch", "--mode", "swebench", "inst.jsonl", "-o", "b0", "-m", "openai/gpt-5-mini"],
      env,
    );
    assertEquals(ownWordsLines(batchBefore.r).length, 1);
    assert((await cli(["config", "import-upstream", release.root], env)).code === 0);
    const byPath = await firstMessages(
      extra("path", ["-c", `${release.config}/benchmarks/swebench.yaml`]),
      env,
      "mini-extra",
    );
    const byName = await firstMessages(extra("name"), env, "mini-extra");
    const batch = await firstMessages(
      ["batch", "--mode", "swebench", "inst.jsonl", "-o", "b1", "-m", "openai/gpt-5-mini"],
      env,
    );
    assertEquals(byName.messages, byPath.messages);
    assertEquals(batch.messages, byPath.messages);
    assert(before.messages !== byPath.messages);
    assertEquals([...ownWordsLines(byName.r), ...ownWordsLines(batch.r)], []);
    const traj = (out: string) => `${env.HOME}/${out}/acme__tool-1/acme__tool-1.traj.json`;
    assertEquals((await prompts(traj("before"))).source, "claudius");
    for (const out of ["name", "b1"]) {
      assertEquals(await prompts(traj(out)), {
        source: "upstream",
        version: "2.4.6",
        sha256: { "benchmarks/swebench.yaml": release.digests["benchmarks/swebench.yaml"] },
        origin: "imported",
        digest_table: release.table,
      });
    }
  },
});
