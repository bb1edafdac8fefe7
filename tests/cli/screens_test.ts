/**
 * The terminal as a person sees it (a real tmux terminal of 80 columns): a headless run's steps and
 * its end summary with the next commands, `claudius resume --last` going on, and a command's help,
 * nothing wrapped. The captures are kept for a human to look at when `CLAUDIUS_SCREENSHOT_DIR` is set.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { Tmux } from "../_support/tmux.ts";
import { startFakeServer } from "../_support/fake_server.ts";

const SUBMIT = { content: "done", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PERMS = "--allow-read --allow-write --allow-run --allow-env --allow-net --allow-sys";
const KEEP = Deno.env.get("CLAUDIUS_SCREENSHOT_DIR");

const REPLIES = `- content: Look first.
  commands: ["ls -la"]
- content: Write and run it.
  commands:
    - |
      cat <<'EOF' > hello.py
      print("Hello, claudius!")
      EOF
    - python3 hello.py
- content: This reply forgets its command.
- commands: ["cat missing.txt"]
- commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat hello.py"]
`;

/**
 * Clear the screen and wait for the shell's prompt alone on it: a line typed before the prompt is back
 * is echoed without it (a typed command, not claudius's output, over 80 columns).
 */
async function clear(tmux: Tmux): Promise<void> {
  await tmux.run("clear");
  await tmux.waitFor((s) => /^bash-[\d.]+[$#] *$/.test(s.trim()), "the cleared screen");
}

/** The lines of a joined capture, trailing blanks dropped. */
const linesOf = (screen: string) => screen.trimEnd().split("\n").map((l) => l.trimEnd());
/** Lines over 80 columns, the shell's own (a typed command line) aside. */
const wider = (screen: string) =>
  linesOf(screen).filter((l) => [...l].length > 80 && !/^bash-[\d.]+[$#] /.test(l));

Deno.test("claudius at an 80-column terminal: each step, its result line, the summary and the next commands", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/replies.yaml`, REPLIES);
  const tmux = await Tmux.start(80, 40, { PATH: Deno.env.get("PATH") ?? "", HOME: dir });
  try {
    await tmux.run(`cd ${dir} && claudius() { "${Deno.execPath()}" run ${PERMS} ${MAIN} "$@"; }`);
    await clear(tmux);
    const specs = "-c model.model_class=scripted -c model.model_name=demo -c model.script=replies.yaml";
    await tmux.run(`claudius ${specs} -t 'Say hello' --step-limit 4`);
    const run = await tmux.waitFor((s) => /claudius resume --last/.test(s), "the run's summary");
    const joined = await tmux.screen(false, true);
    if (KEEP) await Deno.writeTextFile(`${KEEP}/run.txt`, joined);
    assertEquals(wider(joined), [], "nothing wrapped at 80 columns");
    const [stamp] = /\d{4}-\d\d-\d\dT[\dTZ.-]+-[0-9a-f]{4}/.exec(run) ?? [];
    assert(stamp, run);
    const lines = linesOf(run);
    const from = lines.findIndex((l) => l === "step 1");
    assertEquals(lines[from - 1], `claudius: commands run in workspace/${stamp} (local)`);
    assertEquals(lines.slice(from, from + 14), [
      "step 1",
      "  $ ls -la",
      lines[from + 2]!, // the listing's first line ("total 4" or similar)
      "step 2",
      "  $ cat <<'EOF' > hello.py … (+2 lines)",
      "    → rc 0 · no output",
      "  $ python3 hello.py",
      "    → rc 0 · 1 line · Hello, claudius!",
      "step 3 · format error: the reply held no valid command (the model is told)",
      "step 4",
      "  $ cat missing.txt",
      "    → rc 1 · 1 line · cat: missing.txt: No such file or directory",
      lines[from + 12]!,
      `  trajectory  runs/${stamp}.traj.json`,
    ]);
    assertMatch(lines[from + 2]!, /^ {4}→ rc 0 · \d+ lines · total \d+$/);
    assertMatch(
      lines[from + 12]!,
      /^claudius: LimitsExceeded · 4 steps · \$0 · \d+ tokens in, \d+ out · [\d.]+s$/,
    );
    assertEquals(lines.slice(from + 14, from + 18), [
      `  ran in      workspace/${stamp} (local)`,
      `  next: claudius inspect runs/${stamp}.traj.json`,
      `        claudius stats runs/${stamp}.traj.json`,
      "        claudius resume --last",
    ]);
    // The ending's colour: a limit is yellow, a failed command red.
    const colours = await tmux.screen(true);
    assertMatch(colours, /\[33mLimitsExceeded/);
    // deno-lint-ignore no-control-regex
    assertMatch(colours, /\[31m(?:\x1b\[\d+m)* {4}→ rc 1/);

    await clear(tmux);
    await tmux.run("claudius resume --last --step-limit 0");
    const resumed = await tmux.waitFor(
      (s) => /claudius: Submitted[\s\S]*^bash-[\d.]+[$#] *$/m.test(s),
      "the resume",
    );
    const resumedJoined = await tmux.screen(false, true);
    if (KEEP) await Deno.writeTextFile(`${KEEP}/resume.txt`, resumedJoined);
    assertEquals(wider(resumedJoined), [], "nothing wrapped at 80 columns");
    assertMatch(
      resumed,
      new RegExp(`^claudius: resuming runs/${stamp}\\.traj\\.json\\n {2}\\(LimitsExceeded; `, "m"),
    );
    assertMatch(
      resumed,
      /^step 5\n {2}\$ echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat hello\.py\n {4}→ submitted$/m,
    );
    assertMatch(resumed, new RegExp(`^ {2}trajectory {2}runs/${stamp}\\.resume1\\.traj\\.json$`, "m"));
    const summary = resumed.slice(resumed.indexOf("claudius: Submitted"));
    assert(summary.includes("next: claudius inspect") && !summary.includes("claudius resume"), summary);
  } finally {
    await tmux.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("claudius at a terminal says when a run has no cost limit, under the line saying where commands run", async () => {
  const dir = await Deno.makeTempDir();
  const server = await startFakeServer([SUBMIT, SUBMIT]);
  const tmux = await Tmux.start(80, 40, {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: dir,
    OPENAI_API_KEY: "sk-x",
  });
  try {
    await tmux.run(`cd ${dir} && claudius() { "${Deno.execPath()}" run ${PERMS} ${MAIN} "$@"; }`);
    await clear(tmux);
    const run = `claudius -m openai/gpt-5-mini --base-url ${server.url} -t hi`;
    await tmux.run(run);
    const uncapped = await tmux.waitFor((s) => /claudius inspect/.test(s), "the uncapped run's summary");
    assertMatch(
      uncapped,
      /^claudius: commands run in workspace\/\S+ \(local\)\nnote: no cost limit \(agent\.cost_limit 0\); -l X stops the run at \$X$/m,
    );
    assertEquals(wider(await tmux.screen(false, true)), [], "nothing wrapped at 80 columns");
    await clear(tmux);
    await tmux.run(`${run} -l 1`);
    const capped = await tmux.waitFor((s) => /claudius inspect/.test(s), "the capped run's summary");
    assert(!capped.includes("no cost limit"), capped);
  } finally {
    await tmux.close();
    await server.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("claudius help at an 80-column terminal: nothing wrapped, examples first", async () => {
  const dir = await Deno.makeTempDir();
  const tmux = await Tmux.start(80, 120, { PATH: Deno.env.get("PATH") ?? "", HOME: dir });
  try {
    await tmux.run(`claudius() { "${Deno.execPath()}" run ${PERMS} ${MAIN} "$@"; }; clear`);
    for (const command of ["stats", "resume", "config"]) {
      await tmux.run(`clear; claudius help ${command}`);
      const screen = await tmux.waitFor(
        (s) => s.includes(`claudius ${command}:`) && /Options:[\s\S]*^bash-[\d.]+[$#] *$/m.test(s),
        `the help of ${command}`,
      );
      const joined = await tmux.screen(false, true);
      if (KEEP) await Deno.writeTextFile(`${KEEP}/help-${command}.txt`, joined);
      assertEquals(wider(joined), [], `claudius help ${command}: nothing wrapped`);
      assert(screen.indexOf("Examples:") < screen.indexOf("Options:"), screen);
    }
  } finally {
    await tmux.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
