/**
 * What cleans up after a claudius that was killed itself (SIGKILL, the OOM killer, a crash of the
 * runtime), when no cleanup of its own can run: one small bash, in a session of its own and deaf to
 * the terminal's signals, is told each process group as it starts and each file to remove. When
 * its stdin closes without the word `done` (its claudius is gone: the kernel closed the pipe) it
 * kills those groups and the groups job control made in their sessions, then removes the files. A
 * normal close says `done` first, after the owner cleaned up itself.
 *
 * @module
 */
import { KILL_MARKED, KILL_SESSIONS } from "./process_groups.ts";

/** The guard's script; `$1` is the grace in seconds between SIGTERM and SIGKILL (0: SIGKILL at once). */
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
if [ -n "$groups" ]; then
  if [ "$1" != 0 ]; then
    for g in $groups; do kill -TERM -- "-$g" 2>/dev/null; done
    for _ in $(seq $(($1 * 10))); do
      alive=
      for g in $groups; do kill -0 -- "-$g" 2>/dev/null && alive=1; done
      [ -z "$alive" ] && break
      sleep 0.1
    done
  fi
  ${KILL_SESSIONS}
fi
${KILL_MARKED}
for f in "${"${files[@]}"}"; do rm -f -- "$f"; done
exit 0`;

const encoder = new TextEncoder();

/**
 * Kills the registered process groups (and removes the registered files) if its owner dies without
 * closing it.
 *
 * @example
 * ```ts ignore
 * import { OrphanGuard } from "./orphan_guard.ts";
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
