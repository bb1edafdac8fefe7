import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { parseTrajectory } from "../../../src/tools/trajectories/parse_trajectory.ts";
import { reportTrajectory } from "../../../src/tools/trajectories/report_trajectory.ts";
import { renderReport } from "../../../src/tools/report/render_report.ts";
import { SCRIPT, STYLE } from "../../../src/tools/report/_assets.ts";
import { strip } from "../../../src/tools/report/_svg.ts";
import {
  syntheticTrajectory,
  writeSyntheticBatch,
  writeSyntheticTrajectory,
} from "../../_support/synthetic_trajectory.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

/** A claudius trajectory whose steps run `turns` (one list of commands per step; null = a format error). */
function trajectory(turns: (string[] | null)[], timedOut: Set<number> = new Set()) {
  const messages: Record<string, unknown>[] = [
    { role: "system", content: "sys", extra: {} },
    { role: "user", content: "task", extra: {} },
  ];
  turns.forEach((commands, s) => {
    if (commands === null) {
      messages.push({
        role: "user",
        content: "Format error",
        extra: { interrupt_type: "FormatError", response: {} },
      });
      return;
    }
    const calls = commands.map((command, k) => ({
      id: `c${s}_${k}`,
      type: "function",
      function: { name: "bash", arguments: JSON.stringify({ command }) },
    }));
    messages.push({
      role: "assistant",
      content: "",
      tool_calls: calls,
      extra: { actions: commands.map((command, k) => ({ command, tool_call_id: `c${s}_${k}` })), cost: 0.5 },
    });
    for (const c of calls) {
      messages.push({
        role: "tool",
        tool_call_id: c.id,
        content: "out",
        extra: timedOut.has(s)
          ? { returncode: -1, exception_info: "timed out", exception_type: "TimeoutExpired" }
          : { returncode: 0, exception_info: "" },
      });
    }
  });
  messages.push({ role: "exit", content: "", extra: { exit_status: "Submitted", submission: "patch" } });
  return parseTrajectory({ trajectory_format: "mini-swe-agent-1.1", messages, info: {} }, {
    path: "x.traj.json",
  });
}

Deno.test("reportTrajectory() codes each step by its primary type, format errors as f, timeouts in upper case", () => {
  const t = trajectory(
    [["cat a.c"], null, ["./executable --help"], ["sleep 99"], ["gcc a.c", "ls"], []],
    new Set([3]),
  );
  const r = reportTrajectory(t, 2);
  assertEquals(r.shape, "rfpOe-");
  assertEquals(r.set, 2);
  assertEquals([r.steps, r.formatErrors, r.timeouts, r.submitted, r.exitStatus], [
    6,
    1,
    1,
    true,
    "Submitted",
  ]);
  assertEquals(r.actionTypes, { write: 0, execute: 1, probe: 1, read: 2, other: 1 });
});

Deno.test("strip() draws one cell per step, runs merged, a timeout mark under timed-out steps", () => {
  const svg = strip("rrwF", 10);
  assertMatch(svg, /viewBox="0 0 10 10"/);
  assertMatch(svg, /<path fill="#009e73" d="M0 0h2v7h-2z"\/>/); // read, steps 1-2
  assertMatch(svg, /<path fill="#d55e00" d="M2 0h1v7h-1z"\/>/); // write
  assertMatch(svg, /<path fill="#111111" d="M3 0h1v7h-1z"\/>/); // format error
  assertMatch(svg, /<path fill="#e41a1c" d="M3 7.5h1v2.5h-1z"\/>/); // timed out
});

const EVIL_ID = `<img src=x onerror="window.pwned=1">`;
const EVIL_STATUS = `</script><script>window.pwned=2</script>`;

Deno.test("renderReport() shows control and bidi characters of trajectory text escaped, as the terminal tools do", async () => {
  const id = "id\x1b]0;x\x07\u202eevil";
  const { messages, info } = syntheticTrajectory({ steps: 2, instanceId: id });
  const t = parseTrajectory({ instance_id: id, messages, info }, { path: "/runs/a.traj.json" });
  const html = await renderReport(
    {
      sets: [{
        name: "s",
        model: "",
        config: "",
        label: "s",
        trajectories: [reportTrajectory(t, 0)],
        failures: [],
      }],
    },
    { generatedAt: new Date(0), version: "t" },
  );
  // deno-lint-ignore no-control-regex
  assertEquals(/[\x1b\x07\u202e]/.test(html), false, "no raw control or bidi character");
  assert(html.includes("id\\x1b]0;x\\x07\\u{202e}evil"));
});

