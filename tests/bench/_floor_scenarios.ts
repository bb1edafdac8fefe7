/**
 * The bench's floor scenarios: each claudius figure beside its physical floor measured in the same
 * run (start-up against an empty `deno run`, the step against `bash -c` plus one POST, the flood
 * against `cat`), and the SIGKILL recovery check.
 *
 * @module
 */
import { readTrajectory } from "../../src/core/trajectory.ts";
import { bundleInto } from "../../src/cli/install.ts";
import { episode, REPO } from "./_episode.ts";
import { denoEmptyRun, stepFloors } from "./_floors.ts";
import type { Row } from "./_report.ts";
import { median, quantile, round } from "./_stats.ts";
import { PRINT_2000 } from "./_vs.ts";

const FLOOD_BYTES = 1_000_000_000;
const STEPS = 1000;
const STARTUP_RUNS = 10;

const ms = (x: number) => `${round(x, 2)} ms`;
const mib = (kib: number) => `${round(kib / 1024, 1)} MiB`;
const x = (a: number, b: number) => `${round(a / b, 2)}x`;
const log = (line: string) => console.error(`bench: ${line}`);

export async function startup(tmp: string): Promise<Row[]> {
  const empty = `${tmp}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  const bundle = await bundled(`${tmp}/bundle`);
  const floor: number[] = [];
  const value: number[] = [];
  const bundleValue: number[] = [];
  const firstRequest = async (i: number, entry?: string) => {
    const e = await episode(`${tmp}/startup${i}`, [], entry ? { entry } : {});
    if (e.run.code !== 0) {
      throw new Error(`Cannot measure start-up: claudius exited ${e.run.code}\n${e.run.stderr}`);
    }
    return e.server.requests[0]!.receivedAt - e.run.spawnedAt;
  };
  for (let i = 0; i <= STARTUP_RUNS; i++) {
    const f = await denoEmptyRun(empty);
    const v = await firstRequest(i);
    const b = await firstRequest(i, bundle);
    if (i === 0) continue; // warm-up
    floor.push(f);
    value.push(v);
    bundleValue.push(b);
  }
  const v = median(value), b = median(bundleValue), f = median(floor);
  return [{
    figure: `start-up: spawn -> first request (median of ${STARTUP_RUNS})`,
    value: ms(v),
    floor: `${ms(f)} (\`deno run\` of an empty file, spawn -> exit)`,
    ratio: x(v, f),
    budget: "<= 2x",
    met: v <= 2 * f,
  }, {
    figure:
      "start-up, bundled: the same from the bundle `deno task install` makes (`deno bundle --code-splitting`)",
    value: ms(b),
    floor: ms(f),
    ratio: x(b, f),
    budget: "<= 2x",
    met: b <= 2 * f,
  }];
}

/** claudius as `deno task install` bundles it (`bundleInto`): its main.js, for `deno run`. */
async function bundled(dir: string): Promise<string> {
  await bundleInto(Deno.execPath(), REPO.replace(/\/$/, ""), dir);
  return `${dir}/main.js`;
}

