/**
 * The process runner every environment shares: one argv, stdin closed, stdout and stderr merged in
 * order, its own process group, a timeout and an abort signal that kill the whole group, and a
 * bounded capture of the output decoded like Python's text mode.
 *
 * @module
 */
import { after } from "./timers.ts";
import { killGroup } from "./process_groups.ts";
import { BoundedCapture, type CaptureResult, codePointLength } from "./capture.ts";

/** Default cap on characters (code points) of output kept in memory: 2 Mi (1 Mi head, 1 Mi tail). */
export const CAPTURE_CAP: number = 2 * 1024 * 1024;

/** Bytes read from the pipe at a time. */
const READ_CHUNK = 64 * 1024;
/** After a kill, how long to wait for the pipe to close (a process that left the group may hold it). */
const DRAIN_MS = 1500;
/** How long `onKill` may take before the local group is killed anyway. */
const ON_KILL_MS = 5000;

/**
 * The wrapper merges stderr into stdout at the OS level, then execs argv, so the command is the
 * wrapper's own process (group leader) and its script text is untouched. If the exec itself fails
 * (program missing or not executable) bash's message lands in stdout and the wrapper writes the
 * status to its original stderr, which tells a spawn failure apart from a command exiting 127.
 */
const WRAPPER = 'shopt -s execfail; { exec "$@"; } 2>&1; echo "$?" >&2; exit 127';

/** What the shell fast path puts before the command, on the command's own first line. */
const MERGE_PREFIX = "exec 2>&1; ";

/** The last three arguments when they run a shell command (`... bash|sh -c|-lc COMMAND`). */
function shellTail(argv: readonly string[]): { shell: string; flag: string; command: string } | undefined {
  const [shell, flag, command] = argv.slice(-3);
  if (shell === undefined || flag === undefined || command === undefined) return undefined;
  return /(^|\/)(ba)?sh$/.test(shell) && /^-[a-z]*c$/.test(flag) ? { shell, flag, command } : undefined;
}

/**
 * Fast path for `[bash|sh, -c/-lc, command]`: the shell itself merges stderr into stdout before the
 * command (on the same line, so line numbers in its messages do not move), which saves the
 * wrapper's extra exec (~1.2 ms a command). What the shell prints before that (a syntax error on
 * line 1, login-profile noise) goes to stderr and is put in front of the output afterwards.
 */
function shellFastPath(argv: string[], prefix: string): string[] | undefined {
  const tail = argv.length === 3 ? shellTail(argv) : undefined;
  return tail && [tail.shell, tail.flag, MERGE_PREFIX + prefix + tail.command];
}

/**
 * Longest command passed as an argument, in UTF-8 bytes. The kernel refuses a single argument over
 * 128 KiB (`MAX_ARG_STRLEN`); longer commands (a big heredoc) go through stdin instead.
 */
const ARGV_COMMAND_MAX = 100 * 1024;

/** Run by the shell in place of a long command: read it from stdin, run it with stdin closed. */
const FROM_STDIN = 'eval "$(cat)" </dev/null';

/**
 * True when `command` is too long to be an argument: {@link runCommand} then sends it through stdin
 * (the caller of a `docker exec` must keep stdin open with `-i`).
 */
export function commandViaStdin(command: string): boolean {
  return command.length > ARGV_COMMAND_MAX / 3 && new TextEncoder().encode(command).length > ARGV_COMMAND_MAX;
}

/** Python text mode's newline translation, for the few characters read from stderr. */
const textMode = (s: string) => s.replace(/\r\n?/g, "\n");

/** How {@link runCommand} runs one command. */
export interface RunOptions {
  /** Working directory; undefined = the current one. */
  cwd?: string;
  /** The child's whole environment (the caller merges). Undefined = inherit. */
  env?: Record<string, string>;
  /** Seconds; 0 = no timeout. */
  timeoutSeconds: number;
  /** Aborting kills the process group and resolves with the partial output (aborted: true). */
  signal?: AbortSignal;
  /** Cap on characters kept in memory (default {@link CAPTURE_CAP}). */
  maxChars?: number;
  /**
   * Shell code run before a `[bash|sh, -c, command]` command on its first line and, like the stderr
   * merge, hidden from the shell's own messages (e.g. `export BASH_ENV=...; `). Default none.
   */
  shellPrefix?: string;
  /**
   * Called once on timeout/abort, before the local group is killed (waited for at most 5 s); docker
   * uses it to kill the command inside the container. Its errors are ignored.
   */
  onKill?: () => Promise<void>;
  /** Called with the command's process group id as soon as it runs (to end stragglers later). */
  onGroup?: (pgid: number) => void;
}

