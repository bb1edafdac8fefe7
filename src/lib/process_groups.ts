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