export async function longEpisode(tmp: string): Promise<{ rows: Row[]; json: Record<string, unknown> }> {
  const dir = `${tmp}/long`;
  const e = await episode(dir, Array(STEPS - 1).fill(PRINT_2000), { pollMs: 250 });
  if (e.run.code !== 0) throw new Error(`Cannot run the long episode: exit ${e.run.code}\n${e.run.stderr}`);
  const { data } = await readTrajectory(e.trajectory);
  const size = (await Deno.stat(e.trajectory)).size;
  e.server.requests.length = 0; // drop what the server recorded before measuring the floor
  log(`long episode done (${e.gaps.length} gaps); measuring its floor`);
  const fl = await stepFloors(PRINT_2000, e.trajectory, e.gaps.length, `${dir}/ws`);
  const g = e.gaps, t = fl.total;
  const first = (a: number[]) => median(a.slice(0, 100));
  const last = (a: number[]) => median(a.slice(-100));
  const gapGrowth = last(g) - first(g), floorGrowth = last(t) - first(t);
  /** A row with no budget: a figure beside its floor. */
  const info = (figure: string, value: number, floor: number): Row => ({
    figure,
    value: ms(value),
    floor: ms(floor),
    ratio: x(value, floor),
    budget: "",
    met: null,
  });
  const rows: Row[] = [
    {
      figure: `per-step gap, median (${g.length} steps, ~2,000 chars each)`,
      value: ms(median(g)),
      floor: `${ms(median(t))} (bash -c alone ${ms(median(fl.cmd))} + stringify & POST ${
        ms(median(fl.send))
      })`,
      ratio: x(median(g), median(t)),
      budget: "<= 1.5x",
      met: median(g) <= 1.5 * median(t),
    },
    info("per-step gap, p95", quantile(g, 0.95), quantile(t, 0.95)),
    info("per-step gap, median of first 100 steps", first(g), first(t)),
    info("per-step gap, median of last 100 steps", last(g), last(t)),
    {
      figure: "growth: last-100 median - first-100 median",
      value: ms(gapGrowth),
      floor: `${ms(floorGrowth)} (floor's own growth)`,
      ratio: `+${ms(gapGrowth - floorGrowth)}`,
      budget: "<= floor's growth (+0.5 ms noise)",
      met: gapGrowth <= floorGrowth + 0.5,
    },
    {
      figure: `peak RSS, ${STEPS}-step episode`,
      value: mib(e.run.peakRssKiB),
      floor: `${mib(fl.peakRssKiB)} (the floor's own Deno process: same commands and requests)`,
      ratio: x(e.run.peakRssKiB, fl.peakRssKiB),
      budget: "< 79 MiB (upstream's, measured side by side)",
      met: e.run.peakRssKiB < 79 * 1024,
    },
    {
      figure:
        "RSS at the largest sample: anonymous (V8 heap, malloc, buffers) + file-backed (deno's own pages)",
      value: `${mib(e.run.rssAtPeak.anonKiB)} + ${mib(e.run.rssAtPeak.fileKiB)}`,
      floor: "",
      ratio: "",
      budget: "",
      met: null,
    },
    {
      figure: "bytes written by claudius's threads (trajectory + log lines)",
      value: `${round(e.run.ownWriteBytes / 1e6, 2)} MB`,
      floor: `${round(size / 1e6, 2)} MB (final trajectory size)`,
      ratio: x(e.run.ownWriteBytes, size),
      budget: "<= 5x",
      met: e.run.ownWriteBytes <= 5 * size,
    },
  ];
  const json = {
    gaps: g.map((v) => round(v, 3)),
    floor_cmd: fl.cmd.map((v) => round(v, 3)),
    floor_send: fl.send.map((v) => round(v, 3)),
    peak_rss_kib: e.run.peakRssKiB,
    rss_at_peak_kib: e.run.rssAtPeak,
    own_write_bytes: e.run.ownWriteBytes,
    trajectory_bytes: size,
    messages: data.messages.length,
  };
  await Deno.remove(dir, { recursive: true });
  return { rows, json };
}

export async function sigkill(tmp: string): Promise<Row[]> {
  const trials = 5;
  let ok = 0;
  const details: string[] = [];
  for (let k = 0; k < trials; k++) {
    const steps = 40;
    let killedAfter = -1;
    const killAt = 5 + Math.floor(Math.random() * 30);
    const delay = Math.random() * 4; // ms after the request: inside the step (model, exec, save)
    const e = await episode(`${tmp}/kill${k}`, Array(steps).fill(PRINT_2000), {
      onRequest: (index, pid) => {
        if (index !== killAt) return;
        killedAfter = index; // requests 0..index arrived: steps 0..index-1 completed and saved
        setTimeout(() => Deno.kill(pid, "SIGKILL"), delay);
      },
    });
    const got = await readTrajectory(e.trajectory).then((t) => t.data.messages.length, () => -1);
    const want = 2 + 2 * killedAfter;
    const good = e.run.code !== 0 && killedAfter >= 0 && got >= want;
    if (good) ok++;
    details.push(`${got}/${want}`);
  }
  return [{
    figure: `SIGKILL mid-episode: trajectory recovered up to the last completed step`,
    value: `${ok}/${trials}`,
    floor: `messages recovered/needed: ${details.join(", ")}`,
    ratio: "",
    budget: "all",
    met: ok === trials,
  }];
}

