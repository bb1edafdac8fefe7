/**
 * `claudius --patch` on a working tree the model turned against the harness: its git config names an
 * fsmonitor, a hooks directory, a pager and an external diff; its `.gitattributes` a clean filter, a
 * textconv and a diff driver, each a command that leaves a mark. The patch is still taken, and no mark
 * appears, in every environment (local, bubblewrap, docker, podman), nor from the git the mechanisms run
 * (reroll's status, the sub-agents' snapshot and diff).
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { runCommand } from "../../src/lib/process.ts";
import { DEBIAN, engineTest } from "../_support/engines.ts";
import { requestMessages, setup } from "../_support/mechanisms.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const GIT = "git -c user.name=t -c user.email=t@example.com";
const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";
const MARKS = ["fsmonitor", "hook", "clean", "process", "textconv", "diffcmd", "external", "pager"];

async function sh(script: string, cwd: string): Promise<string> {
  const r = await runCommand(["bash", "-c", script], { timeoutSeconds: 60, cwd });
  if (r.exitCode !== 0) throw new Error(`Cannot run test setup '${script}': ${r.output}`);
  return r.output;
}

/** What the model runs: every program git could be made to run writes `<marks>/<name>`, then an edit. */
function turnAgainstHarness(marks: string, o = { filters: true, edit: true }): string {
  const mark = (name: string) => `touch ${marks}/${name}`;
  return [
    `git config core.fsmonitor '${mark("fsmonitor")}; false'`,
    "mkdir -p .hooks",
    `printf '#!/bin/sh\\n${mark("hook")}\\n' > .hooks/post-index-change`,
    "chmod +x .hooks/post-index-change",
    'git config core.hooksPath "$PWD/.hooks"',
    "printf '* filter=evil diff=evil\\n*.txt filter=proc\\n' > .gitattributes",
    ...o.filters
      ? [
        `git config filter.evil.clean '${mark("clean")}; cat'`,
        `git config filter.proc.process '${mark("process")}'`,
      ]
      : [],
    `git config diff.evil.textconv '${mark("textconv")}; cat'`,
    `git config diff.evil.command '${mark("diffcmd")}'`,
    `git config diff.external '${mark("external")}'`,
    `git config core.pager '${mark("pager")}'`,
    ...o.edit ? ["echo edited >> tracked.txt", "echo new > n.txt"] : [],
  ].join(" && ");
}

function marksLeft(marks: string): string[] {
  return [...Deno.readDirSync(marks)].map((e) => e.name).filter((n) => MARKS.includes(n)).sort();
}

