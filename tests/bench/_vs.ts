/**
 * The side-by-side scenarios of `deno task bench vs`: claudius and upstream mini-swe-agent on the same
 * loopback server in the same run, each figure with its ratio and target (issue 20's table).
 *
 * @module
 */
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import type { RecordedRequest } from "../_support/fake_server.ts";
import { runFlags } from "./_child.ts";
import {
  claudius,
  type EpisodeRun,
  installClaudius,
  type Program,
  served,
  startLine,
  SUBMIT,
} from "./_episode.ts";
import type { Row } from "./_report.ts";
import { median, quantile, round } from "./_stats.ts";
import { prepareUpstream, type Upstream, upstreamBatch, upstreamSingle } from "./_upstream.ts";

/** ~2,000 printable characters per step (1,500 random bytes in base64, 100 per line). */
export const PRINT_2000 = "head -c 1500 /dev/urandom | base64 -w 100";
const LONG_STEPS = 1000;
const STARTUP_RUNS = 10;
const BATCH_INSTANCES = 64;
const BATCH_STEPS = 20;

const ms = (x: number) => `${round(x, 1)} ms`;
const mib = (kib: number) => `${round(kib / 1024, 1)} MiB`;
const log = (line: string) => console.error(`bench: ${line}`);

/** The flags of `deno task run` without `--v8-flags` nor `--unstable-*` (a user's plain `deno run main.ts`). */
export function flagsWithoutV8(): string[] {
  return runFlags().filter((f) => !f.startsWith("--v8-flags") && !f.startsWith("--unstable-"));
}

/** One figure of both sides. `faster`: a time, ratio upstream / claudius; else memory, claudius / upstream. */
export function vsRow(
  figure: string,
  ours: number,
  theirs: number,
  kind: "time" | "memory" | "bytes",
  target: { text: string; met: (ratio: number) => boolean } | undefined,
): Row {
  const fmt = kind === "time" ? ms : kind === "memory" ? mib : (b: number) => `${round(b / 1e6, 2)} MB`;
  const ratio = kind === "time" ? theirs / ours : ours / theirs;
  const word = kind === "time" ? "x faster" : "x upstream's";
  return {
    figure,
    value: fmt(ours),
    floor: fmt(theirs),
    ratio: `${round(ratio, 2)}${word}`,
    budget: target?.text ?? "",
    met: target ? target.met(ratio) : null,
  };
}

/** The side-by-side state shared by the scenarios of one bench run. */
export interface Sides {
  up: Upstream;
  /**
   * claudius as users run it, installed by `deno task install` (its `bin/claudius`); and its bundle
   * under a plain `deno run` without the V8 flags.
   */
  ours: { start: string[]; bare: string[] };
  /** Raw figures, for the results file. */
  raw: Record<string, unknown>;
}

let prepared: Promise<Omit<Sides, "raw">> | undefined;

async function prepare(tmp: string): Promise<Omit<Sides, "raw">> {
  const up = await prepareUpstream(tmp);
  const { bin, bundle } = await installClaudius(`${tmp}/install`);
  await warmUp(`${tmp}/warm-up`, [bin]);
  return {
    up,
    ours: { start: [bin], bare: [Deno.execPath(), "run", "--no-config", ...flagsWithoutV8(), bundle] },
  };
}

/**
 * One small batch (2 instances of 2 steps) of the program just installed, not measured: the first run
 * of a new install has no V8 code cache yet and compiles every module it loads (a W=8 batch peaks ~17
 * MiB higher: 86.8 against 68.8-70.2 MiB after), which users pay once. Every scenario then measures the
 * runs users make from the second on, whichever runs first.
 */
async function warmUp(dir: string, start: string[]): Promise<void> {
  await Deno.mkdir(`${dir}/ws`, { recursive: true });
  await instancesFile(`${dir}/instances.json`, 2);
  const e = await served(claudiusBatch(dir, 2, start), { reply: batchReply(2) });
  await check(e, "the warm-up batch");
  await Deno.remove(dir, { recursive: true });
}

/** Upstream and the installed claudius, prepared once per bench run. */
export async function sides(tmp: string, raw: Record<string, unknown>): Promise<Sides> {
  prepared ??= prepare(tmp);
  const both = await prepared;
  raw.upstream = both.up.description;
  raw.claudius = `deno task install: ${both.ours.start[0]} (${await Deno.readTextFile(both.ours.start[0]!)})`;
  return { ...both, raw };
}

