/**
 * A batch instance whose trajectory path the model made unwritable (a pipe or a directory put in its
 * place, the instance directory made immutable): the run goes on in a rescue file, and the batch
 * records the instance from it, puts it back when it can, and a rerun neither pays for it again nor
 * leaves two trajectories of it for `claudius stats`. The CLI as a subprocess, the scripted model.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { step, submit, writeBatch } from "../_support/batch.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function claudius(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const d = new TextDecoder();
  return { code: r.code, out: d.decode(r.stdout) + d.decode(r.stderr) };
}

const chattr = (await new Deno.Command("sh", { args: ["-c", "command -v chattr"] }).output()).success;

/** Run a one-instance batch whose first command is `sabotage` (in `<out>/i1/workspace`), twice. */
async function sabotaged(sabotage: string) {
  const dir = await Deno.makeTempDir({ prefix: "claudius-rescued-" });
  const fx = await writeBatch([{
    id: "i1",
    replies: [step(`echo x >> ${dir}/runs.log; ${sabotage}`), submit("the-patch")],
  }], dir);
  const args = ["batch", fx.instances, "-o", fx.out, ...fx.specs.flatMap((s) => ["-c", s])];
  const first = await claudius(args, dir);
  const again = await claudius(args, dir);
  const runs = (await Deno.readTextFile(`${dir}/runs.log`)).trim().split("\n").length;
  const preds = JSON.parse(await Deno.readTextFile(`${fx.out}/preds.json`));
  const stats = await claudius(["stats", "--json", fx.out], dir);
  return { fx, first, again, runs, preds, stats };
}

for (
  const [what, sabotage, home] of [
    ["a pipe put in its place", "rm ../i1.traj.json && mkfifo ../i1.traj.json", true],
    ["a directory put in its place", "rm ../i1.traj.json && mkdir -p ../i1.traj.json/x", false],
  ] as const
) {
  Deno.test(`a batch instance whose trajectory path the model broke (${what}) is recorded from its rescue file once`, async () => {
    const r = await sabotaged(sabotage);
    assertEquals(r.first.code, 0, r.first.out);
    assertMatch(r.first.out, /Cannot write the trajectory at .*i1\.traj\.json any more/);
    assertEquals(r.preds.i1?.model_patch, "the-patch", r.first.out);
    // Before: the rerun ran (and paid for) the instance again, and stats counted both trajectories.
    assertEquals(r.again.code, 0, r.again.out);
    assertMatch(r.again.out, /1 already finished, 0 to run/);
    assertEquals(r.runs, 1);
    const rows = JSON.parse(r.stats.out.slice(r.stats.out.indexOf("{")));
    assertEquals(rows.trajectories?.length ?? rows.rows?.length, 1, r.stats.out);
    const files = [...Deno.readDirSync(`${r.fx.out}/i1`)].map((e) => e.name).sort();
    if (home) assertEquals(files.filter((f) => f.endsWith(".traj.json")), ["i1.traj.json"]);
    else assert(files.some((f) => /^i1\.rescued-\d+-\w+\.traj\.json$/.test(f)), files.join(" "));
  });
}

Deno.test({
  name:
    "a batch instance whose directory the model made immutable: rescued in <out>/.rescued, found by the rerun",
  ignore: !chattr,
  fn: async () => {
    let dir = "";
    try {
      const r = await sabotaged("rm ../i1.traj.json && chattr +i ..");
      dir = `${r.fx.out}/i1`;
      assertEquals(r.first.code, 0, r.first.out);
      assertEquals(r.preds.i1?.model_patch, "the-patch", r.first.out);
      assertMatch(r.first.out, /the trajectory stays at .*\/out\/\.rescued\/i1\.rescued-/);
      assertMatch(r.again.out, /1 already finished, 0 to run/);
      assertEquals(r.runs, 1);
    } finally {
      if (dir) await new Deno.Command("chattr", { args: ["-i", dir] }).output();
    }
  },
});
