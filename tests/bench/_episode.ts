/**
 * One agent run as a subprocess against the in-process loopback fake server, watched through /proc:
 * claudius (`deno run <perms> main.ts ...`, default config) or any program (upstream's driver).
 *
 * @module
 */
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { type FakeServer, type RecordedRequest, startFakeServer } from "../_support/fake_server.ts";
import { runFlags, runWatched, type Sampler, type WatchedRun } from "./_child.ts";

/** The command that ends an episode. */
export const SUBMIT: ScriptReply = { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };

/** Where claudius lives (the repository root). */
export const REPO = new URL("../../", import.meta.url).pathname;

/** What one run left. */
export interface EpisodeRun {
  run: WatchedRun;
  server: FakeServer;
  trajectory: string;
  /** Per-step gaps, ms: response `i` sent -> request `i + 1` received. */
  gaps: number[];
}

/** Options of {@link episode}. */
export interface EpisodeOptions {
  /** Extra CLI arguments (e.g. `--env docker`). */
  args?: string[];
  /** /proc polling period, ms (0 = only at the last request and at the end). */
  pollMs?: number;
  /** The entry module (default `main.ts`, relative to the repository). */
  entry?: string;
  /** The flags between `deno run` and the entry (default: {@link runFlags}). */
  flags?: string[];
  /**
   * The command line that starts claudius, instead of `deno run <flags> <entry>`: the installed
   * `bin/claudius` of {@link installClaudius}, say.
   */
  start?: string[];
  /** Called on each request (after the server recorded it). */
  onRequest?: (index: number, pid: number) => void;
}

/** A program to run against the server: `url` is the server's base URL (with `/v1`). */
export interface Program {
  cmd: string;
  args: (url: string) => string[];
  cwd?: string;
  env?: Record<string, string>;
}

/** Options of {@link served}. */
export interface ServedOptions {
  /** The script, played in order (one reply per request). */
  replies?: readonly ScriptReply[];
  /** Or a reply chosen per request (its body parsed); the last request is unknown then. */
  reply?: (request: RecordedRequest, index: number) => ScriptReply | undefined;
  pollMs?: number;
  onRequest?: (index: number, pid: number) => void;
}

/**
 * Run `program` against a fresh fake server. With a script, request bodies are dropped unread (the
 * server's own cost stays out of the gaps) and the process is sampled when the last request arrives.
 */
export async function served(program: Program, opts: ServedOptions): Promise<Omit<EpisodeRun, "trajectory">> {
  const replies = opts.replies ?? [];
  let sampler: Sampler | undefined;
  let pid = 0;
  const server = await startFakeServer(replies, {
    model: "fake",
    keepBodies: opts.reply !== undefined,
    ...(opts.reply ? { reply: (request, index) => forget(request, opts.reply!(request, index)) } : {}),
    onRequest: async (_request, index) => {
      // The last request: only the submission and the final save are left; sample before answering.
      if (!opts.reply && index === replies.length - 1) await sampler?.sample();
      opts.onRequest?.(index, pid);
    },
  });
  try {
    const run = await runWatched(program.cmd, program.args(server.url), {
      ...(program.cwd ? { cwd: program.cwd } : {}),
      ...(program.env ? { env: program.env } : {}),
      pollMs: opts.pollMs ?? 0,
      onSampler: (s) => (sampler = s),
      onSpawn: (p) => (pid = p),
    });
    const gaps: number[] = [];
    for (let i = 0; i + 1 < server.requests.length; i++) {
      gaps.push(server.requests[i + 1]!.receivedAt - server.responseSentAt[i]!);
    }
    return { run, server, gaps };
  } finally {
    await server.close();
  }
}

/** `reply`, once the request's body (read to choose it) is dropped: the bench's own heap stays small. */
function forget(request: RecordedRequest, reply: ScriptReply | undefined): ScriptReply | undefined {
  request.body = null;
  request.raw = "";
  return reply;
}

/** claudius's command line for one run in `dir` (trajectory `dir/traj.json`, working dir `dir/ws`). */
export function claudius(
  dir: string,
  opts: Pick<EpisodeOptions, "args" | "entry" | "flags" | "start"> = {},
): Program {
  const [cmd, ...start] = startLine(opts);
  return {
    cmd: cmd!,
    cwd: REPO,
    args: (url) => [
      ...start,
      "--task",
      "benchmark",
      "-m",
      "fake",
      "--base-url",
      url,
      "-o",
      `${dir}/traj.json`,
      "--create-cwd",
      "--cwd",
      `${dir}/ws`,
      ...(opts.args ?? []),
    ],
  };
}

/** The command line that starts claudius (see {@link EpisodeOptions}). */
export function startLine(opts: Pick<EpisodeOptions, "entry" | "flags" | "start">): string[] {
  return opts.start ?? [Deno.execPath(), "run", ...(opts.flags ?? runFlags()), opts.entry ?? "main.ts"];
}

/** claudius as users install it (`deno task install`), into `root`: the paths of its command and bundle. */
export async function installClaudius(root: string): Promise<{ bin: string; bundle: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "install"],
    cwd: REPO,
    env: { CLAUDIUS_INSTALL_ROOT: root },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`Cannot install claudius: ${new TextDecoder().decode(out.stderr)}`);
  return { bin: `${root}/bin/claudius`, bundle: `${root}/lib/claudius/main.js` };
}

/**
 * Play `commands` (one bash tool call per reply) then a submission to claudius; return the server's
 * timings.
 */
export async function episode(
  dir: string,
  commands: readonly string[],
  opts: EpisodeOptions = {},
): Promise<EpisodeRun> {
  const replies: ScriptReply[] = [...commands.map((c) => ({ commands: [c] })), SUBMIT];
  await Deno.mkdir(`${dir}/ws`, { recursive: true });
  const e = await served(claudius(dir, opts), {
    replies,
    pollMs: opts.pollMs ?? 0,
    ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
  });
  return { ...e, trajectory: `${dir}/traj.json` };
}
