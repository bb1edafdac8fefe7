/**
 * The report in a real browser: a real batch run (scripted model, real bash), upstream's own
 * trajectories and a hostile one, rendered by `claudius report`, loaded by headless Chromium over
 * the DevTools protocol. The page must draw its charts, run its script, request nothing but
 * itself, log no error, and keep injected markup inert. The screenshot is kept for a human to look
 * at (`CLAUDIUS_SCREENSHOT_DIR`, else the test's temporary directory, removed afterwards).
 *
 * Without Chromium (Debian package `chromium`; `.ci/run` installs it) the test is ignored, except
 * when `CI` is set: there it must run.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { step, submit, writeBatch } from "../../_support/batch.ts";
import { syntheticTrajectory, writeSyntheticTrajectory } from "../../_support/synthetic_trajectory.ts";
import { chromiumPath, launchChromium } from "../../_support/chromium.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const CONFORMANCE = new URL("../../testdata/conformance/", import.meta.url).pathname;
const chromium = chromiumPath();
const inCI = Boolean(Deno.env.get("CI"));
if (!chromium && !inCI) {
  console.error("report_browser_test.ts: no chromium: browser test ignored (set CI to fail)");
}

const EVIL_ID = `<img src=x onerror="window.pwned=1">`;
const EVIL_STATUS = `</script><script>window.pwned=2</script>`;

async function claudius(args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(out.stderr);
  if (out.code > 1) throw new Error(`claudius ${args[0]} exited ${out.code}: ${text}`);
  return text;
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Uint8Array): [number, number] {
  assertEquals([...png.slice(1, 4)], [0x50, 0x4e, 0x47], "a PNG");
  const view = new DataView(png.buffer, png.byteOffset);
  return [view.getUint32(16), view.getUint32(20)];
}

Deno.test({
  name:
    "claudius report renders in Chromium: charts drawn, script runs, no requests, no errors, injection inert",
  ignore: !chromium && !inCI,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!chromium) throw new Error("Cannot run the browser test: no chromium and CI is set");
    const dir = await Deno.makeTempDir({ prefix: "claudius-report-browser-" });
    try {
      const fx = await writeBatch([
        {
          id: "reads",
          replies: [step("ls -la", "cat instances.jsonl"), step("./executable --help"), submit("p1")],
        },
        {
          id: "mixed",
          replies: [
            { content: "thinking aloud, no command" },
            step("sleep 5"),
            step("printf 'int main(){}' > a.c && gcc -o prog a.c; true"),
            submit("p2"),
          ],
        },
        { id: "long", replies: [step("ls"), step("ls"), step("ls"), step("ls"), step("ls"), submit("p3")] },
      ], `${dir}/fixture`);
      await claudius(
        [
          "batch",
          fx.instances,
          "-o",
          `${dir}/batch`,
          ...[...fx.specs, "environment.timeout=1", "agent.step_limit=4"]
            .flatMap((s) => ["-c", s]),
        ],
        dir,
      );
      const { messages, info } = syntheticTrajectory({ steps: 4, status: EVIL_STATUS, instanceId: EVIL_ID });
      await Deno.mkdir(`${dir}/hostile`);
      await Deno.writeTextFile(
        `${dir}/hostile/evil.traj.json`,
        JSON.stringify({ instance_id: EVIL_ID, messages, info }),
      );
      await Deno.writeTextFile(`${dir}/hostile/broken <b>.traj.json`, "{ not json");
      const page = `${dir}/report.html`;
      const log = await claudius(["report", `${dir}/batch`, CONFORMANCE, `${dir}/hostile`, "-o", page], dir);
      assert(log.includes("6 trajectories in 3 set(s)"), log);

      const browser = await launchChromium(chromium);
      try {
        const url = `file://${page}`;
        await browser.load(url);
        const ev = <T>(e: string) => browser.evaluate<T>(e);
        assertEquals(await ev("document.body.dataset.ready"), "1", "the page's script ran to its end");
        // The success rates, then the five charts of the runs (no pass@k curves: one trial per instance).
        assertEquals(await ev("document.querySelectorAll('svg.chart').length"), 6);
        assertEquals(await ev("document.querySelectorAll('svg.chart.curves').length"), 0);
        assertEquals(await ev("document.querySelectorAll('svg.strip').length"), 6);
        assert(
          await ev(`[...document.querySelectorAll('svg.chart')].every((s) => {
            const b = s.getBoundingClientRect();
            return b.width > 300 && b.height > 40 && s.querySelectorAll('rect, circle').length > 0;
          })`),
          "every chart laid out with bars in it",
        );
        assert(await ev("[...document.querySelectorAll('svg.strip path')].length >= 6"), "strips drawn");
        // Exit statuses as the batch ended them: one LimitsExceeded (step limit 4), the rest Submitted.
        const statuses = await ev<string[]>(
          `[...document.querySelectorAll('#trajectories tbody tr')].map((r) => r.cells[3].textContent)`,
        );
        assertEquals(statuses.filter((s) => s === "LimitsExceeded").length, 1, statuses.join());
        assertEquals(statuses.filter((s) => s === "Submitted").length, 4, statuses.join());
        // The shapes: a format error and a timeout in "mixed", probe in "reads".
        const shapes = await ev<Record<string, string>>(
          `Object.fromEntries([...document.querySelectorAll('#trajectories tbody tr')]
            .map((r) => [r.cells[2].textContent, r.querySelector('svg.strip').dataset.shape]))`,
        );
        assertEquals(shapes.mixed, "fOwo");
        assertEquals(shapes.reads, "rpo");

        // Each set is told by its model and config, not by its path alone; the charts name it so.
        const summary = await ev<string[][]>(
          `[...document.querySelectorAll('#summary tbody tr')].map((r) =>
            [...r.cells].slice(0, 3).map((c) => c.textContent))`,
        );
        assertEquals(summary.map((r) => r[0]), [`${dir}/batch`, CONFORMANCE, `${dir}/hostile`]);
        assertEquals(
          summary.map((r) => r[1]),
          ["scripted", "test-model", "synthetic/model-1"],
          JSON.stringify(summary),
        );
        assertMatch(
          summary[0]![2]!,
          /^toolcall, local, 4 steps, prompts claudius \d+\.\d+\.\d+ [0-9a-f]{4}$/,
        );
        const chartLabels = await ev<string[]>(
          `[...document.querySelector('svg.chart').querySelectorAll('text title')].map((t) => t.textContent)`,
        );
        assertEquals(chartLabels.slice(0, 3), ["scripted", "test-model", "synthetic/model-1"]);

        // Injection stayed text.
        assertEquals(await ev("typeof window.pwned"), "undefined");
        assert(await ev(`document.body.textContent.includes(${JSON.stringify(EVIL_ID)})`));
        assert(await ev(`document.body.textContent.includes(${JSON.stringify(EVIL_STATUS)})`));
        assert(await ev(`document.body.textContent.includes("broken <b>.traj.json")`));
        assertEquals(await ev("document.querySelectorAll('img, b').length"), 0);

        const png = await browser.screenshot();
        const [w, h] = pngSize(png);
        assert(w >= 1000 && h > 1500, `screenshot ${w}x${h}`);
        const keep = Deno.env.get("CLAUDIUS_SCREENSHOT_DIR");
        if (keep) await Deno.writeFile(`${keep}/report.png`, png);
        // What a person sees first: the title, the sets with their models and configs, the first chart.
        const top = await browser.screenshot({ x: 0, y: 0, width: 1400, height: 640 });
        assertEquals(pngSize(top), [1400, 640]);
        if (keep) await Deno.writeFile(`${keep}/report-top.png`, top);

        // Sorting and filtering.
        await ev(
          `[...document.querySelectorAll('#trajectories th')].find((h) => h.textContent === 'steps').click()`,
        );
        const steps = await ev<number[]>(
          `[...document.querySelectorAll('#trajectories tbody tr')].map((r) => Number(r.cells[5].dataset.v))`,
        );
        assertEquals(steps, [...steps].sort((a, b) => b - a), "sorted by steps, most first");
        await ev(`(() => { const f = document.getElementById('filter'); f.value = 'upstream';
          f.dispatchEvent(new Event('input')); })()`);
        assertEquals(await ev("document.getElementById('shown').textContent"), "2");

        assertEquals(browser.events.errors, [], "no console errors, exceptions or CSP violations");
        assertEquals(browser.events.dialogs, []);
        assertEquals(browser.events.requests, [url], "the page requested nothing but itself");
      } finally {
        await browser.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Write a script per arm, instance and trial: it submits when `wins` says so, else never does. */