function upstreamProgram(up: Upstream, args: (url: string) => string[]): Program {
  return { cmd: up.python, args, env: up.env };
}

async function check(e: Omit<EpisodeRun, "trajectory">, what: string): Promise<void> {
  if (e.run.code !== 0) throw new Error(`Cannot measure ${what}: exit ${e.run.code}\n${e.run.stderr}`);
  await Promise.resolve();
}

/** Start-up: spawn -> first request, claudius and upstream alternating, median of 10 after a warm-up. */
export async function startupVs(tmp: string, s: Sides): Promise<Row[]> {
  const ours: number[] = [], theirs: number[] = [];
  for (let i = 0; i <= STARTUP_RUNS; i++) {
    const dir = `${tmp}/vs-startup${i}`;
    await Deno.mkdir(`${dir}/ws`, { recursive: true });
    const c = await served(claudius(dir, { start: s.ours.start }), { replies: [SUBMIT] });
    await check(c, "claudius's start-up");
    const u = await served(
      upstreamProgram(
        s.up,
        (url) => upstreamSingle(s.up, url, `${dir}/up.traj.json`, `${dir}/ws`, "benchmark"),
      ),
      { replies: [SUBMIT] },
    );
    await check(u, "upstream's start-up");
    if (i === 0) continue; // warm-up
    ours.push(c.server.requests[0]!.receivedAt - c.run.spawnedAt);
    theirs.push(u.server.requests[0]!.receivedAt - u.run.spawnedAt);
  }
  s.raw.startup = { claudius: ours.map((v) => round(v, 2)), upstream: theirs.map((v) => round(v, 2)) };
  return [
    vsRow(
      `start-up: exec -> first request (median of ${STARTUP_RUNS})`,
      median(ours),
      median(theirs),
      "time",
      {
        text: ">= 6x faster",
        met: (r) => r >= 6,
      },
    ),
  ];
}

/** The figures of one long run's gaps. */
export function gapFigures(gaps: readonly number[]) {
  const tenth = Math.max(1, Math.floor(gaps.length / 10));
  const first = median(gaps.slice(0, tenth)), last = median(gaps.slice(-tenth));
  return { median: median(gaps), p90: quantile(gaps, 0.9), first, last, growth: last - first };
}

/**
 * A 1,000-step run of each (999 commands printing ~2,000 characters, then a submission): the step
 * gap (median, last tenth of the run, growth), peak RSS, trajectory bytes written against the final
 * file; and claudius once more without the V8 flags (its RSS).
 */