export async function flood(tmp: string): Promise<Row[]> {
  const e = await episode(`${tmp}/flood`, [`yes | head -c ${FLOOD_BYTES}`], { pollMs: 100 });
  if (e.run.code !== 0) throw new Error(`Cannot run the flood: exit ${e.run.code}\n${e.run.stderr}`);
  const seconds = e.gaps[0]! / 1000;
  const t0 = performance.now();
  const cat = await new Deno.Command("bash", {
    args: ["-c", `yes | head -c ${FLOOD_BYTES} | /usr/bin/time -f %M cat > /dev/null`],
    stderr: "piped",
  }).output();
  const catSeconds = (performance.now() - t0) / 1000;
  const catKiB = Number(/(\d+)\s*$/.exec(new TextDecoder().decode(cat.stderr))?.[1] ?? NaN);
  await Deno.remove(`${tmp}/flood`, { recursive: true });
  const mbs = (s: number) => `${round(FLOOD_BYTES / 1e6 / s, 0)} MB/s`;
  return [
    {
      figure: "1 GB output flood: peak RSS",
      value: mib(e.run.peakRssKiB),
      floor: `${Number.isFinite(catKiB) ? mib(catKiB) : "?"} (\`cat > /dev/null\` of the same stream)`,
      ratio: "",
      budget: "<= 100 MiB",
      met: e.run.peakRssKiB <= 100 * 1024,
    },
    {
      figure: "1 GB output flood: throughput (the whole step)",
      value: mbs(seconds),
      floor: `${mbs(catSeconds)} (\`yes | head -c 1e9 | cat > /dev/null\`)`,
      ratio: x(catSeconds, seconds),
      budget: "",
      met: null,
    },
  ];
}

async function trueActions(tmp: string, name: string, args: string[], floorCommand: string | string[]) {
  const steps = 100;
  const e = await episode(`${tmp}/${name}`, Array(steps).fill("true"), { args });
  if (e.run.code !== 0) {
    throw new Error(`Cannot run the ${name} episode: exit ${e.run.code}\n${e.run.stderr}`);
  }
  const fl = await stepFloors(floorCommand, e.trajectory, e.gaps.length, `${tmp}/${name}/ws`);
  await Deno.remove(`${tmp}/${name}`, { recursive: true });
  return { gap: median(e.gaps), cmd: median(fl.cmd), send: median(fl.send) };
}

export async function localTrue(tmp: string): Promise<Row[]> {
  const r = await trueActions(tmp, "true", [], "true");
  return [{
    figure: "local action `true`: per-step gap, median (100 steps)",
    value: ms(r.gap),
    floor: `${ms(r.cmd + r.send)} (bash -c true ${ms(r.cmd)} + stringify & POST ${ms(r.send)})`,
    ratio: `+${ms(r.gap - r.cmd - r.send)} overhead`,
    budget: "",
    met: null,
  }];
}

/** `--env <cli>` actions `true` against the engine's bare `<cli> exec <ctr> true` (docker, podman). */
export async function engineTrue(tmp: string, cli: "docker" | "podman"): Promise<Row[]> {
  const image = "claudius-test-tiny:latest";
  const figure = `${cli} action \`true\`: per-step gap, median (100 steps)`;
  const quiet = { stdin: "null", stdout: "piped", stderr: "null" } as const;
  const ok = async (args: string[]) => {
    try {
      return (await new Deno.Command(cli, { args, ...quiet, signal: AbortSignal.timeout(10_000) })
        .output())
        .success;
    } catch {
      return false;
    }
  };
  if (!await ok(["info"])) {
    return [{ figure, value: "skipped (no engine)", floor: "", ratio: "", budget: "", met: null }];
  }
  if (!await ok(["image", "inspect", image])) {
    return [{ figure, value: `skipped (no image ${image})`, floor: "", ratio: "", budget: "", met: null }];
  }
  const run = await new Deno.Command(cli, {
    args: ["run", "-d", "--rm", image, "sleep", "600"],
    ...quiet,
  })
    .output();
  const ctr = new TextDecoder().decode(run.stdout).trim();
  try {
    const r = await trueActions(tmp, cli, ["--env", cli, "--image", image], [cli, "exec", ctr, "true"]);
    return [{
      figure,
      value: ms(r.gap),
      floor: `${ms(r.cmd + r.send)} (bare \`${cli} exec <ctr> true\` ${ms(r.cmd)} + stringify & POST ${
        ms(r.send)
      })`,
      ratio: `+${ms(r.gap - r.cmd - r.send)} overhead`,
      budget: "",
      met: null,
    }];
  } finally {
    await new Deno.Command(cli, {
      args: ["rm", "-f", ...(cli === "podman" ? ["-t", "0"] : []), ctr],
      ...quiet,
    })
      .output();
  }
}
