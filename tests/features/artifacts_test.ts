/**
 * saveArtifacts() and runEpisode()'s use of it: real tar, real git repositories in temp dirs, real
 * containers (docker tests are ignored without an engine unless `CI` is set).
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { saveArtifacts } from "../../src/features/artifacts.ts";
import { LocalEnvironment } from "../../src/core/environments/local.ts";
import { DockerEnvironment } from "../../src/core/environments/extra/docker.ts";
import { runCommand } from "../../src/lib/process.ts";
import { loadConfig } from "../../src/core/config/load.ts";
import { readTrajectory } from "../../src/core/trajectory.ts";
import { configIO, episodeDeps, runWithFeatures } from "../_support/episode.ts";

async function sh(script: string, cwd?: string): Promise<string> {
  const r = await runCommand(["bash", "-c", script], { timeoutSeconds: 60, ...(cwd ? { cwd } : {}) });
  if (r.exitCode !== 0) throw new Error(`Cannot run test setup '${script}': ${r.output}`);
  return r.output;
}

const GIT = "git -c user.name=t -c user.email=t@example.com";

/** A repo with one commit, then a modified file, an untracked file and an ignored one. */
async function dirtyRepo(dir: string): Promise<void> {
  await sh(
    `git init -q . && printf 'one\\ntwo\\n' > tracked.txt && echo '*.log' > .gitignore && ` +
      `${GIT} add -A && ${GIT} commit -qm init && printf 'one\\n2\\n' > tracked.txt && ` +
      `mkdir -p new && echo fresh > new/file.txt && echo noise > debug.log`,
    dir,
  );
}

async function tarList(path: string): Promise<string[]> {
  return (await sh(`tar -tzf '${path}'`)).split("\n").filter((l) => l && !l.endsWith("/")).sort();
}

async function localEnv(): Promise<{ env: LocalEnvironment; work: string; out: string }> {
  const work = await Deno.makeTempDir({ prefix: "claudius-art-work-" });
  const out = await Deno.makeTempDir({ prefix: "claudius-art-out-" });
  const env = new LocalEnvironment({ cwd: work }, Deno.env.toObject());
  await env.start();
  return { env, work, out };
}

Deno.test("saveArtifacts() writes the working directory as submission.tar.gz next to the trajectory", async () => {
  const { env, work, out } = await localEnv();
  await sh("mkdir -p sub && echo a > a.txt && echo b > sub/b.txt", work);
  const lines: string[] = [];
  const report = await saveArtifacts(env, { save_tarball: true }, `${out}/runs/x.traj.json`, {
    log: (l) => lines.push(l),
  });
  assertEquals(report, { saved: { tarball: `${out}/runs/submission.tar.gz` }, errors: {} });
  assertEquals(await tarList(`${out}/runs/submission.tar.gz`), ["./a.txt", "./sub/b.txt"]);
  assertEquals([...Deno.readDirSync(`${out}/runs`)].map((e) => e.name), ["submission.tar.gz"]);
  assertMatch(lines.join("\n"), /Saved tarball to .*submission\.tar\.gz/);
});

Deno.test("saveArtifacts() writes a patch of tracked and untracked changes that applies to HEAD", async () => {
  const { env, work, out } = await localEnv();
  await dirtyRepo(work);
  const statusBefore = await sh("git status --porcelain", work);
  const report = await saveArtifacts(env, { save_patch: true }, `${out}/inst.traj.json`, { log: () => {} });
  assertEquals(report, { saved: { patch: `${out}/inst.patch` }, errors: {} });
  const patch = await Deno.readTextFile(`${out}/inst.patch`);
  assertMatch(patch, /^diff --git a\/new\/file\.txt b\/new\/file\.txt\nnew file mode/);
  assertMatch(patch, /-two\n\+2\n/);
  assert(!patch.includes("debug.log"), "ignored files stay out of the patch");
  // The repository is untouched: nothing staged, the untracked file still untracked.
  assertEquals(await sh("git status --porcelain", work), statusBefore);
  const clone = await Deno.makeTempDir();
  await sh(
    `git clone -q '${work}' . && git apply --index '${out}/inst.patch' && cat new/file.txt tracked.txt`,
    clone,
  )
    .then((text) => assertEquals(text, "fresh\none\n2\n"));
});

