/**
 * What an environment's end kills (src/lib/process_groups.ts), on this host's real processes: the groups
 * job control made in a command's session after the command's own shell exited, processes that moved to a
 * session of their own but carry the run's mark, the same without grep on PATH, and nothing whose command
 * name only looks like the fields it looks for.
 */
import { assert, assertEquals } from "../_support/assert.ts";
import { NO_ROOT } from "../_support/root.ts";
import { KILL_SESSIONS, killLeftovers, RUN_MARK_VARIABLE } from "../../src/lib/process_groups.ts";

const decoder = new TextDecoder();

/** Start `script` as the leader of a new session; its first output line, once written. */
async function leader(script: string, env: Record<string, string> = {}) {
  const child = new Deno.Command("setsid", {
    args: ["bash", "-c", script],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return { child, line: text.trim() };
}

/** The first line of a /proc file, read through bash (Deno reads /proc/PID only with --allow-all). */
async function procLine(path: string): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: ["-c", 'IFS= read -r s 2>/dev/null < "$1" && printf %s "$s"', "bash", path],
    stderr: "null",
  }).output();
  return decoder.decode(out.stdout);
}

/** Whether `pid` is alive (and not a zombie). */
async function alive(pid: number): Promise<boolean> {
  const stat = await procLine(`/proc/${pid}/stat`);
  const state = stat.slice(stat.lastIndexOf(") ") + 2).split(" ")[0];
  return stat !== "" && state !== "Z";
}

/** Wait up to a second for `pid` to be gone. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    if (!(await alive(pid))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

function kill(pid: number): void {
  try {
    Deno.kill(pid, "SIGKILL");
  } catch { /* gone */ }
}

// A command's shell (the session leader) starts a job in a group of its own and exits: only the scan of
// the session finds the job. The session's id is the leader's pid.
const LEFT_JOB = "set -m; sleep 300 & echo $$ $!; wait";

Deno.test("killLeftovers() kills a group job control made in a command's session after its shell is gone", async () => {
  const { child, line } = await leader(LEFT_JOB);
  const [session, job] = line.split(" ").map(Number) as [number, number];
  try {
    kill(session); // the command's shell returns; its job lives on in the session
    await child.status;
    assert(await alive(job), "the job outlives its shell");
    await killLeftovers([session]);
    assert(await gone(job), "the job is killed");
  } finally {
    kill(job);
  }
});

Deno.test("killLeftovers() kills a marked process that made a session of its own", async () => {
  const mark = `${RUN_MARK_VARIABLE}=test-${crypto.randomUUID()}`;
  const [name, value] = mark.split("=") as [string, string];
  // Not a group leader, the background setsid makes its session at once and becomes sleep: $! is sleep's pid.
  const { child, line } = await leader("setsid sleep 300 & echo $!", {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    [name]: value,
  });
  const escaped = Number(line);
  try {
    await child.status;
    assert(escaped > 0 && await alive(escaped), `the escaped process runs (${line})`);
    await killLeftovers([], mark);
    assert(await gone(escaped), "the marked process is killed");
  } finally {
    kill(escaped);
  }
});

// Without grep the scan reads every process's line: run it in a PID namespace of its own, where every
// process is the test's, so that a scan that killed too much could only kill those.
const WITHOUT_GREP = String.raw`out=$(mktemp); trap 'rm -f "$out"' EXIT
setsid bash -c 'set -m; sleep 300 & echo $$ $! > "$1"; wait' bash "$out" &
while [ ! -s "$out" ]; do sleep 0.01; done
read -r session job < "$out"
{ kill -KILL "$session"; wait; } 2>/dev/null
groups=$session; path=$PATH; PATH=/nonexistent
{ SCAN; } 2> "$out"
PATH=$path
[ -s "$out" ] && { cat "$out" >&2; exit 2; }
for _ in $(seq 20); do
  read -r s 2>/dev/null < "/proc/$job/stat" || { echo killed; exit 0; }
  case "${"${s##*) }"}" in Z*) echo killed; exit 0;; esac
  sleep 0.05
done
echo alive`;

Deno.test({
  name: "the session scan without grep on PATH reads every line, and kills the same",
  ignore: NO_ROOT, // a PID namespace needs root
  fn: async () => {
    const out = await new Deno.Command("unshare", {
      args: [
        "--pid",
        "--fork",
        "--mount-proc",
        "bash",
        "-c",
        WITHOUT_GREP.replace("SCAN", () => KILL_SESSIONS),
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(decoder.decode(out.stderr), "", "the scan ran without a missing command or an error");
    assertEquals(decoder.decode(out.stdout).trim(), "killed");
  },
});

Deno.test("the session scan leaves a process whose command name looks like the session's fields", async () => {
  const { child, line } = await leader(LEFT_JOB);
  const [session, job] = line.split(" ").map(Number) as [number, number];
  // Another session's shell names itself ") S 1 1 <session> ": grep keeps its line, the fields say otherwise.
  const decoy = await leader(
    `printf ') S 1 1 %s ' ${session} > /proc/self/comm; echo $$; while :; do sleep 1; done`,
  );
  const decoyPid = Number(decoy.line);
  try {
    kill(session);
    await child.status;
    // The name is whole (15 bytes at most: sessions up to 6 digits), so grep keeps the decoy's line.
    assertEquals(await procLine(`/proc/${decoyPid}/comm`), `) S 1 1 ${session} `);
    await killLeftovers([session]);
    assert(await gone(job), "the job is killed");
    assert(await alive(decoyPid), "the decoy lives");
  } finally {
    kill(job);
    kill(-decoyPid);
  }
});
