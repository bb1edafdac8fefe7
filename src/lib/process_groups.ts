/**
 * Killing process groups: a command's own group when it times out or is aborted, and whatever its
 * background processes left (`server &`): when the run ends ({@link killLeftovers}), and when its
 * claudius was killed itself and no cleanup of its own can run ({@link OrphanGuard}). Both kill in the
 * same order ({@link KILL_LEFTOVERS}).
 *
 * @module
 */

/**
 * SIGKILL the whole process group led by `pid`; a group already gone is fine. Signalling needs an
 * unscoped `--allow-run`; with a scoped one, bash's `kill` builtin does the same.
 */
export async function killGroup(pid: number): Promise<void> {
  try {
    Deno.kill(-pid, "SIGKILL");
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return; // ESRCH: every member already exited.
    await new Deno.Command("bash", { args: ["-c", `kill -KILL -- -${pid}`], stdin: "null", stderr: "null" })
      .output();
  }
}

/**
 * SIGKILL what a run's commands left (background processes of commands that have returned: `server &`,
 * `nohup job &`), in one bash: the given process groups and the groups of their sessions (see
 * {@link KILL_SESSIONS}; each group's leader also leads a session, as it is spawned by `setsid`), then
 * every process whose environment holds the entry `mark` (see {@link KILL_MARKED}), when one is given.
 * Nothing to kill starts nothing. A process that made a session of its own (`setsid`) and dropped the
 * mark is out of reach, as under upstream.
 */