export async function longVs(tmp: string, s: Sides): Promise<Row[]> {
  const replies: ScriptReply[] = [...Array(LONG_STEPS - 1).fill({ commands: [PRINT_2000] }), SUBMIT];
  const dir = `${tmp}/vs-long`;
  await Deno.mkdir(`${dir}/ws`, { recursive: true });
  log("long: claudius");
  const c = await served(claudius(dir, { start: s.ours.start }), { replies, pollMs: 250 });
  await check(c, "claudius's long run");
  const cSize = (await Deno.stat(`${dir}/traj.json`)).size;
  log("long: upstream");
  const upTraj = `${dir}/up.traj.json`;
  const u = await served(
    upstreamProgram(s.up, (url) => upstreamSingle(s.up, url, upTraj, `${dir}/ws`, "benchmark")),
    { replies, pollMs: 250 },
  );
  await check(u, "upstream's long run");
  const uSize = (await Deno.stat(upTraj)).size;
  log("long: claudius without the V8 flags");
  const bare = await served(claudius(`${dir}/bare`, { start: s.ours.bare }), { replies, pollMs: 250 });
  await check(bare, "claudius's long run without the V8 flags");
  const cg = gapFigures(c.gaps), ug = gapFigures(u.gaps);
  s.raw.long = {
    claudius: {
      gaps: c.gaps.map((v) => round(v, 3)),
      peak_rss_kib: c.run.peakRssKiB,
      written: c.run.ownWriteBytes,
      size: cSize,
      rss_at_peak_kib: c.run.rssAtPeak,
    },
    upstream: {
      gaps: u.gaps.map((v) => round(v, 3)),
      peak_rss_kib: u.run.peakRssKiB,
      written: u.run.ownWriteBytes,
      size: uSize,
    },
    claudius_no_v8_flags: { peak_rss_kib: bare.run.peakRssKiB, median_gap: round(median(bare.gaps), 3) },
  };
  await Deno.remove(dir, { recursive: true });
  const n = c.gaps.length;
  return [
    vsRow(`step gap, median (${n} steps)`, cg.median, ug.median, "time", {
      text: ">= 8x faster",
      met: (r) => r >= 8,
    }),
    vsRow(
      `step gap, last decile (median of the last ${Math.floor(n / 10)} steps)`,
      cg.last,
      ug.last,
      "time",
      {
        text: ">= 12x faster",
        met: (r) => r >= 12,
      },
    ),
    vsRow("step gap, p90", cg.p90, ug.p90, "time", undefined),
    {
      figure: "growth: last-decile median - first-decile median",
      value: ms(cg.growth),
      floor: ms(ug.growth),
      ratio: `${round(cg.last / cg.first, 2)}x / ${round(ug.last / ug.first, 2)}x of the first decile`,
      budget: "flat (<= 1.25x of the first decile)",
      met: cg.last <= 1.25 * cg.first,
    },
    vsRow(`peak RSS, ${LONG_STEPS}-step run`, c.run.peakRssKiB, u.run.peakRssKiB, "memory", {
      text: "<= upstream's",
      met: (r) => r <= 1,
    }),
    vsRow(
      `peak RSS, ${LONG_STEPS}-step run, claudius without the V8 flags`,
      bare.run.peakRssKiB,
      u.run.peakRssKiB,
      "memory",
      undefined,
    ),
    {
      figure: "trajectory bytes written / final file size",
      value: `${round(c.run.ownWriteBytes / 1e6, 2)} MB / ${round(cSize / 1e6, 2)} MB = ${
        round(c.run.ownWriteBytes / cSize, 2)
      }x`,
      floor: `${round(u.run.ownWriteBytes / 1e6, 1)} MB / ${round(uSize / 1e6, 2)} MB = ${
        round(u.run.ownWriteBytes / uSize, 1)
      }x`,
      ratio: "",
      budget: "<= 2x the final file",
      met: c.run.ownWriteBytes <= 2 * cSize,
    },
  ];
}

/**
 * Another 1,000-step scenario than the long run's (issue 28): a cycle of 17 ordinary commands, mostly
 * small outputs (`echo`, `true`, a failing exit, stderr), some of 2-9 KB (`ls -la`, `seq 1 2000`,
 * 4,000 bytes of `yes`), a Python start, random bytes in base64 (~1.4 KB a step on average).
 */
export const MIXED = [
  "ls -la /usr/bin | head -40",
  "echo ok",
  "head -50 /etc/services",
  "seq 1 2000",
  "false",
  "for i in $(seq 1 50); do echo line $i; done",
  "echo oops >&2; exit 3",
  "yes abcdefghij | head -c 4000",
  "printf 'a\\tb\\n'; pwd",
  "python3 -c \"print('x' * 300)\"",
  "grep -n tcp /etc/services | head -30",
  "true",
  "head -c 600 /dev/urandom | base64",
  "echo $((RANDOM % 100))",
  "ls /usr/lib | head -80",
  "wc -l /etc/services",
  "cat /etc/os-release",
];

/** The {@link MIXED} scenario side by side: peak RSS and step gap of each (no target: issue 28 asks where they went). */
export async function mixedVs(tmp: string, s: Sides): Promise<Row[]> {
  const replies: ScriptReply[] = [
    ...Array.from({ length: LONG_STEPS - 1 }, (_, i) => ({ commands: [MIXED[i % MIXED.length]!] })),
    SUBMIT,
  ];
  const dir = `${tmp}/vs-mixed`;
  await Deno.mkdir(`${dir}/ws`, { recursive: true });
  log("mixed: claudius");
  const c = await served(claudius(dir, { start: s.ours.start }), { replies, pollMs: 250 });
  await check(c, "claudius's mixed run");
  log("mixed: upstream");
  const u = await served(
    upstreamProgram(
      s.up,
      (url) => upstreamSingle(s.up, url, `${dir}/up.traj.json`, `${dir}/ws`, "benchmark"),
    ),
    { replies, pollMs: 250 },
  );
  await check(u, "upstream's mixed run");
  s.raw.mixed = {
    claudius: {
      gaps: c.gaps.map((v) => round(v, 3)),
      peak_rss_kib: c.run.peakRssKiB,
      rss_at_peak_kib: c.run.rssAtPeak,
    },
    upstream: { gaps: u.gaps.map((v) => round(v, 3)), peak_rss_kib: u.run.peakRssKiB },
  };
  await Deno.remove(dir, { recursive: true });
  const what = `mixed commands, ${LONG_STEPS}-step run`;
  return [
    vsRow(`${what}: peak RSS`, c.run.peakRssKiB, u.run.peakRssKiB, "memory", undefined),
    vsRow(`${what}: step gap, median`, median(c.gaps), median(u.gaps), "time", undefined),
  ];
}