/** What one command produced. */
export interface RunResult {
  /**
   * Merged stdout+stderr in order, decoded like Python text mode, bounded: past the cap it is
   * head + `\n[claudius: N characters elided]\n` + tail.
   */
  output: string;
  /** Exit code, or null when killed by a signal / timeout / abort. */
  exitCode: number | null;
  /** Number of the signal that ended the process when it was not our kill (e.g. 15), else null. */
  signal: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** True length in code points of the whole output, even when truncated. */
  totalChars: number;
  truncated: boolean;
}

/**
 * Run argv with stdin closed, stdout+stderr merged in order, in a new process group. Never throws
 * for command failures: a non-zero exit, a timeout or an abort are results.
 *
 * As Python's `communicate()`, it waits for the process to exit AND for the pipe to close, so a
 * background child that keeps the pipe open holds the call until the timeout. On timeout or
 * abort the group gets SIGKILL, the pipe is drained for at most 1.5 s, then reading stops.
 *
 * @example
 * ```ts
 * const r = await runCommand(["bash", "-c", "echo hi >&2; exit 3"], { timeoutSeconds: 10 });
 * // r.output === "hi\n", r.exitCode === 3
 * ```
 * @param argv program and arguments (looked up in PATH)
 * @param opts cwd, environment, timeout, signal, output cap, kill hook
 * @returns the bounded output and how the process ended
 * @throws {Deno.errors.NotFound} the working directory or the program does not exist
 * @throws {Deno.errors.PermissionDenied} the program cannot be executed
 */
export async function runCommand(argv: string[], opts: RunOptions): Promise<RunResult> {
  if (argv.length === 0) throw new TypeError("Cannot run command: argv is empty");
  // A command too long for an argument, run by a shell (`... sh|bash -c|-lc COMMAND`): via stdin.
  const tail = shellTail(argv);
  const stdinText = tail && commandViaStdin(tail.command) ? tail.command : undefined;
  if (stdinText !== undefined) argv = [...argv.slice(0, -1), FROM_STDIN];
  const prefix = opts.shellPrefix ?? "";
  const fast = shellFastPath(argv, prefix);
  const [program = "bash", ...args] = fast ?? ["bash", "-c", WRAPPER, "claudius", ...argv];
  const child = spawnCommand(
    program,
    {
      args,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.env ? { env: opts.env, clearEnv: true } : {}),
      stdin: stdinText !== undefined ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    },
    argv,
    opts.cwd,
  );
  opts.onGroup?.(child.pid);
  if (stdinText !== undefined) {
    const writer = child.stdin.getWriter();
    // A shell that dies before reading all of it closes the pipe: its exit status says why.
    writer.write(new TextEncoder().encode(stdinText)).then(() => writer.close()).catch(() => {});
  }
  const capture = new BoundedCapture(opts.maxChars ?? CAPTURE_CAP);
  // A BYOB reader filling one reused buffer: a flood then allocates nothing per read (the default
  // reader hands out a fresh 64 KiB array per chunk, garbage that peaks at tens of MiB per GB).
  const reader = child.stdout.getReader({ mode: "byob" });
  const pump = pumpInto(reader, capture);
  const wrapperErr = new Response(child.stderr).text();
  const kill = new GroupKill(child.pid, opts);
  try {
    await Promise.race([Promise.all([pump, child.status]).then(() => kill.finished()), kill.started]);
    if (kill.reason !== null) {
      await kill.done;
      await withDeadline(pump, DRAIN_MS);
      await reader.cancel().catch(() => {});
      await pump;
    }
    const status = await child.status;
    const err = await withDeadline(wrapperErr, DRAIN_MS);
    const shell = fast ? { program, prefix } : undefined;
    return ending(capture.finish(), status, kill.reason, typeof err === "string" ? err : "", shell);
  } finally {
    kill.dispose();
  }
}

/**
 * Spawn the command's group leader, its failures said in the caller's terms (a missing working
 * directory, arguments too long for the system).
 */
function spawnCommand(
  program: string,
  options: Deno.CommandOptions,
  argv: string[],
  cwd: string | undefined,
): Deno.ChildProcess {
  try {
    return spawnGroupLeader(program, options);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound && cwd && /cwd/.test(e.message)) {
      throw new Deno.errors.NotFound(`Cannot run command: no such working directory '${cwd}'`, { cause: e });
    }
    if (/os error 7\b/.test(String(e))) {
      const bytes = argv.reduce((n, a) => n + new TextEncoder().encode(a).length + 1, 0);
      throw new RangeError(
        `Cannot run command: its arguments (${bytes} bytes) are too long for the system; ` +
          `run long commands through a shell interpreter (bash -c), which takes them on stdin`,
        { cause: e },
      );
    }
    throw e;
  }
}

/** Read the pipe into the capture until it closes (or breaks, or is cancelled after a kill). */
async function pumpInto(reader: ReadableStreamBYOBReader, capture: BoundedCapture): Promise<void> {
  try {
    let buffer = new ArrayBuffer(READ_CHUNK);
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (done || value === undefined) return;
      capture.push(value);
      buffer = value.buffer;
    }
  } catch {
    // Cancelled after a kill, or the pipe broke: keep what was read.
  }
}