async function trialScripts(dir: string, wins: Record<string, string[]>): Promise<void> {
  for (const [arm, rows] of Object.entries(wins)) {
    await Deno.mkdir(`${dir}/${arm}`, { recursive: true });
    for (const [i, row] of rows.entries()) {
      for (const [t, mark] of [...row].entries()) {
        const replies = mark === "1" ? [submit(`p${i}`)] : [step("true"), step("true")];
        await Deno.writeTextFile(`${dir}/${arm}/i${i}.${t + 1}.json`, JSON.stringify(replies));
      }
    }
  }
}

Deno.test({
  name:
    "claudius report over an ablation with --trials: each rate as an error bar at compare's figures, pass@k and pass^k curves, in Chromium",
  ignore: !chromium && !inCI,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!chromium) throw new Error("Cannot run the browser test: no chromium and CI is set");
    const dir = await Deno.makeTempDir({ prefix: "claudius-report-trials-" });
    try {
      // Per instance, its three trials: 1 submits, 0 ends at the step limit.
      await trialScripts(`${dir}/scripts`, {
        base: ["100", "000", "110", "010"],
        rich: ["111", "101", "110", "111"],
      });
      const ids = [0, 1, 2, 3].map((i) => `i${i}`);
      await Deno.writeTextFile(
        `${dir}/instances.jsonl`,
        ids.map((id) => JSON.stringify({ instance_id: id, problem_statement: `Task ${id}` })).join("\n") +
          "\n",
      );
      const script = (arm: string) =>
        `${arm}=model.script=${dir}/scripts/${arm}/{{instance_id}}.{{trial}}.json`;
      await claudius(
        [
          "batch",
          `${dir}/instances.jsonl`,
          "-o",
          `${dir}/abl`,
          "--trials",
          "3",
          "-w",
          "2",
          "-c",
          "model.model_class=scripted",
          "-c",
          "agent.step_limit=1",
          "--arm",
          script("base"),
          "--arm",
          script("rich"),
        ],
        dir,
      );
      // An evaluator's verdicts for every trial: i3 of trial 1 did not pass its tests in either arm.
      for (const arm of ["base", "rich"]) {
        for (const k of [1, 2, 3]) {
          const preds = JSON.parse(await Deno.readTextFile(`${dir}/abl/${arm}/trial-${k}/preds.json`));
          const verdicts = Object.fromEntries(
            ids.map((id) => [id, preds[id]?.model_patch !== "" && !(k === 1 && id === "i3")]),
          );
          await Deno.writeTextFile(`${dir}/abl/${arm}/trial-${k}/results.json`, JSON.stringify(verdicts));
        }
      }
      const page = `${dir}/report.html`;
      await claudius(["report", `${dir}/abl/base`, `${dir}/abl/rich`, "-o", page], dir);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "compare", `${dir}/abl/base`, `${dir}/abl/rich`, "--json"],
        stdin: "null",
      }).output();
      const { stats } = JSON.parse(new TextDecoder().decode(out.stdout));
      assertEquals([stats.A.metric, stats.A.trials, stats.B.instances], ["resolved", 3, 4]);
      // By the verdicts: base i0 1/3, i1 0/3, i2 2/3, i3 1/3; rich i0 3/3, i1 and i2 2/3, i3 2/3 (trial 1 failed
      // its tests though it submitted).
      assertEquals(stats.A.mean, (1 / 3 + 0 + 2 / 3 + 1 / 3) / 4);
      assertEquals(stats.B.mean, (1 + 2 / 3 + 2 / 3 + 2 / 3) / 4);

      const browser = await launchChromium(chromium);
      try {
        await browser.load(`file://${page}`);
        const ev = <T>(e: string) => browser.evaluate<T>(e);
        const rates = await ev<{ mean: number; lo: number; hi: number; bar: number }[]>(
          `[...document.querySelectorAll('svg.chart.rates g.rate')].map((g) => ({
            mean: Number(g.dataset.mean), lo: Number(g.dataset.lo), hi: Number(g.dataset.hi),
            bar: g.querySelector('line').getBoundingClientRect().width }))`,
        );
        assertEquals(
          rates.map((r) => [r.mean, r.lo, r.hi]),
          [stats.A, stats.B].map((s) => [s.mean, ...s.ci95]),
        );
        assert(rates.every((r) => r.bar > 20), `error bars drawn: ${JSON.stringify(rates)}`);
        // The difference, as compare words it, under the bars.
        const line = await ev<string>("document.querySelector('ul.differences li').textContent");
        assertMatch(line, /= \+0\.\d\d \[.*\], p = [\d.]+ \(paired t, 4 instances x 3 trials\)/);
        assertEquals(line.replace(/^.* = /, ""), stats.line.replace(/^.* = /, ""));
        // pass@k and pass^k: a curve of each per set, a point per k, pass@k rising and pass^k falling.
        const curves = await ev<{ kind: string; y: number[] }[]>(
          `[...document.querySelectorAll('svg.chart.curves g.curve')].map((g) => ({ kind: g.dataset.kind,
            y: [...g.querySelectorAll('circle, rect')].map((p) => p.getBoundingClientRect().top) }))`,
        );
        assertEquals(curves.map((c) => [c.kind, c.y.length]), [
          ["pass@k", 3],
          ["pass^k", 3],
          ["pass@k", 3],
          ["pass^k", 3],
        ]);
        for (const c of curves) {
          const [a, b, z] = c.y as [number, number, number];
          if (c.kind === "pass@k") assert(a >= b && b >= z, `pass@k rises (screen y falls): ${c.y}`);
          else assert(a <= b && b <= z, `pass^k falls: ${c.y}`);
        }
        // The table names each run by its trial.
        const cells = await ev<string[]>(
          `[...document.querySelectorAll('#trajectories tbody td.id')].map((c) => c.textContent)`,
        );
        assertEquals(cells.length, 24);
        assert(cells.includes("trial-3/i2"), cells.join());
        assertEquals(browser.events.errors, [], "no console errors, exceptions or CSP violations");
        assertEquals(browser.events.requests, [`file://${page}`], "the page requested nothing but itself");
        const box = await ev<{ y: number; h: number }>(`(() => {
          const a = document.getElementById('success').getBoundingClientRect();
          const z = document.getElementById('exit-statuses').getBoundingClientRect();
          return { y: a.top + window.scrollY - 8, h: z.top - a.top };
        })()`);
        const png = await browser.screenshot({ x: 0, y: box.y, width: 1000, height: box.h });
        const [w, h] = pngSize(png);
        assert(w === 1000 && h > 500, `screenshot ${w}x${h}`);
        const keep = Deno.env.get("CLAUDIUS_SCREENSHOT_DIR");
        if (keep) await Deno.writeFile(`${keep}/report-trials.png`, png);
      } finally {
        await browser.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "claudius report's summary breaks a set's path after its slashes, never inside a directory's name, in Chromium",
  ignore: !chromium && !inCI,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!chromium) throw new Error("Cannot run the browser test: no chromium and CI is set");
    const dir = await Deno.makeTempDir({ prefix: "claudius-report-names-" });
    try {
      const sets = ["runs/ablation2026/control", "runs/ablation2026/daemonrich"];
      for (const set of sets) {
        await writeSyntheticTrajectory(`${dir}/${set}/i1/i1.traj.json`, { steps: 2, instanceId: "i1" });
      }
      const page = `${dir}/report.html`;
      await claudius(["report", ...sets, "-o", page], dir);
      const browser = await launchChromium(chromium, 800);
      try {
        await browser.load(`file://${page}`);
        // Each piece of a name between its breaks, and how many lines it takes.
        const pieces = await browser.evaluate<[string, number][]>(
          `[...document.querySelectorAll('#summary td.where')].flatMap((td) => {
            const walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT), out = [];
            for (let n = walk.nextNode(); n; n = walk.nextNode()) {
              const r = document.createRange(); r.selectNodeContents(n);
              const lines = new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
              for (const word of n.textContent.split('/')) if (word) out.push([word, lines]);
            }
            return out;
          })`,
        );
        const broken = pieces.filter(([, lines]) => lines > 1);
        assertEquals(broken, [], `directory names broken over lines: ${JSON.stringify(pieces)}`);
        assert(pieces.some(([w]) => w === "ablation2026"), JSON.stringify(pieces));
      } finally {
        await browser.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
