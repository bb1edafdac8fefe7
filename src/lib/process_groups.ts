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
 * SIGKILL whatever is left of the given process groups (background processes of commands that have
 * returned: `server &`, `nohup job &`); groups already gone are skipped. Each group's leader also
 * leads a session (it is spawned by `setsid`), so the groups job control (`set -m`) made inside it go
 * too. A process that made a session of its own (`setsid`) is out of reach, as under upstream.
 */
export async function killGroups(pgids: Iterable<number>): Promise<void> {
  const all = [...new Set(pgids)];
  if (all.length === 0) return;
  const script = `groups="$*"\n${KILL_SESSIONS}`;
  await new Deno.Command("bash", {
    args: ["-c", script, "bash", ...all.map(String)],
    stdin: "null",
    stderr: "null",
  })
    .output();
}

/** Bash for the fields after `(comm) ` of a /proc stat line in `s` (a literal `${` in the script below). */
const AFTER_COMM = "${s##*) }";

/**
 * Bash that SIGKILLs the process groups listed in `$groups` and every group of a process in their
 * sessions (the groups job control made), found in /proc. A shell, because Deno reads /proc/PID only
 * with --allow-all and signals only with an unscoped --allow-run; /proc, because slim images have no
 * procps.
 */
export const KILL_SESSIONS = String.raw`for f in /proc/[0-9]*/stat; do
  read -r s < "$f" 2>/dev/null || continue
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

/** SIGKILL every process whose environment holds the entry `mark` (see {@link KILL_MARKED}). */
export async function killMarked(mark: string): Promise<void> {
  await new Deno.Command("bash", {
    args: ["-c", `mark="$1"\n${KILL_MARKED}`, "bash", mark],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
}
