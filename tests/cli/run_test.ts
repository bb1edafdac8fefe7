/**
 * A single run as a newcomer meets it, the CLI as a subprocess with a scripted model: it works where
 * the user stands (under `deno task` too), each run in a fresh workspace, shows its steps in a log and
 * ends with a summary; `claudius resume --last` finds the newest run.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { fmtCost, fmtCount } from "../../src/lib/formats.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const MAIN = `${ROOT}/main.ts`;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** A scripted model: each reply's bash commands, then a submission. */
function script(...steps: string[][]): string {
  const replies = [...steps, ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo done"]]
    .map((commands) => ({ content: "", commands }));
  return `model:\n  model_class: scripted\n  model_name: script\n  replies: ${JSON.stringify(replies)}\n`;
}

interface Run {
  code: number;
  stderr: string;
  stdout: string;
}

async function claudius(dir: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, ...args],
    cwd: dir,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

async function trajectories(dir: string): Promise<string[]> {
  const names = await Array.fromAsync(Deno.readDir(`${dir}/runs`), (e) => e.name).catch(() => []);
  return names.filter((n) => n.endsWith(".traj.json")).sort();
}

Deno.test("claudius under deno task works where the user stands: -c, --task-file, .env, runs/ and workspace/", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/my.yaml`, script(["pwd; echo ${#NEWCOMER_DOTENV_TOKEN} characters"]));
    await Deno.writeTextFile(`${dir}/task.md`, "Say where you are.");
    await Deno.writeTextFile(`${dir}/.env`, "NEWCOMER_DOTENV_TOKEN=from-the-users-env\n");
    const env: Record<string, string> = { ...Deno.env.toObject(), NO_COLOR: "1" };
    delete env.INIT_CWD;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "task",
        "--config",
        `${ROOT}/deno.json`,
        "run",
        "-c",
        "default",
        "-c",
        "my.yaml",
        "--task-file",
        "task.md",
      ],
      cwd: dir,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = decode(out.stderr);
    assertEquals(out.code, 0, stderr);
    const [name] = await trajectories(dir);
    assert(name, `no trajectory in ${dir}/runs: ${stderr}`);
    const { data } = await readTrajectory(`${dir}/runs/${name}`);
    const stamp = name.replace(/\.traj\.json$/, "");
    assertEquals(
      String(data.messages[3]?.extra?.raw_output),
      `${dir}/workspace/${stamp}\n18 characters\n`,
    );
    assertMatch(String(data.messages[1]?.content), /Say where you are\./);
    // Nothing landed in the checkout the task ran from.
    assert(!(await Deno.stat(`${ROOT}/runs/${name}`).then(() => true, () => false)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("claudius runs each get a fresh workspace/<run time>/ named as their trajectory; --cwd and environment.cwd are kept", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/write.yaml`, script(["ls; echo x > left-behind"]));
    for (const _ of [1, 2]) {
      const r = await claudius(dir, ["-c", "default", "-c", "write.yaml", "-t", "t"]);
      assertEquals(r.code, 0, r.stderr);
    }
    const names = await trajectories(dir);
    assertEquals(names.length, 2);
    for (const name of names) {
      const { data } = await readTrajectory(`${dir}/runs/${name}`);
      // The second run does not see the first one's file.
      assertEquals(data.messages[3]?.extra?.raw_output, "");
      const stamp = name.replace(/\.traj\.json$/, "");
      const config = data.info.config as { environment: { cwd: string } };
      assertEquals(config.environment.cwd, `${dir}/workspace/${stamp}`);
      assert((await Deno.stat(`${dir}/workspace/${stamp}/left-behind`)).isFile);
    }
    const here = await claudius(dir, [
      "-c",
      "default",
      "-c",
      "write.yaml",
      "-t",
      "t",
      "--create-cwd",
      "--cwd",
      "mine",
      "-o",
      "a.json",
    ]);
    assertEquals(here.code, 0, here.stderr);
    assert((await Deno.stat(`${dir}/mine/left-behind`)).isFile);
    await Deno.writeTextFile(`${dir}/cwd.yaml`, "environment:\n  cwd: shared\nrun:\n  create_cwd: true\n");
    const config = await claudius(dir, [
      "-c",
      "default",
      "-c",
      "write.yaml",
      "-c",
      "cwd.yaml",
      "-t",
      "t",
      "-o",
      "b.json",
    ]);
    assertEquals(config.code, 0, config.stderr);
    assert((await Deno.stat(`${dir}/shared/left-behind`)).isFile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("claudius in a log shows one line per command and ends with one summary line; -q shows nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/s.yaml`, script(["printf 'a\\nb\\n'", "exit 3"], ["true"]));
    const r = await claudius(dir, ["-c", "default", "-c", "s.yaml", "-t", "t"]);
    assertEquals(r.code, 0, r.stderr);
    const [name] = await trajectories(dir);
    const stamp = name!.replace(/\.traj\.json$/, "");
    const lines = r.stderr.trimEnd().split("\n").filter((l) => !l.startsWith("note: -c default"));
    assertEquals(lines.slice(0, 5), [
      `claudius: commands run in workspace/${stamp} (local)`,
      "step 1 · $ printf 'a\\nb\\n' · rc 0 · 2 lines",
      "step 1 · $ exit 3 · rc 3 · no output",
      "step 2 · $ true · rc 0 · no output",
      "step 3 · submitted",
    ]);
    assertMatch(
      lines[5]!,
      new RegExp(
        `^claudius: Submitted; trajectory saved to runs/${name!.replaceAll(".", "\\.")} \\(3 steps, \\$0, `,
      ),
    );
    assert(lines[5]!.endsWith(`; commands ran in workspace/${stamp} (local)`), lines[5]);
    assertEquals(lines.length, 6);
    const quiet = await claudius(dir, ["-c", "default", "-c", "s.yaml", "-t", "t", "-q"]);
    assertEquals([quiet.code, quiet.stderr.replace(/^note: -c default.*\n/, "")], [0, ""]);
    const both = await claudius(dir, ["-q", "-v", "-t", "t"]);
    assertEquals(both.code, 2);
    assertMatch(both.stderr, /-q \(--quiet\) and -v \(--verbose\) cannot be used together/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("claudius says where commands run first and last; inside a git repository it needs --cwd . or --create-cwd; a missing --cwd is refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/s.yaml`, script(["ls"]));
    const git = await new Deno.Command("git", { args: ["init", "-q", dir] }).output();
    assert(git.success);
    await Deno.writeTextFile(`${dir}/mine.txt`, "the repository's file\n");
    const base = ["-c", "default", "-c", "s.yaml", "-t", "t"];
    // Inside a repository: no new empty directory without a word, nothing spent.
    const refused = await claudius(dir, base);
    assertEquals(refused.code, 2, refused.stderr);
    assertMatch(
      refused.stderr,
      new RegExp(
        `^error: ${dir} is a git repository, and claudius works in a new empty \\./workspace/<run time>/ ` +
          "unless told: pass --cwd \\. to work on the repository, or --create-cwd for the new directory$",
        "m",
      ),
    );
    assertEquals(await trajectories(dir), []);
    const inRepo = await claudius(`${dir}`, [...base, "--cwd", "."]);
    assertEquals(inRepo.code, 0, inRepo.stderr);
    assert(inRepo.stderr.includes(`claudius: commands run in ${dir} (local)\n`), inRepo.stderr);
    assertMatch(inRepo.stderr, new RegExp(`; commands ran in ${dir} \\(local\\)\n$`));
    const [first] = await trajectories(dir);
    const { data } = await readTrajectory(`${dir}/runs/${first}`);
    assertMatch(String(data.messages[3]?.content), /mine\.txt/);
    const fresh = await claudius(`${dir}`, [...base, "--create-cwd", "-q"]);
    assertEquals(fresh.code, 0, fresh.stderr);
    assertEquals((await trajectories(dir)).length, 2);
    // A mistyped --cwd: refused in one line naming it, unless asked to create it.
    const typo = await claudius(dir, [...base, "--cwd", "mien"]);
    assertEquals(typo.code, 2, typo.stderr);
    assertEquals(
      typo.stderr.replace(/^note: -c default.*\n/, ""),
      `error: Cannot use environment.cwd '${dir}/mien': it does not exist; check the path (--cwd DIR), or pass ` +
        "--create-cwd to create it\n",
    );
    assertEquals((await trajectories(dir)).length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("claudius resume --last goes on with the newest trajectory under ./runs/", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const none = await claudius(dir, ["resume", "--last"]);
    assertEquals(none.code, 2);
    assertMatch(none.stderr, /^error: Cannot resume --last: no trajectory \(\*\.traj\.json\) in .*\/runs/);
    await Deno.writeTextFile(`${dir}/s.yaml`, script(["echo one"], ["echo two"]));
    const first = await claudius(dir, ["-c", "default", "-c", "s.yaml", "-t", "t", "--step-limit", "1"]);
    assertEquals(first.code, 3, first.stderr);
    const [name] = await trajectories(dir);
    const both = await claudius(dir, ["resume", "--last", `runs/${name}`]);
    assertEquals(both.code, 2);
    assertMatch(both.stderr, /--last and a TRAJECTORY .* cannot be used together/);
    const resumed = await claudius(dir, ["resume", "--last", "--step-limit", "0"]);
    assertEquals(resumed.code, 0, resumed.stderr);
    assertMatch(resumed.stderr, new RegExp(`resuming runs/${name!.replaceAll(".", "\\.")} `));
    // Steps go on from the predecessor's.
    assertMatch(resumed.stderr, /^step 2 · \$ echo two · rc 0 · 1 line$/m);
    assertEquals((await trajectories(dir)).length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the summary's figures, from what the run holds, are those claudius stats reads from the file", async () => {
  const dir = await Deno.makeTempDir();
  const server = await startFakeServer([
    {
      content: "a",
      commands: ["echo one"],
      cost: 0.0125,
      usage: { prompt_tokens: 1200, completion_tokens: 30 },
    },
    {
      content: "b",
      commands: ["echo two"],
      cost: 0.5,
      usage: { prompt_tokens: 1700, completion_tokens: 70 },
    },
    { content: "c", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"], cost: 0.25 },
  ]);
  try {
    const base = ["-m", "openai/gpt-5-mini", "--base-url", server.url, "-t", "t", "-o", `${dir}/t.json`];
    const r = await claudius(dir, base, { OPENAI_API_KEY: "sk-summary-test-0123456789" });
    assertEquals(r.code, 0, r.stderr);
    const stats = await claudius(dir, ["stats", "--json", `${dir}/t.json`]);
    const [s] = JSON.parse(stats.stdout).trajectories;
    const line = r.stderr.trimEnd().split("\n").at(-1)!;
    assertStringIncludes(
      line,
      `(${s.steps} steps, ${fmtCost(s.cost)}, ${fmtCount(s.promptTokens)} tokens in, ${
        fmtCount(s.completionTokens)
      } out, `,
    );
    assertStringIncludes(line, "(3 steps, $0.76, 2.91k tokens in, 105 out, ");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