Deno.test("renderReport() escapes trajectory text and lets the CSP run only its own script and style", async () => {
  const { messages, info } = syntheticTrajectory({ steps: 3, status: EVIL_STATUS, instanceId: EVIL_ID });
  const t = parseTrajectory({ instance_id: EVIL_ID, messages, info }, { path: `/runs/${EVIL_ID}.traj.json` });
  const html = await renderReport(
    {
      sets: [{
        name: `<b>set</b>`,
        model: `<b>model</b>`,
        config: `<b>config</b>`,
        label: `<b>set</b>`,
        trajectories: [reportTrajectory(t, 0)],
        failures: [],
      }],
    },
    { generatedAt: new Date(0), version: "t", title: "<i>t</i>" },
  );
  assert(!html.includes("<img"), "no raw tag from the instance id");
  assert(!html.includes("window.pwned=2</script>"), "no raw script from the exit status");
  assert(!html.includes("<b>set"), "no raw tag from the set name");
  assert(!html.includes("<b>model") && !html.includes("<b>config"), "no raw tag from the set's labels");
  assert(html.includes("&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62;"));
  assertEquals(html.match(/<script>/g)?.length, 1, "only the page's own script");
  const hash = async (s: string) =>
    btoa(
      String.fromCharCode(
        ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))),
      ),
    );
  assert(html.includes(`script-src 'sha256-${await hash(SCRIPT)}'`));
  assert(html.includes(`style-src 'sha256-${await hash(STYLE)}'`));
  assert(html.includes(`<script>${SCRIPT}</script>`) && html.includes(`<style>${STYLE}</style>`));
  assert(html.includes("default-src 'none'"));
});

async function cli(args: string[], cwd?: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "report", ...args],
    stdin: "null",
    ...(cwd ? { cwd } : {}),
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

