/**
 * Killing process groups: a command's own group when it times out or is aborted, and whatever its
 * background processes left (`server &`) when the run ends.
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
  const script = `mark="$1"; shift; groups="$*"\n${all.length ? KILL_SESSIONS : ""}\n${KILL_MARKED}`;
  await new Deno.Command("bash", {
    args: ["-c", script, "bash", mark ?? "", ...all.map(String)],
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
 */
export const KILL_SESSIONS = String.raw`set -f; set -- $groups; set +f
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
for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done`;

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
