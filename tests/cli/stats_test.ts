/**
 * `claudius stats` as a subprocess over real batch outputs and the golden upstream trajectories.
 */
import { assertEquals, assertMatch } from "../_support/assert.ts";
import type { StatsTotal, TrajectoryStats } from "../../src/tools/trajectories/trajectory_stats.ts";
import { batches } from "../_support/trajectory_batches.ts";
import { writeSyntheticBatch } from "../_support/synthetic_trajectory.ts";
import { collectReport } from "../../src/tools/report/collect_report.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const GOLDEN = new URL("../testdata/conformance/", import.meta.url).pathname;

async function claudius(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", MAIN, ...args], stdin: "null" })
    .output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

Deno.test("claudius stats --json: one row per trajectory with every figure, and their total", async () => {
  const { a } = await batches();
  const r = await claudius("stats", "--json", a, `${GOLDEN}toolcall_upstream.traj.json`);
  assertEquals(r.code, 0, r.stderr);
  const { trajectories, total }: { trajectories: TrajectoryStats[]; total: StatsTotal } = JSON.parse(
    r.stdout,
  );
  assertEquals(trajectories.map((t) => [t.instanceId, t.exitStatus, t.steps, t.formatErrors]), [
    ["i1", "Submitted", 2, 0],
    ["i2", "LimitsExceeded", 3, 0],
    ["i3", "Submitted", 3, 1],
    ["i4", "Submitted", 2, 0],
    ["toolcall_upstream", "Submitted", 6, 2],
  ]);
  const golden = trajectories[4]!;
  assertEquals([golden.modelCalls, golden.timeouts, golden.commands, golden.submissionBytes], [6, 1, 5, 11]);
  assertEquals([golden.promptTokens, golden.completionTokens, golden.cachedTokens], [60, 30, 0]);
  assertEquals(golden.actionTypes, { write: 0, execute: 1, probe: 0, read: 1, other: 5 });
  assertEquals(Math.abs(golden.cost - 0.06) < 1e-9, true);
  // The timeout step alone took 2 s of command time.
  assertEquals(golden.commandSeconds > 2 && golden.commandSeconds < golden.wallSeconds, true);
  assertEquals(total.trajectories, 5);
  assertEquals(total.exitStatuses, { Submitted: 4, LimitsExceeded: 1 });
  assertEquals(total.steps, 16);
  assertEquals(total.actionTypes.probe, 1);
});

Deno.test("claudius stats prints a table with a total and CSV; unreadable files are named and exit 1", async () => {
  const { a } = await batches();
  const narrow = await claudius("stats", a);
  assertEquals(narrow.code, 0, narrow.stderr);
  assertMatch(narrow.stdout, /^instance +exit +steps +cost +in +out +wall$/m);
  assertMatch(narrow.stdout, /^i2 +LimitsExceeded +3 +\$\S+ +\S+ +\S+ +\S+s$/m);
  assertMatch(narrow.stdout, /^total \(4\) +3 submitted +10 /m);
  const table = await claudius("stats", a, "--wide");
  assertEquals(table.code, 0, table.stderr);
  assertMatch(
    table.stdout,
    /^instance +exit +steps +calls +fmt err +timeouts +cost .* write +exec +probe +read +other$/m,
  );
  assertMatch(table.stdout, /^i2 +LimitsExceeded +3 +3 +0 +0 /m);
  assertMatch(table.stdout, /^total \(4\) +3 submitted +10 +10 +1 +0 /m);
  assertMatch(table.stdout, /^exit statuses: Submitted 3, LimitsExceeded 1$/m);
  const csv = await claudius("stats", "--csv", a);
  const lines = csv.stdout.trim().split("\n");
  assertEquals(lines.length, 1 + 4 + 1);
  assertMatch(lines[0]!, /^path,instance,exit_status,steps,calls,fmt_err,timeouts,cost,/);
  assertMatch(lines.at(-1)!, /^TOTAL,4,3 submitted,10,10,1,0,/);
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/x.traj.json`, "not json");
  const bad = await claudius("stats", dir, a);
  assertEquals(bad.code, 1);
  assertMatch(bad.stderr, /^warning: Cannot recover trajectory .*x\.traj\.json: no messages array$/m);
  assertMatch(bad.stdout, /^total \(4\)/m);
  const none = await claudius("stats");
  assertEquals(none.code, 2);
  assertMatch(none.stderr, /stats needs at least one PATH/);
});

Deno.test("claudius stats fits 80 columns by default, long ids cut with an ellipsis; --wide shows every column", async () => {
  const dir = await Deno.makeTempDir();
  const golden = JSON.parse(await Deno.readTextFile(`${GOLDEN}toolcall_upstream.traj.json`));
  const long = "astropy__astropy-12907-with-a-much-longer-name-than-fits";
  await Deno.writeTextFile(`${dir}/a.traj.json`, JSON.stringify({ ...golden, instance_id: long }));
  const exit = golden.messages.at(-1);
  const formatErrors = [...golden.messages.slice(0, -1), {
    ...exit,
    extra: { ...exit.extra, exit_status: "RepeatedFormatError" },
  }];
  await Deno.writeTextFile(`${dir}/b.traj.json`, JSON.stringify({ ...golden, messages: formatErrors }));
  const narrow = await claudius("stats", dir);
  assertEquals(narrow.code, 0, narrow.stderr);
  const { textWidth } = await import("../../src/lib/text.ts");
  const widest = Math.max(...narrow.stdout.trimEnd().split("\n").map(textWidth));
  assertEquals(widest <= 80, true, narrow.stdout);
  assertMatch(narrow.stdout, /^astropy__astropy-12907-\S*…  +Submitted /m);
  assertMatch(narrow.stdout, /RepeatedFormatError/);
  const wide = await claudius("stats", dir, "--wide");
  assertMatch(wide.stdout, new RegExp(`^${long} +Submitted +6 +6 +2 +1 `, "m"));
  assertEquals(Math.max(...wide.stdout.split("\n").map(textWidth)) > 120, true);
  const both = await claudius("stats", dir, "--wide", "--csv");
  assertEquals(both.code, 2);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("claudius stats into a pipe closed early (| head -c 1) ends quietly, as command-line tools do", async () => {
  const dir = await Deno.makeTempDir();
  await writeSyntheticBatch(dir, 300, 5); // a --json far larger than a pipe's buffer
  const r = await new Deno.Command("bash", {
    args: [
      "-c",
      `"${Deno.execPath()}" run -A "${MAIN}" stats --json "${dir}" | head -c 1 >/dev/null; exit "\${PIPESTATUS[0]}"`,
    ],
    stdin: "null",
  }).output();
  assertEquals(new TextDecoder().decode(r.stderr), "");
  assertEquals(r.code, 141, "128 + SIGPIPE, as a tool killed by the closed pipe");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("claudius stats and compare tables show control characters in ids escaped, wide ones aligned", async () => {
  const dir = await Deno.makeTempDir();
  const golden = JSON.parse(await Deno.readTextFile(`${GOLDEN}toolcall_upstream.traj.json`));
  const ids = ["plain", "t\x1b]0;PWNED\x07\u202eevil", "two\nlines", "日本語😀"];
  for (const [k, id] of ids.entries()) {
    await Deno.writeTextFile(`${dir}/${k}.traj.json`, JSON.stringify({ ...golden, instance_id: id }));
  }
  const exit = golden.messages.at(-1);
  const odd = [...golden.messages.slice(0, -1), {
    ...exit,
    extra: { ...exit.extra, exit_status: "Odd\x1bStatus" },
  }];
  await Deno.writeTextFile(`${dir}/odd.traj.json`, JSON.stringify({ ...golden, messages: odd }));
  await Deno.writeTextFile(`${dir}/bad\x1b[31m.traj.json`, "not json");
  for (const args of [["stats", dir], ["compare", dir, GOLDEN]]) {
    const r = await claudius(...args);
    assertEquals(r.code, 1, r.stderr);
    // deno-lint-ignore no-control-regex
    assertEquals(/[\x00-\x09\x0b-\x1f\u202e]/.test(r.stdout), false, r.stdout);
    assertMatch(r.stdout, /Odd\\x1bStatus/);
    assertMatch(r.stderr, /^warning: Cannot recover trajectory .*bad\\x1b\[31m\.traj\.json/m);
    assertMatch(r.stdout, /^t\\x1b\]0;PWNED\\x07\\u\{202e\}evil +Submitted/m);
    assertMatch(r.stdout, /^two\\nlines +Submitted/m);
    // "Submitted" starts in one terminal column on every row (wide characters take two cells).
    const { textWidth } = await import("../../src/lib/text.ts");
    const columns = r.stdout.split("\n").filter((l) => /^(plain|t\\|two|日本)/.test(l))
      .map((l) => textWidth(l.slice(0, l.indexOf("Submitted"))));
    assertEquals(columns.length, 4);
    assertEquals(new Set(columns).size, 1, String(columns));
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("claudius stats and export name an unreadable path and why in one plain line", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.symlink("/nonexistent/x", `${dir}/dangling.traj.json`);
  await Deno.mkdir(`${dir}/sub`);
  await Deno.symlink(`${dir}/sub`, `${dir}/dirlink.traj.json`);
  const stats = await claudius("stats", dir);
  assertEquals(stats.code, 1);
  assertMatch(
    stats.stderr,
    /^warning: Cannot read .*\/dangling\.traj\.json: no such file \(or a broken link\)$/m,
  );
  assertMatch(stats.stderr, /^warning: Cannot read .*\/dirlink\.traj\.json: is a directory$/m);
  const exported = await claudius("export", "--atif", dir);
  assertEquals(exported.code, 1);
  assertEquals(exported.stderr, `error: Cannot read ${dir}: is a directory\n`);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("claudius stats and report count a resumed run once: its predecessor is shown but left out of the total", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const replies = [
      { content: "", commands: ["echo one"], cost: 0.25 },
      { content: "", commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"], cost: 0.5 },
    ];
    await Deno.writeTextFile(
      `${dir}/c.yaml`,
      `model:\n  model_class: scripted\n  model_name: s\n  replies: ${JSON.stringify(replies)}\n`,
    );
    const run = (...args: string[]) =>
      new Deno.Command(Deno.execPath(), { args: ["run", "-A", MAIN, ...args], cwd: dir, stdin: "null" })
        .output();
    const first = await run(
      "-c",
      "default",
      "-c",
      "c.yaml",
      "-t",
      "t",
      "--step-limit",
      "1",
      "-o",
      "runs/a.traj.json",
    );
    assertEquals(first.code, 3, new TextDecoder().decode(first.stderr));
    const again = await run("resume", "runs/a.traj.json", "--step-limit", "0");
    assertEquals(again.code, 0, new TextDecoder().decode(again.stderr));
    const r = await claudius("stats", "--json", `${dir}/runs`);
    const { trajectories, total }: { trajectories: TrajectoryStats[]; total: StatsTotal } = JSON.parse(
      r.stdout,
    );
    assertEquals(trajectories.map((t) => [t.exitStatus, t.cost]), [["Submitted", 0.75], [
      "LimitsExceeded",
      0.25,
    ]]);
    assertEquals([total.trajectories, total.superseded, total.cost, total.exitStatuses], [1, 1, 0.75, {
      Submitted: 1,
    }]);
    const table = await claudius("stats", `${dir}/runs`);
    assertMatch(table.stdout, /^a \(resumed later\) +LimitsExceeded /m);
    assertMatch(table.stdout, /^total \(1\) +1 submitted /m);
    assertMatch(table.stdout, /^1 trajectory resumed later: not in the total \(the resume counts it\)$/m);
    const [set] = (await collectReport([`${dir}/runs`])).sets;
    assertEquals([set!.trajectories.map((t) => t.exitStatus), set!.superseded], [["Submitted"], 1]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
