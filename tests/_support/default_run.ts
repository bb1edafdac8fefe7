/**
 * What a default run loads: `claudius -t TASK -m openai/MODEL` against a loopback server, under
 * `deno run --coverage=DIR`, which lists every module the run loaded. The budget test holds it to its
 * budget; `deno task docs` lists it in src/README.md.
 */
import { assertEquals } from "./assert.ts";
import { startFakeServer } from "./fake_server.ts";

const ROOT = new URL("../..", import.meta.url);

/**
 * The most a default run may load of claudius's own code outside `src/lib/python`. Issue 28's target
 * is {@link CONTROL_TARGET}; this is where the control stands now, so that it does not grow back. The
 * price database's rules (`src/core/models/price_db.ts`, 248 lines) count since a run reads the
 * database's data rather than compiling its 31,984-line module: 10,730 lines before; the deadlines'
 * shared timer (`src/lib/timers.ts`, +43 lines) since one timer per deadline leaked a batch's memory.
 * A request's failure path (`models/extra/_failures.ts`, `_retry.ts`) and a command's that did not end by itself
 * (`environments/extra/_failure.ts`) load at the first failure since: 66 files and 11,000 lines before.
 * A body read natively when it needs neither decoding nor counting (`plainWithinCap` in
 * `_transport.ts`, +13 lines) since it bought ~6% of a batch's wall; one comparison of a save's room,
 * -2; the review's mends, -8. The orphan guard joined the process groups' file, whose kill sequence it
 * shares (64 files before); the timing of a `BASH_ENV` that a sandbox sources loads when a config sets
 * one (`environments/extra/bash_env.ts`; 63 files and 10,663 lines before); the review's mend, +27: the
 * `BASH_ENV` a config sets read in one place (`configuredBashEnv`) and the probe's gate beside the
 * registry (`probeBashEnv`) rather than in the episode.
 */
export const CONTROL_BUDGET = { files: 62, lines: 10_638 } as const;

/** Issue 28's budget of the control, not met yet (see src/README.md, The control). */
export const CONTROL_TARGET = { files: 60, lines: 8_000 } as const;

/**
 * The most a default run may load of the Python-semantics library (`src/lib/python`): its share today
 * (7,606 lines when issue 28 was filed; the .env rules and the template lexer's ASCII fast path added 26).
 */
export const PYTHON_BUDGET = { files: 49, lines: 7_632 } as const;

/** Deno's cache, as this process uses it (the run's HOME is a temporary one). */
async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/** The files (repository paths) a default run loads, with their line counts (as `wc -l` counts them). */
export async function defaultRunLoads(): Promise<Map<string, number>> {
  const dir = await Deno.makeTempDir({ prefix: "claudius-budget-" });
  const server = await startFakeServer([
    { commands: ["echo hi"] },
    { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] },
  ]);
  try {
    await Deno.mkdir(`${dir}/ws`);
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        `--coverage=${dir}/cov`,
        "--unstable-lazy-dynamic-imports",
        "-A",
        new URL("main.ts", ROOT).pathname,
        ...["-t", "say hi", "-m", "openai/gpt-5-mini", "--base-url", server.url],
        ...["--cwd", `${dir}/ws`, "-o", `${dir}/t.traj.json`],
      ],
      cwd: dir,
      // No user files (.env, configs) reach the run: only what a default run needs.
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        DENO_DIR: await denoDir(),
        HOME: dir,
        XDG_CONFIG_HOME: `${dir}/config`,
        OPENAI_API_KEY: "sk-test",
        NO_COLOR: "1",
      },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(run.code, 0, new TextDecoder().decode(run.stderr));
    const loaded = new Map<string, number>();
    for await (const entry of Deno.readDir(`${dir}/cov`)) {
      const { url } = JSON.parse(await Deno.readTextFile(`${dir}/cov/${entry.name}`));
      if (typeof url !== "string" || !url.startsWith(ROOT.href)) continue;
      const text = await Deno.readTextFile(new URL(url));
      loaded.set(url.slice(ROOT.href.length), text.split("\n").length - 1);
    }
    return loaded;
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}