Deno.test("saveArtifacts() diffs a repository without commits against the empty tree", async () => {
  const { env, work, out } = await localEnv();
  await sh("git init -q . && echo hi > only.txt", work);
  const report = await saveArtifacts(env, { save_patch: true }, `${out}/run.json`, { log: () => {} });
  assertEquals(report.errors, {});
  assertMatch(await Deno.readTextFile(`${out}/run.patch`), /^diff --git a\/only\.txt b\/only\.txt\nnew file/);
});

Deno.test("saveArtifacts() outside a git repository saves no patch and says so in one line", async () => {
  const { env, work, out } = await localEnv();
  const lines: string[] = [];
  const report = await saveArtifacts(env, { save_patch: true }, `${out}/run.json`, {
    log: (l) => lines.push(l),
  });
  assertEquals(report, { saved: {}, errors: { patch: `${work} is not a git repository` } });
  assertEquals([...Deno.readDirSync(out)], []);
  assertEquals(lines, [`No patch saved: ${work} is not a git repository`]);
});

Deno.test("saveArtifacts() records a failing git instead of throwing and leaves no file", async () => {
  const { env, work, out } = await localEnv();
  // HEAD's tree is gone: git cannot diff against it.
  await sh(
    `git init -q . && echo x > f.txt && ${GIT} add -A && ${GIT} commit -qm i && ` +
      't="$(git rev-parse HEAD^{tree})" && rm ".git/objects/${t%${t#??}}/${t#??}"',
    work,
  );
  const lines: string[] = [];
  const report = await saveArtifacts(env, { save_patch: true }, `${out}/run.json`, {
    log: (l) => lines.push(l),
  });
  assertEquals(Object.keys(report.saved), []);
  assertMatch(report.errors.patch ?? "", /^git diff failed: /);
  assertEquals([...Deno.readDirSync(out)], []);
  assertMatch(lines.join("\n"), /warning: Cannot save the patch: git diff failed/);
});

Deno.test("saveArtifacts() writes the patch to patch_path, with or without save_patch", async () => {
  const { env, work, out } = await localEnv();
  await dirtyRepo(work);
  const report = await saveArtifacts(env, { patch_path: `${out}/deep/er/fix.diff` }, `${out}/t.traj.json`, {
    log: () => {},
  });
  assertEquals(report, { saved: { patch: `${out}/deep/er/fix.diff` }, errors: {} });
  assertMatch(await Deno.readTextFile(`${out}/deep/er/fix.diff`), /^diff --git a\/new\/file\.txt/);
  assertEquals([...Deno.readDirSync(out)].map((e) => e.name), ["deep"]);
});

Deno.test("runEpisode() takes the artifacts before closing and records failures in the trajectory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-art-run-" });
  const replies = JSON.stringify([
    { content: "work", commands: ["echo result > answer.txt"] },
    { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ]);
  const { config } = await loadConfig(
    [
      "default",
      "model.model_class=scripted",
      `model.replies=${replies}`,
      "run.save_tarball=true",
      "run.save_patch=true",
    ],
    configIO(),
    () => {},
  );
  const outputPath = `${dir}/out/run1.traj.json`;
  const logs: string[] = [];
  const { result } = await runWithFeatures(
    config,
    { task: "t", outputPath },
    episodeDeps({ hostEnv: Deno.env.toObject(), log: (l) => void logs.push(l), runId: "art", cwd: dir }),
  );
  assertEquals(result.exit_status, "Submitted");
  assertEquals(await tarList(`${dir}/out/submission.tar.gz`), ["./answer.txt"]);
  const { data } = await readTrajectory(outputPath);
  assertEquals(data.info.exit_status, "Submitted");
  // ./workspace is no git repository: no patch, the run goes on.
  assertEquals(data.info.artifact_errors, { patch: `${dir}/workspace is not a git repository` });
  assert(logs.includes(`No patch saved: ${dir}/workspace is not a git repository`), logs.join("\n"));
  assertEquals(data.messages.at(-1)?.role, "exit");
});

// --- docker ---------------------------------------------------------------------------------------