export async function killLeftovers(pgids: Iterable<number>, mark?: string): Promise<void> {
  const all = [...new Set(pgids)];
  if (all.length === 0 && mark === undefined) return;
  // $1 is the mark ("" for none), the rest the groups.
  await new Deno.Command("bash", {
    args: ["-c", `mark="$1"; shift; groups="$*"\n${KILL_LEFTOVERS}`, "bash", mark ?? "", ...all.map(String)],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
}

/** Bash for the fields after `(comm) ` of a /proc stat line in `s` (a literal `${` in the script below). */
const AFTER_COMM = "${s##*) }";

/**
 * Bash that SIGKILLs the process groups listed in `$groups` and every group of a process in their
 * sessions (the groups job control made), found in /proc. A shell, because Deno reads /proc/PID only
 * with --allow-all and signals only with an unscoped --allow-run; /proc, because slim images have no
 * procps. grep first keeps the stat lines that hold one of the sessions where the session field is
 * (a line with no such text cannot be in one; each it keeps is read field by field in bash, so a
 * command name that looks like fields never misleads it): reading every process's line in bash takes
 * ~80 us apiece, ~7 ms of a batch instance's end at 80 processes. Without grep every line is read.
 * Nothing when `$groups` is empty.
 */
export const KILL_SESSIONS = String.raw`if [ -n "$groups" ]; then
set -f; set -- $groups; set +f
IFS='|'; sessions="$*"; unset IFS
if command -v grep >/dev/null 2>&1; then
  stats=$(grep -lsE -- "\) . [0-9]+ [0-9]+ (${"$sessions"}) " /proc/[0-9]*/stat)
else
  stats=$(printf '%s\n' /proc/[0-9]*/stat)
fi
for f in $stats; do
  read -r s 2>/dev/null < "$f" || continue
  set -f; set -- ${AFTER_COMM}; set +f
  case " $groups " in *" $4 "*) kill -KILL -- "-$3" 2>/dev/null;; esac
done
for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done
fi`;

/** The variable every command of one environment carries, `<name>=<that environment's token>`. */
export const RUN_MARK_VARIABLE = "CLAUDIUS_RUN_MARK";

/**
 * Bash that SIGKILLs every process whose environment (as it started: /proc/PID/environ) holds the
 * entry `$mark`, in rounds until none is left (one may fork meanwhile): what the commands of a run
 * started whatever group or session they moved to (`setsid`, a daemon's double fork). Only this
 * user's processes can be read, and a process that dropped the variable (`env -i`) is not found.
 */
export const KILL_MARKED = String.raw`if [ -n "$mark" ]; then
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    found=
    for f in $(grep -lsxzF -- "$mark" /proc/[0-9]*/environ 2>/dev/null); do
      p=${"${f#/proc/}"}; p=${"${p%/environ}"}
      [ "$p" = "$$" ] && continue
      kill -KILL "$p" 2>/dev/null && found=1
    done
    [ -z "$found" ] && break
  done
fi`;

/**
 * Bash that SIGKILLs what a run left: the groups in `$groups` and their sessions' groups, then the
 * processes marked `$mark` (each step only when its variable is set).
 */
const KILL_LEFTOVERS = `${KILL_SESSIONS}\n${KILL_MARKED}`;

/** The script of an {@link OrphanGuard}; `$1` is the grace in seconds between SIGTERM and SIGKILL (0: none). */
const GUARD = String.raw`trap '' INT TERM HUP QUIT
groups= files=() mark=
while IFS= read -r g; do
  case "$g" in
    done) exit 0;;
    rm\ /*) files+=("${"${g#rm }"}");;
    mark\ *) mark=${"${g#mark }"};;
    *) groups="$groups $g";;
  esac
done
if [ -n "$groups" ] && [ "$1" != 0 ]; then
  for g in $groups; do kill -TERM -- "-$g" 2>/dev/null; done
  for _ in $(seq $(($1 * 10))); do
    alive=
    for g in $groups; do kill -0 -- "-$g" 2>/dev/null && alive=1; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
fi
${KILL_LEFTOVERS}
for f in "${"${files[@]}"}"; do rm -f -- "$f"; done
exit 0`;

const encoder = new TextEncoder();

/**
 * What cleans up after a claudius that was killed itself (SIGKILL, the OOM killer, a crash of the
 * runtime), when no cleanup of its own can run: one small bash, in a session of its own and deaf to
 * the terminal's signals, is told each process group as it starts and each file to remove. When
 * its stdin closes without the word `done` (its claudius is gone: the kernel closed the pipe) it
 * kills those groups, the groups job control made in their sessions and the marked processes, as
 * {@link killLeftovers} does, then removes the files. A normal close says `done` first, after the
 * owner cleaned up itself.
 *
 * @example
 * ```ts ignore
 * import { OrphanGuard } from "./process_groups.ts";
 * const guard = new OrphanGuard({ graceSeconds: 2 });
 * guard.add(child.pid); // a detached child: its pid is its process group
 * guard.removeOnDeath("/abs/out.patch.1234-abcd.partial");
 * // ... the child ends, the file is renamed ...
 * await guard.close();
 * ```
 */
export class OrphanGuard {
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #failed = false;
  readonly #grace: number;

  /**
   * @param options `graceSeconds`: SIGTERM the groups first and wait up to this long for them to
   *   end (their traps clean up), then SIGKILL what is left. Default 0: SIGKILL at once.
   */
  constructor(options: { graceSeconds?: number } = {}) {
    this.#grace = Math.max(0, Math.round(options.graceSeconds ?? 0));
  }

  /** Register a process group (the guard starts with the first registration). */
  add(pgid: number): void {
    this.#send(`${pgid}\n`);
  }

  /**
   * Kill, if the owner dies, every process whose environment holds the entry `mark` (what its commands
   * started, whatever session they moved to; see `KILL_MARKED`). One mark per guard; one with a
   * newline is not registered.
   */
  killMarked(mark: string): void {
    if (!mark.includes("\n")) this.#send(`mark ${mark}\n`);
  }

  /**
   * Register a file to remove if the owner dies (an absolute path without a newline; others are
   * not registered).
   */
  removeOnDeath(path: string): void {
    if (path.startsWith("/") && !path.includes("\n")) this.#send(`rm ${path}\n`);
  }

  #send(line: string): void {
    if (this.#failed) return;
    if (this.#writer === undefined) {
      try {
        const child = new Deno.Command("setsid", {
          args: ["bash", "-c", GUARD, "guard", String(this.#grace)],
          stdin: "piped",
          stdout: "null",
          stderr: "null",
        }).spawn();
        child.unref();
        this.#writer = child.stdin.getWriter();
      } catch {
        // No setsid or bash to run it: the groups are still killed by close() of a living claudius.
        this.#failed = true;
        return;
      }
    }
    this.#writer.write(encoder.encode(line)).catch(() => {});
  }

  /** Let the guard go without killing or removing anything (the owner has cleaned up). */
  async close(): Promise<void> {
    const writer = this.#writer;
    this.#writer = undefined;
    if (writer === undefined) return;
    await writer.write(encoder.encode("done\n")).catch(() => {});
    await writer.close().catch(() => {});
  }
}