/** The batch's reply to a request: a command until the conversation has had `steps - 1`, then a submission. */
export function batchReply(steps: number): (request: RecordedRequest) => ScriptReply {
  return (request) => {
    const body = request.body;
    const messages = body !== null && typeof body === "object" && !Array.isArray(body) ? body.messages : null;
    const done = Array.isArray(messages)
      ? messages.filter((m) =>
        m !== null && typeof m === "object" && !Array.isArray(m) && m.role === "assistant"
      )
        .length
      : 0;
    return done < steps - 1 ? { commands: [PRINT_2000] } : SUBMIT;
  };
}

/** `count` instances as claudius reads them (the task text names the instance). */
async function instancesFile(path: string, count: number): Promise<void> {
  const records = Array.from({ length: count }, (_, i) => {
    const id = `inst-${String(i).padStart(3, "0")}`;
    return { instance_id: id, problem_statement: `benchmark ${id}` };
  });
  await Deno.writeTextFile(path, JSON.stringify(records));
}

/** claudius's batch command line (each instance works in `<out>/<id>/workspace`). */
function claudiusBatch(dir: string, workers: number, start: string[]): Program {
  const [cmd, ...rest] = startLine({ start });
  return {
    ...claudius(dir, { start }),
    cmd: cmd!,
    args: (url) => [
      ...rest,
      "batch",
      `${dir}/instances.json`,
      "-o",
      `${dir}/out`,
      "-w",
      String(workers),
      "-m",
      "fake",
      "--base-url",
      url,
    ],
  };
}

/**
 * A batch of 64 instances of 20 steps each at `workers` workers: claudius's `batch` (with the V8
 * flags, and without them), upstream's driver on a ThreadPoolExecutor; wall (spawn -> exit) and peak RSS.
 */
export async function batchVs(tmp: string, s: Sides, workers: number): Promise<Row[]> {
  const dir = `${tmp}/vs-batch${workers}`;
  const run = async (name: string, program: (d: string) => Program) => {
    const d = `${dir}/${name}`;
    await Deno.mkdir(`${d}/ws`, { recursive: true });
    await instancesFile(`${d}/instances.json`, BATCH_INSTANCES);
    log(`batch W=${workers}: ${name}`);
    const e = await served(program(d), { reply: batchReply(BATCH_STEPS), pollMs: 100 });
    await check(e, `the ${name} batch at W=${workers}`);
    const requests = e.server.requests.length;
    if (requests !== BATCH_INSTANCES * BATCH_STEPS) {
      throw new Error(
        `Cannot measure the ${name} batch: ${requests} requests, expected ${BATCH_INSTANCES * BATCH_STEPS}`,
      );
    }
    return { wall: e.run.exitedAt - e.run.spawnedAt, rss: e.run.peakRssKiB };
  };
  const c = await run("claudius", (d) => claudiusBatch(d, workers, s.ours.start));
  const u = await run(
    "upstream",
    (d) =>
      upstreamProgram(
        s.up,
        (url) => upstreamBatch(s.up, url, `${d}/out`, workers, BATCH_INSTANCES),
      ),
  );
  const bare = await run("claudius-no-v8-flags", (d) => claudiusBatch(d, workers, s.ours.bare));
  s.raw[`batch_w${workers}`] = { claudius: c, upstream: u, claudius_no_v8_flags: bare };
  await Deno.remove(dir, { recursive: true });
  const what = `batch, ${BATCH_INSTANCES} x ${BATCH_STEPS}-step instances, W=${workers}`;
  return [
    vsRow(`${what}: wall`, c.wall, u.wall, "time", { text: ">= 2x faster", met: (r) => r >= 2 }),
    vsRow(`${what}: peak RSS`, c.rss, u.rss, "memory", { text: "<= 1.2x upstream's", met: (r) => r <= 1.2 }),
    vsRow(`${what}: wall, claudius without the V8 flags`, bare.wall, u.wall, "time", undefined),
    vsRow(`${what}: peak RSS, claudius without the V8 flags`, bare.rss, u.rss, "memory", undefined),
  ];
}