const TINY = "claudius-test-tiny:latest";
const DEBIAN = "claudius-test-debian:latest";
const inCI = Boolean(Deno.env.get("CI"));
const engine =
  (await runCommand(["docker", "info"], { timeoutSeconds: 30 }).catch(() => null))?.exitCode === 0;
if (!engine && !inCI) {
  console.error("artifacts_test.ts: no engine answers `docker info`: docker tests ignored");
}
const hasDebian = engine &&
  (await runCommand(["docker", "image", "inspect", DEBIAN], { timeoutSeconds: 30 })).exitCode === 0;

function dockerTest(name: string, fn: () => Promise<void>, needsDebian = false): void {
  Deno.test({
    name,
    ignore: (!engine && !inCI) || (needsDebian && engine && !hasDebian),
    fn: async () => {
      if (!engine) throw new Error("Cannot run docker tests: `docker info` fails and CI is set");
      await fn();
    },
  });
}

async function withContainer(
  image: string,
  runArgs: string[],
  fn: (env: DockerEnvironment) => Promise<void>,
): Promise<void> {
  const env = new DockerEnvironment(
    { image, cwd: "/work", run_args: ["--rm", ...runArgs] },
    { hostEnv: {}, runId: `art${Date.now().toString(36)}` },
  );
  try {
    await env.start();
    await fn(env);
  } finally {
    await env.close();
  }
}

dockerTest("saveArtifacts() streams the container's working directory out as a tarball", async () => {
  await withContainer(TINY, [], async (env) => {
    await env.execute({ command: "mkdir -p /work/d && echo in > /work/d/f.txt && echo top > /work/t.txt" });
    const out = await Deno.makeTempDir();
    const report = await saveArtifacts(
      env,
      { save_tarball: true, save_patch: true },
      `${out}/i/i.traj.json`,
      {
        log: () => {},
      },
    );
    assertEquals(report.saved, { tarball: `${out}/i/submission.tar.gz` });
    assertEquals(await tarList(`${out}/i/submission.tar.gz`), ["./d/f.txt", "./t.txt"]);
    // The tiny image has no git: recorded, not thrown, and no patch file.
    assertMatch(report.errors.patch ?? "", /^git diff failed: .*git.*not found/);
    assertEquals([...Deno.readDirSync(`${out}/i`)].map((e) => e.name), ["submission.tar.gz"]);
  });
});

dockerTest("saveArtifacts() makes the patch inside the container", async () => {
  // The Debian test image has no git; the host's (same Debian release) is mounted in.
  await withContainer(DEBIAN, ["-v", "/usr/bin/git:/usr/bin/git:ro"], async (env) => {
    const setup = await env.execute({
      command: `cd /work && git init -q . && echo a > a.txt && ${GIT} add -A && ${GIT} commit -qm i && ` +
        "echo b >> a.txt && echo n > n.txt",
    });
    assertEquals(setup.returncode, 0, setup.output);
    const out = await Deno.makeTempDir();
    const report = await saveArtifacts(env, { save_patch: true }, `${out}/r.json`, { log: () => {} });
    assertEquals(report, { saved: { patch: `${out}/r.patch` }, errors: {} });
    const patch = await Deno.readTextFile(`${out}/r.patch`);
    assertMatch(patch, /^diff --git a\/a\.txt b\/a\.txt\n[^]*\+b\ndiff --git a\/n\.txt b\/n\.txt\nnew file/);
  });
}, true);

dockerTest("saveArtifacts() records an error for a container that is gone", async () => {
  await withContainer(TINY, [], async (env) => {
    await runCommand(["docker", "rm", "-f", env.containerId], { timeoutSeconds: 30 });
    const out = await Deno.makeTempDir();
    const report = await saveArtifacts(env, { save_tarball: true }, `${out}/r.json`, { log: () => {} });
    assertMatch(report.errors.tarball ?? "", /tar failed: .*(No such container|is not running)/i);
    assertEquals([...Deno.readDirSync(out)], []);
  });
});

// --- claudius --patch -----------------------------------------------------------------------------

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/**
 * `claudius --patch` with a scripted model that edits `tracked.txt`, then hits a step limit of 1
 * (`-o t.traj.json --patch out/fix.patch` unless `paths` says otherwise).
 */