/** `claudius --patch out/fix.patch` with one scripted step (`command`), then the step limit. */
async function runWithPatch(command: string, args: string[], cwd: string) {
  const replies = JSON.stringify([{ content: "edit", commands: [command] }]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--task", "t", "--model-class", "scripted", "-c", `model.replies=${replies}`]
      .concat(["--step-limit", "1", "-o", "t.traj.json", "--patch", "out/fix.patch", ...args]),
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

function assertPatch(patch: string): void {
  assertMatch(patch, /diff --git a\/n\.txt b\/n\.txt\nnew file[^]*\+new\n/);
  assertMatch(patch, /diff --git a\/tracked\.txt b\/tracked\.txt\n[^]* one\n\+edited\n/);
}

for (const env of ["local", "bubblewrap"]) {
  Deno.test(`claudius --patch runs none of the programs the model's git config and attributes name (${env})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "claudius-hostile-" });
    await Deno.mkdir(`${dir}/repo`);
    await Deno.mkdir(`${dir}/marks`);
    await sh(
      `git init -q . && echo one > tracked.txt && ${GIT} add -A && ${GIT} commit -qm init`,
      `${dir}/repo`,
    );
    // Under bubblewrap the model's command cannot reach the marks (outside the sandbox); claudius's git could.
    const r = await runWithPatch(turnAgainstHarness(`${dir}/marks`), ["--env", env, "--cwd", "repo"], dir);
    assertEquals(r.code, 3, r.stderr);
    assertEquals(marksLeft(`${dir}/marks`), []);
    assertPatch(await Deno.readTextFile(`${dir}/out/fix.patch`));
    // The repository is as the model left it: nothing staged, no object written.
    assertEquals(
      await sh("git status --porcelain", `${dir}/repo`),
      " M tracked.txt\n?? .gitattributes\n?? .hooks/\n?? n.txt\n",
    );
  });
}

Deno.test("claudius --patch reads the working directory's repository, not the directory its core.worktree names", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-hostile-" });
  await Deno.mkdir(`${dir}/repo/sub`, { recursive: true });
  await Deno.mkdir(`${dir}/ssh`);
  await Deno.writeTextFile(`${dir}/ssh/id_ed25519`, "PRIVATE KEY\n");
  // A cloned repository (or the model) points git's work tree at a directory of the host's secrets.
  await sh(
    `git init -q . && echo one > tracked.txt && ${GIT} add -A && ${GIT} commit -qm init && ` +
      `git config core.worktree ${dir}/ssh`,
    `${dir}/repo`,
  );
  for (const cwd of ["repo", "repo/sub"]) {
    const r = await runWithPatch(
      "echo edited >> tracked.txt; echo new > n.txt",
      ["--cwd", "."],
      `${dir}/${cwd}`,
    );
    assertEquals(r.code, 3, r.stderr);
    const patch = await Deno.readTextFile(`${dir}/${cwd}/out/fix.patch`);
    assert(!patch.includes("PRIVATE KEY"), patch);
    const at = cwd === "repo" ? "" : "sub/";
    assertMatch(patch, new RegExp(`diff --git a/${at}n\\.txt b/${at}n\\.txt\nnew file[^]*\\+new\n`));
    if (!at) assertMatch(patch, /diff --git a\/tracked\.txt b\/tracked\.txt\n[^]* one\n\+edited\n/);
  }
});

engineTest(
  "claudius --patch runs none of the programs the model's git config and attributes name",
  async (e) => {
    const dir = await Deno.makeTempDir({ prefix: "claudius-hostile-" });
    await Deno.mkdir(`${dir}/marks`);
    await Deno.chmod(`${dir}/marks`, 0o777);
    const r = await runWithPatch(turnAgainstHarness("/marks"), [
      "--env",
      e.name,
      "--image",
      DEBIAN,
      "--cwd",
      "/repo",
      "-c",
      `environment.run_args=${
        JSON.stringify(["--rm", "-v", "/usr/bin/git:/usr/bin/git:ro", "-v", `${dir}/marks:/marks`])
      }`,
      "-c",
      `run.env_startup_command=git init -q . && echo one > tracked.txt && ${GIT} add -A && ${GIT} commit -qm i`,
    ], dir);
    assertEquals(r.code, 3, r.stderr);
    assertEquals(marksLeft(`${dir}/marks`), []);
    assertPatch(await Deno.readTextFile(`${dir}/out/fix.patch`));
  },
);

/** The model's hostile git setup without the filters (run in the repository, a filter it names is its own). */
const withoutFilters = (marks: string) => turnAgainstHarness(marks, { filters: false, edit: false });

Deno.test("reroll's 'diff' check and a sub-agent's patch run no fsmonitor, hook, pager or diff driver of the tree", async () => {
  const marks = await Deno.makeTempDir({ prefix: "claudius-hostile-marks-" });
  const reroll = await setup(
    [{ commands: [withoutFilters(marks), "echo change > a.txt", SUBMIT] }],
    { reroll: { enabled: true, empty: "diff" } },
    { git: true, files: { "a.txt": "a\n", "tracked.txt": "one\n" } },
  );
  assertEquals((await reroll.run()).exit_status, "Submitted");
  assertEquals(reroll.client.requests.length, 1, "a change: not rerolled");
  const sub = await setup(
    [
      { commands: [withoutFilters(marks), "printf 'Write b.txt.' > t.md"] },
      { commands: ["claudius t.md"] },
      { commands: ["echo hello > b.txt"] }, // the child
      { commands: [SUBMIT] },
      { commands: [SUBMIT] },
    ],
    { subagents: { enabled: true } },
    { git: true, files: { "a.txt": "a\n", "tracked.txt": "one\n" } },
  );
  assertEquals((await sub.run()).exit_status, "Submitted");
  assertMatch(String(requestMessages(sub.client)[4]!.at(-1)!.content), /<patch>\ndiff --git a\/b\.txt/);
  assertEquals(marksLeft(marks), []);
  // The same git without the overrides runs them: the repository is hostile indeed.
  await sh("git status --porcelain >/dev/null; git diff HEAD >/dev/null", sub.cwd);
  assert((marksLeft(marks)).length >= 2, "the hostile repository ran nothing without the overrides");
});
