/**
 * A CPU profile of a real claudius run, taken through the V8 inspector (Deno 2.9 has no
 * `--cpu-prof`): claudius runs as `deno run --inspect-wait=127.0.0.1:0 <run flags> main.ts ...`, the
 * bench connects to its inspector over WebSocket, starts the sampling profiler before any user code
 * runs, and stops it when the last request of the script arrives (before the answer). Nothing in
 * claudius changes; the inspector costs a little per sample.
 *
 * @module
 */
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { type RecordedRequest, startFakeServer } from "../_support/fake_server.ts";
import { runFlags } from "./_child.ts";
import { REPO } from "./_episode.ts";

/** One node of a V8 `.cpuprofile`. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** A V8 `.cpuprofile` (the inspector's `Profiler.stop` result). */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A tiny client of the inspector protocol over one WebSocket. */
class Inspector {
  #ws: WebSocket;
  #id = 0;
  #waiting = new Map<number, (result: unknown) => void>();

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.onmessage = (e) => {
      const msg = JSON.parse(String(e.data));
      if (typeof msg.id === "number") this.#waiting.get(msg.id)?.(msg.result ?? msg.error);
    };
  }

  static async connect(url: string): Promise<Inspector> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    return new Inspector(ws);
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = ++this.#id;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.#ws.close();
  }
}

/**
 * The inspector's WebSocket URL, from the line Deno prints on stderr; the rest of stderr is kept in
 * `seen` (read to the end: a closed pipe would fail claudius's own writes).
 */
async function inspectorUrl(stderr: ReadableStream<Uint8Array>, seen: string[]): Promise<string> {
  const decoder = new TextDecoder();
  const reader = stderr.getReader();
  seen.push("");
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen[0] += decoder.decode(value, { stream: true });
    const m = /(ws:\/\/\S+)/.exec(seen[0]!);
    if (m) {
      (async () => {
        for (;;) {
          const r = await reader.read();
          if (r.done) return;
          seen[0] += decoder.decode(r.value, { stream: true });
        }
      })();
      return m[1]!;
    }
  }
  throw new Error(`Cannot profile: claudius printed no inspector address\n${seen[0]}`);
}

/**
 * Profile claudius over `replies` (the last one ends the run). `intervalUs`: the sampling period;
 * `startAt`: the request at whose arrival profiling starts (0: before the first module runs). The
 * profile ends at the last request's arrival.
 */
export async function profileRun(
  dir: string,
  replies: readonly ScriptReply[],
  opts: {
    intervalUs?: number;
    startAt?: number;
    flags?: string[];
    /** claudius's arguments instead of a single run's (the server's URL given). */
    args?: (url: string) => string[];
    /** Answers per request instead of `replies`; then `stopAt` says when to stop. */
    reply?: (request: RecordedRequest, index: number) => ScriptReply | undefined;
    stopAt?: number;
  } = {},
): Promise<CpuProfile> {
  const startAt = opts.startAt ?? 0;
  const stopAt = opts.stopAt ?? replies.length - 1;
  await Deno.mkdir(`${dir}/ws`, { recursive: true });
  let inspector: Inspector | undefined;
  let profile: CpuProfile | undefined;
  const server = await startFakeServer(replies, {
    model: "fake",
    keepBodies: opts.reply !== undefined,
    ...(opts.reply ? { reply: opts.reply } : {}),
    onRequest: async (_request, index) => {
      if (!inspector) return;
      if (index === startAt && startAt > 0) await inspector.send("Profiler.start");
      if (index !== stopAt) return;
      const r = await inspector.send("Profiler.stop") as { profile: CpuProfile };
      profile = r.profile;
      // Deno waits for its debugger to go before it exits.
      inspector.close();
    },
  });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--inspect-wait=127.0.0.1:0",
      ...(opts.flags ?? runFlags()),
      "main.ts",
      ...(opts.args ? opts.args(server.url) : [
        "--task",
        "benchmark",
        "-m",
        "fake",
        "--base-url",
        server.url,
        "-o",
        `${dir}/traj.json`,
        "--create-cwd",
        "--cwd",
        `${dir}/ws`,
      ]),
    ],
    cwd: REPO,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const seen: string[] = [];
  try {
    const url = await inspectorUrl(child.stderr, seen);
    inspector = await Inspector.connect(url);
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: opts.intervalUs ?? 200 });
    if (startAt === 0) await inspector.send("Profiler.start");
    await inspector.send("Runtime.runIfWaitingForDebugger");
    const status = await child.status;
    if (!status.success) throw new Error(`Cannot profile: claudius exited ${status.code}\n${seen.join("")}`);
  } finally {
    inspector?.close();
    await server.close();
  }
  if (!profile) throw new Error("Cannot profile: the last request never arrived");
  return profile;
}

/** Self time (ms) per node, from the samples and their time deltas. */
export function selfTimes(profile: CpuProfile): Map<ProfileNode, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<ProfileNode, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    // A sample's delta is the time since the previous one: attribute it to this sample.
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    if (node) out.set(node, (out.get(node) ?? 0) + dt);
  }
  return out;
}

/**
 * Self time rolled up into categories: each node is put in the category of its nearest ancestor (or
 * itself) whose frame `categorise` names; the rest under "other".
 */
export function categorised(
  profile: CpuProfile,
  categorise: (frame: ProfileNode["callFrame"]) => string | undefined,
): Record<string, number> {
  const parent = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const memo = new Map<number, string>();
  const categoryOf = (n: ProfileNode): string => {
    const known = memo.get(n.id);
    if (known !== undefined) return known;
    const own = categorise(n.callFrame);
    const p = parent.get(n.id);
    const c = own ?? (p ? categoryOf(p) : "other");
    memo.set(n.id, c);
    return c;
  };
  const out: Record<string, number> = {};
  for (const [node, ms] of selfTimes(profile)) {
    const c = categoryOf(node);
    out[c] = (out[c] ?? 0) + ms;
  }
  return out;
}