async function runWithPatch(
  args: string[],
  cwd: string,
  paths = ["-o", "t.traj.json", "--patch", "out/fix.patch"],
) {
  const replies = JSON.stringify([{
    content: "edit",
    commands: ["echo edited >> tracked.txt; echo new > n.txt"],
  }]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "--task",
      "t",
      "--model-class",
      "scripted",
      "-c",
      `model.replies=${replies}`,
      "--step-limit",
      "1",
      ...paths,
      ...args,
    ],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

for (const env of ["local", "bubblewrap"]) {
  Deno.test(`claudius --patch FILE writes the working directory's diff at any ending (${env})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "claudius-patch-" });
    await Deno.mkdir(`${dir}/repo`);
    await sh(
      `git init -q . && echo one > tracked.txt && ${GIT} add -A && ${GIT} commit -qm init`,
      `${dir}/repo`,
    );
    const r = await runWithPatch(["--env", env, "--create-cwd", "--cwd", "repo"], dir);
    assertEquals(r.code, 3, r.stderr); // LimitsExceeded: the patch is taken whatever the ending
    const patch = await Deno.readTextFile(`${dir}/out/fix.patch`);
    assertMatch(patch, /^diff --git a\/n\.txt b\/n\.txt\nnew file[^]*\+new\n/);
    assertMatch(patch, /diff --git a\/tracked\.txt b\/tracked\.txt\n[^]* one\n\+edited\n/);
    assertEquals(await sh("git status --porcelain", `${dir}/repo`), " M tracked.txt\n?? n.txt\n");
  });
}

/** The files a patch changes, in its order. */
function patched(patch: string): string[] {
  return [...patch.matchAll(/^diff --git a\/(\S+) /gm)].map((m) => m[1] ?? "");
}

for (const env of ["local", "bubblewrap"]) {
  Deno.test(`claudius --patch from inside the repository leaves claudius's own outputs out (${env})`, async () => {
    const repo = await Deno.makeTempDir({ prefix: "claudius-patch-" });
    await sh(`git init -q . && echo one > tracked.txt && ${GIT} add -A && ${GIT} commit -qm init`, repo);
    // The trajectory, its ATIF copy and the patch inside the tree, one of them by another spelling.
    const paths = ["-o", "runs/t.traj.json", "--patch", `../${repo.split("/").pop()}/fix.patch`];
    const r = await runWithPatch(
      ["--env", env, "--create-cwd", "--cwd", ".", "-c", "run.atif_path=t.atif.json"],
      repo,
      paths,
    );
    assertEquals(r.code, 3, r.stderr);
    const patch = await Deno.readTextFile(`${repo}/fix.patch`);
    assertEquals(patched(patch), ["n.txt", "tracked.txt"]);
    // A second run leaves out the patch it replaces; the first run's trajectory is the tree's now.
    const again = await runWithPatch(["--env", env, "--create-cwd", "--cwd", "."], repo, [
      "-o",
      "t2.traj.json",
      "--patch",
      "fix.patch",
    ]);
    assertEquals(again.code, 3, again.stderr);
    assertEquals(patched(await Deno.readTextFile(`${repo}/fix.patch`)), [
      "n.txt",
      "runs/t.atif.json",
      "runs/t.traj.json",
      "tracked.txt",
    ]);
  });
}

Deno.test("claudius --patch from inside the repository leaves out the earlier runs it saved under ./runs/", async () => {
  const repo = await Deno.makeTempDir({ prefix: "claudius-patch-" });
  await sh(`git init -q . && echo one > tracked.txt && ${GIT} add -A && ${GIT} commit -qm init`, repo);
  // A newcomer's second try: the first run's trajectory (and its patch) are in ./runs/ under their default names.
  const twice = ["--cwd", ".", "-c", "run.save_patch=true"];
  assertEquals((await runWithPatch(twice, repo, ["--patch", "fix.patch"])).code, 3);
  const again = await runWithPatch(twice, repo, ["--patch", "fix.patch"]);
  assertEquals(again.code, 3, again.stderr);
  assertEquals((await Deno.readDir(`${repo}/runs`)[Symbol.asyncIterator]().next()).done, false);
  assertEquals(patched(await Deno.readTextFile(`${repo}/fix.patch`)), ["n.txt", "tracked.txt"]);
  // A file of the tree that only looks like a run's stays in.
  await Deno.writeTextFile(`${repo}/runs/notes.traj.json`, "{}");
  assertEquals((await runWithPatch(twice, repo, ["--patch", "fix.patch"])).code, 3);
  assertEquals(patched(await Deno.readTextFile(`${repo}/fix.patch`)), [
    "n.txt",
    "runs/notes.traj.json",
    "tracked.txt",
  ]);
});