Deno.test("claudius report: one set per PATH, unreadable files listed with exit 1, usage errors exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "claudius-report-" });
  try {
    await writeSyntheticBatch(`${dir}/a`, 40, 20); // 40: enough files for the worker threads
    await writeSyntheticTrajectory(`${dir}/b/one.traj.json`, { steps: 5, instanceId: "one" });
    const ok = await cli([`${dir}/a`, `${dir}/b`, "-o", `${dir}/r.html`, "--title", "A vs B"]);
    assertEquals(ok.code, 0, ok.stderr);
    assertMatch(ok.stderr, /41 trajectories in 2 set\(s\) -> .*r\.html/);
    const html = await Deno.readTextFile(`${dir}/r.html`);
    assertMatch(html, /<title>A vs B<\/title>/);
    assertEquals(html.match(/<svg class="strip"/g)?.length, 41);
    assertEquals(html.match(/<td class="set" title="[^"]*\/a">/g)?.length, 40);

    await Deno.writeTextFile(`${dir}/b/broken.traj.json`, "not json at all");
    const bad = await cli([`${dir}/b`, "-o", `${dir}/r2.html`]);
    assertEquals(bad.code, 1);
    assertMatch(bad.stderr, /claudius report: .*broken\.traj\.json/);
    assertMatch(
      await Deno.readTextFile(`${dir}/r2.html`),
      /Files that could not be read.*broken\.traj\.json/s,
    );

    const none = await cli([`${dir}/nothing-here`, "-o", `${dir}/r3.html`]);
    assertEquals(none.code, 1);
    assertMatch(none.stderr, /error: Cannot read .*nothing-here: no such file/);
    const usage = await cli(["-o", `${dir}/r4.html`]);
    assertEquals(usage.code, 2);
    assertMatch(usage.stderr, /error: report needs at least one PATH/);
    const help = await cli(["--help"]);
    assertMatch(help.stdout, /^claudius report: an HTML report[^]*\n {2}claudius report PATH\.\.\./);

    // -o a directory, or one of the trajectories being reported: refused, nothing written or lost.
    const one = await Deno.readTextFile(`${dir}/b/one.traj.json`);
    for (
      const [o, why] of [[`${dir}/a`, "is a directory"], [
        `${dir}/b/one.traj.json`,
        "is one of the trajectories",
      ]]
    ) {
      const r = await cli([`${dir}/b`, "-o", o!]);
      assertEquals(r.code, 2, r.stderr);
      assertMatch(r.stderr, new RegExp(`error: Cannot write the report to '${o}': it ${why}`));
    }
    assertEquals(await Deno.readTextFile(`${dir}/b/one.traj.json`), one);
    assertEquals([...Deno.readDirSync(dir)].filter((e) => e.name.includes(".tmp")), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("claudius report -o: '-' is standard output, a link is written through, no directory is named", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeSyntheticTrajectory(`${dir}/runs/one.traj.json`, { steps: 3, seed: 1 });
    const dash = await cli(["runs", "-o", "-"], dir);
    assertEquals(dash.code, 0, dash.stderr);
    assertMatch(dash.stdout, /^<!DOCTYPE html>/i);
    assertMatch(dash.stderr, /-> standard output/);
    await Deno.writeTextFile(`${dir}/real.html`, "old");
    await Deno.symlink(`${dir}/real.html`, `${dir}/link.html`);
    assertEquals((await cli(["runs", "-o", "link.html"], dir)).code, 0);
    assertEquals(Deno.lstatSync(`${dir}/link.html`).isSymlink, true);
    assertMatch(await Deno.readTextFile(`${dir}/real.html`), /^<!DOCTYPE html>/i);
    const nowhere = await cli(["runs", "-o", "nowhere/r.html"], dir);
    assertEquals([nowhere.code, nowhere.stderr], [
      1,
      "error: Cannot write nowhere/r.html: no such directory\n",
    ]);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["link.html", "real.html", "runs"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("labelSets() names sets by model when their models differ, else by model and config, else by path", async () => {
  const { labelSets } = await import("../../../src/tools/report/collect_report.ts");
  const { configLabel } = await import("../../../src/tools/trajectories/config_label.ts");
  const record = (model: string, config: string) => {
    const { messages, info } = syntheticTrajectory({ steps: 2 });
    const r = reportTrajectory(parseTrajectory({ messages, info }, { path: "/r/x.traj.json" }), 0);
    return { ...r, modelName: model, config };
  };
  const sets = (...pairs: [string, string][][]) =>
    pairs.map((runs, i) => ({
      name: `runs/${i}`,
      model: "",
      config: "",
      label: "",
      trajectories: runs.map(([m, c]) => record(m, c)),
      failures: [],
    }));
  const byModel = sets([["gpt-5", "toolcall, local"]], [["claude", "toolcall, local"], ["gpt-5", "x"]]);
  labelSets(byModel);
  assertEquals(byModel.map((s) => [s.label, s.model, s.config]), [
    ["gpt-5", "gpt-5", "toolcall, local"],
    ["claude +1 more", "claude +1 more", "toolcall, local +1 more"],
  ]);
  const byConfig = sets([["gpt-5", "toolcall, local"]], [["gpt-5", "text, docker"]]);
  labelSets(byConfig);
  assertEquals(byConfig.map((s) => s.label), ["gpt-5 · toolcall, local", "gpt-5 · text, docker"]);
  const byPath = sets([["gpt-5", "a"]], [["gpt-5", "a"]]);
  labelSets(byPath);
  assertEquals(byPath.map((s) => s.label), ["runs/0", "runs/1"]);
  // The config label: format, environment, limits, mechanisms on, a fingerprint of the prompts.
  const { messages, info } = syntheticTrajectory({ steps: 2 });
  const config = {
    agent: { step_limit: 50, cost_limit: 3, system_template: "You are.", instance_template: "{{task}}" },
    model: { model_name: "m" },
    environment: {},
    environment_type: "claudius.environments.DockerEnvironment",
    mechanisms: { daemon: { enabled: true } },
  };
  const label = configLabel(parseTrajectory({ messages, info: { ...info, config } }, { path: "" }));
  assertMatch(label, /^toolcall, docker, 50 steps, \$3, daemon, prompts [0-9a-f]{4}$/);
});
