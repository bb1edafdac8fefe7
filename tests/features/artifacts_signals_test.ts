/**
 * `claudius --patch` while git makes the patch: claudius SIGKILLed (the orphan guard stops the script
 * and removes what it left), a signal (the patch is finished, the exit code is 128 + n), and two runs
 * given one patch path (each writes its own temporary file). Real git behind a stand-in that holds
 * `git add` for a while (`$CLAUDIUS_TEST_GIT_SLEEP` seconds; `sleep 30` when `hold`).
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { runCommand } from "../../src/lib/process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const GIT = "git -c user.name=t -c user.email=t@example.com";
const REAL_GIT = (await runCommand(["bash", "-c", "command -v git"], { timeoutSeconds: 10 })).output.trim();

/** A `git` first on PATH: `git add` writes its pid to `$CLAUDIUS_TEST_MARK/<pid>`, waits, then runs. */
async function slowGit(dir: string): Promise<string> {
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(
    `${bin}/git`,
    `#!/bin/sh
for a in "$@"; do
  if [ "$a" = add ]; then
    touch "$CLAUDIUS_TEST_MARK/$$"
    [ "$CLAUDIUS_TEST_GIT_SLEEP" = hold ] && exec sleep 30
    sleep "$CLAUDIUS_TEST_GIT_SLEEP"
    break
  fi
done
exec ${REAL_GIT} "$@"
`,
    { mode: 0o755 },
  );
  return bin;
}

async function repo(dir: string, edit: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const r = await runCommand([
    "bash",
    "-c",
    `git init -q . && echo one > t.txt && ${GIT} add -A && ${GIT} commit -qm i`,
  ], {
    cwd: dir,
    timeoutSeconds: 30,
  });
  assertEquals(r.exitCode, 0, r.output);
  await Deno.writeTextFile(`${dir}/.edit`, edit);
}

interface Run {
  child: Deno.ChildProcess;
  done: Promise<{ code: number; stderr: string }>;
}

/** `claudius --patch PATCH` in `cwd`: one step that edits t.txt, then the step limit. */
function claudius(cwd: string, patch: string, env: Record<string, string>): Run {
  const replies = JSON.stringify([{ commands: ["cat .edit >> t.txt; rm .edit"] }]);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "--task", "t", "--model-class", "scripted", "-c", `model.replies=${replies}`]
      .concat([
        "--step-limit",
        "1",
        "-o",
        `${cwd}.traj.json`,
        "--create-cwd",
        "--cwd",
        cwd,
        "--patch",
        patch,
      ]),
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const done = child.output().then((o) => ({ code: o.code, stderr: new TextDecoder().decode(o.stderr) }));
  return { child, done };
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`Cannot wait any longer for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const list = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
const alive = (pid: string) => Deno.stat(`/proc/${pid}`).then(() => true, () => false);

Deno.test("claudius SIGKILLed while git makes the patch: the script is stopped, no .partial nor index is left", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-patch-kill-" });
  const [mark, tmp] = [`${dir}/mark`, `${dir}/tmp`];
  await Promise.all([Deno.mkdir(mark), Deno.mkdir(tmp), Deno.mkdir(`${dir}/out`)]);
  await repo(`${dir}/ws`, "edit\n");
  const bin = await slowGit(dir);
  const run = claudius(`${dir}/ws`, `${dir}/out/fix.patch`, {
    PATH: `${bin}:${Deno.env.get("PATH")}`,
    TMPDIR: tmp, // where the script's throwaway index goes (mktemp)
    CLAUDIUS_TEST_MARK: mark,
    CLAUDIUS_TEST_GIT_SLEEP: "hold",
  });
  await waitFor("git add to start", () => list(mark).length === 1);
  const [gitPid] = list(mark);
  assertEquals(list(tmp).length, 1, "the throwaway index exists while git runs");
  run.child.kill("SIGKILL");
  await run.done;
  await waitFor(
    "the guard to stop git and clean up",
    async () => !(await alive(gitPid!)) && list(tmp).length === 0 && list(`${dir}/out`).length === 0,
    10_000,
  );
  assertEquals(list(`${dir}/out`), []);
  assertEquals(list(tmp), []);
});

Deno.test("a signal while git makes the patch: the patch is finished, then claudius exits 128 + n", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-patch-term-" });
  const mark = `${dir}/mark`;
  await Deno.mkdir(mark);
  await repo(`${dir}/ws`, "edit\n");
  const bin = await slowGit(dir);
  const run = claudius(`${dir}/ws`, `${dir}/out/fix.patch`, {
    PATH: `${bin}:${Deno.env.get("PATH")}`,
    CLAUDIUS_TEST_MARK: mark,
    CLAUDIUS_TEST_GIT_SLEEP: "1",
  });
  await waitFor("git add to start", () => list(mark).length === 1);
  run.child.kill("SIGTERM");
  const r = await run.done;
  assertEquals(r.code, 143, r.stderr); // it was 3 (the run's LimitsExceeded), as if no signal came
  assertMatch(r.stderr, /SIGTERM received[^]*Saved patch to /);
  assertMatch(
    await Deno.readTextFile(`${dir}/out/fix.patch`),
    /^diff --git a\/t\.txt b\/t\.txt\n[^]* one\n\+edit\n$/,
  );
  assertEquals(list(`${dir}/out`), ["fix.patch"]);
});

Deno.test("two runs given one --patch path: each saves its own whole diff, the last to finish wins", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-patch-two-" });
  const [markA, markB] = [`${dir}/markA`, `${dir}/markB`];
  await Promise.all([Deno.mkdir(markA), Deno.mkdir(markB)]);
  await repo(`${dir}/a`, "a long edit that only the first run makes\n".repeat(20));
  await repo(`${dir}/b`, "b\n");
  const bin = await slowGit(dir);
  const patch = `${dir}/out/fix.patch`;
  const PATH = `${bin}:${Deno.env.get("PATH")}`;
  // A's git waits 3 s; B starts once A's git has started, and finishes first.
  const a = claudius(`${dir}/a`, patch, { PATH, CLAUDIUS_TEST_MARK: markA, CLAUDIUS_TEST_GIT_SLEEP: "3" });
  await waitFor("A's git add", () => list(markA).length === 1);
  const b = await claudius(`${dir}/b`, patch, {
    PATH,
    CLAUDIUS_TEST_MARK: markB,
    CLAUDIUS_TEST_GIT_SLEEP: "0",
  })
    .done;
  assertEquals(b.code, 3, b.stderr);
  assert(b.stderr.includes(`Saved patch to ${patch}`), b.stderr);
  assertMatch(await Deno.readTextFile(patch), /\+b\n$/, "B's patch while A still runs");
  const r = await a.done;
  assertEquals(r.code, 3, r.stderr);
  assert(r.stderr.includes(`Saved patch to ${patch}`), r.stderr);
  const text = await Deno.readTextFile(patch);
  assertEquals(text.split("\n+a long edit").length - 1, 20, text);
  assert(!text.includes("+b\n"), text);
  assertEquals(list(`${dir}/out`), ["fix.patch"]);
});