Deno.test("claudius --patch outside a git repository: one line, no file, the exit code of the run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-patch-" });
  await Deno.mkdir(`${dir}/plain`);
  const r = await runWithPatch(["--create-cwd", "--cwd", "plain"], dir);
  assertEquals(r.code, 3, r.stderr);
  assert(r.stderr.includes(`No patch saved: ${dir}/plain is not a git repository\n`), r.stderr);
  assert(!r.stderr.includes("warning"), r.stderr);
  assertEquals([...Deno.readDirSync(`${dir}/out`)], []);
  const { data } = await readTrajectory(`${dir}/t.traj.json`);
  assertEquals(data.info.artifact_errors, { patch: `${dir}/plain is not a git repository` });
});

dockerTest("claudius --patch FILE takes the diff inside the container (docker)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-patch-" });
  const r = await runWithPatch([
    "--env",
    "docker",
    "--image",
    DEBIAN,
    "--create-cwd",
    "--cwd",
    "/repo",
    "-c",
    'environment.run_args=["--rm","-v","/usr/bin/git:/usr/bin/git:ro"]',
    "-c",
    `run.env_startup_command=git init -q . && echo one > tracked.txt && ${GIT} add -A && ${GIT} commit -qm i`,
  ], dir);
  assertEquals(r.code, 3, r.stderr);
  const patch = await Deno.readTextFile(`${dir}/out/fix.patch`);
  assertMatch(
    patch,
    /^diff --git a\/n\.txt b\/n\.txt\nnew file[^]*diff --git a\/tracked\.txt[^]* one\n\+edited\n/,
  );
}, true);

dockerTest(
  "claudius --patch leaves its own outputs out of a repository mounted into the container",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "claudius-patch-" });
    await Deno.mkdir(`${dir}/repo`);
    await sh(
      `git init -q . && echo one > tracked.txt && ${GIT} add -A && ${GIT} commit -qm init`,
      `${dir}/repo`,
    );
    const r = await runWithPatch(
      [
        "--env",
        "docker",
        "--image",
        DEBIAN,
        "--create-cwd",
        "--cwd",
        "/repo",
        "-c",
        `environment.run_args=["--rm","-v","/usr/bin/git:/usr/bin/git:ro","-v","${dir}/repo:/repo"]`,
      ],
      dir,
      ["-o", "repo/runs/t.traj.json", "--patch", "repo/fix.patch"],
    );
    assertEquals(r.code, 3, r.stderr);
    assert(
      r.stderr.includes(`claudius: commands run in /repo in a docker container of ${DEBIAN}\n`),
      r.stderr,
    );
    assertEquals(patched(await Deno.readTextFile(`${dir}/repo/fix.patch`)), ["n.txt", "tracked.txt"]);
  },
  true,
);

Deno.test("claudius --patch naming the trajectory or a directory is refused before the run (exit 2)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-patch-" });
  await Deno.mkdir(`${dir}/out/fix.patch`, { recursive: true });
  const intoDir = await runWithPatch([], dir);
  assertEquals(intoDir.code, 2, intoDir.stderr);
  assertMatch(intoDir.stderr, /^error: Cannot write the patch to '.*out\/fix\.patch': it is a directory/);
  const ontoTrajectory = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "-t", "t", "--model-class", "scripted", "-c", "model.replies=[]"].concat(
      ["-o", "t.json", "--patch", "./t.json"],
    ),
    cwd: dir,
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(ontoTrajectory.stderr);
  assertEquals(ontoTrajectory.code, 2, stderr);
  assertMatch(stderr, /^error: Cannot write the patch to '.*t\.json': it is the trajectory/);
  assertEquals(await Deno.stat(`${dir}/t.json`).then(() => true, () => false), false, "nothing was run");
});