/** The timeout and the abort signal of one command: the first to come kills its group, once. */
class GroupKill {
  /** What killed it, or null. */
  reason: "timeout" | "abort" | null = null;
  /** Settles when the kill (`onKill`, then SIGKILL to the group) is done. */
  done: Promise<void> = Promise.resolve();
  /** Settles when a kill starts. */
  readonly started: Promise<void>;
  readonly #pid: number;
  readonly #opts: RunOptions;
  #finished = false;
  #wake = () => {};
  readonly #onAbort = () => this.#kill("abort");
  readonly #cancelTimeout: (() => void) | undefined;

  constructor(pid: number, opts: RunOptions) {
    this.#pid = pid;
    this.#opts = opts;
    this.started = new Promise<void>((resolve) => (this.#wake = resolve));
    this.#cancelTimeout = opts.timeoutSeconds > 0
      ? after(opts.timeoutSeconds * 1000, () => this.#kill("timeout"))
      : undefined;
    if (opts.signal?.aborted) this.#kill("abort");
    else opts.signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** The process exited and its pipe closed: nothing is killed from now on. */
  finished(): void {
    this.#finished = true;
  }

  /** Stop the timer and stop listening to the signal. */
  dispose(): void {
    this.#cancelTimeout?.();
    this.#opts.signal?.removeEventListener("abort", this.#onAbort);
  }

  #kill(why: "timeout" | "abort"): void {
    if (this.reason !== null || this.#finished) return;
    this.reason = why;
    const onKill = this.#opts.onKill;
    this.done = (async () => {
      if (onKill) await withDeadline(onKill().catch(() => {}), ON_KILL_MS);
      await killGroup(this.#pid);
    })();
    this.#wake();
  }
}

/**
 * The result from what was read and how the process ended. On the fast path what the shell wrote to
 * stderr before the merge goes in front of the output; a spawn failure reported by `setsid` or by
 * the wrapper is thrown as the OS error it stands for.
 */
function ending(
  captured: CaptureResult,
  status: Deno.CommandStatus,
  reason: "timeout" | "abort" | null,
  err: string,
  fast: { program: string; prefix: string } | undefined,
): RunResult {
  let { text, totalChars } = captured;
  if (fast && err !== "") {
    const failed = /^setsid: failed to execute \S+: (.*)/.exec(err);
    if (failed && status.code === 1 && reason === null) {
      const why = failed[1] ?? "";
      const message = `Cannot run command: ${fast.program}: ${why.trim()}`;
      throw /denied/i.test(why)
        ? new Deno.errors.PermissionDenied(message)
        : new Deno.errors.NotFound(message);
    }
    const before = textMode(err).replaceAll("`" + MERGE_PREFIX + fast.prefix, "`");
    text = before + text;
    totalChars += codePointLength(before);
  } else if (err.trim() !== "" && status.code === 127 && reason === null) {
    throw spawnError(text, err.trim());
  }
  const killed = reason !== null;
  return {
    output: text,
    exitCode: killed || status.signal !== null ? null : status.code,
    signal: !killed && status.signal !== null ? status.code - 128 : null,
    timedOut: reason === "timeout",
    aborted: reason === "abort",
    totalChars,
    truncated: captured.truncated,
  };
}

/** Whether the `setsid` program exists here (learnt on the first spawn). */
let setsidWorks = true;

/**
 * Spawn `program` (the bash wrapper, or a shell on the fast path) as the leader of a new session (so of a new process group whose id is its
 * pid). Through the `setsid` program when it exists: Deno's own `detached: true` forks the whole
 * process, which costs about 1 ms per 20 MB of heap (10 ms at 200 MB, growing over a run),
 * while a plain spawn stays at ~0.3 ms. Falls back to `detached` where `setsid` is missing.
 */
function spawnGroupLeader(program: string, options: Deno.CommandOptions): Deno.ChildProcess {
  if (setsidWorks) {
    try {
      return new Deno.Command("setsid", { ...options, args: [program, ...options.args ?? []] }).spawn();
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound) || /cwd/.test(String(e))) throw e;
      setsidWorks = false;
    }
  }
  return new Deno.Command(program, { ...options, detached: true }).spawn();
}

/** Resolve with `p`'s value, or with undefined after `ms`. */
async function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let cancel = () => {};
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (cancel = after(ms, () => r(undefined))))]);
  } finally {
    cancel();
  }
}

/** Turn the wrapper's report of a failed exec into the OS-style error the callers map. */
function spawnError(output: string, status: string): Error {
  const line = output.trimEnd().split("\n").at(-1) ?? "";
  const message = `Cannot run command: ${line.replace(/^claudius: line \d+: (exec: )?/, "")}`;
  return status === "126" ? new Deno.errors.PermissionDenied(message) : new Deno.errors.NotFound(message);
}
