/**
 * What removes a run's container (or sandbox) when claudius cannot: one small bash per environment,
 * in a session of its own and deaf to the terminal's signals, started before the container is asked
 * for. {@link LeftoverGuard.done} lets it go. Its stdin closing without `done` (claudius was killed,
 * or {@link LeftoverGuard.release}: the engine did not confirm a removal, or may still create a
 * container it was asked for) makes it run the cleanup: again every 2 s, each try bounded by what is
 * left of {@link GUARD_SECONDS}, until one confirms (prints something and exits 0: `docker rm -f`
 * names what it removed; a missing container is an error for docker and silence for podman). Before
 * the cleanup it kills the process groups it was told of ({@link LeftoverGuard.addGroup}: a sandbox's
 * build and commands, which would otherwise go on writing into what it removes).
 *
 * @module
 */
import { KILL_SESSIONS } from "../../../lib/process_groups.ts";

/** How long a released guard keeps trying (a frozen engine may create the container when it thaws). */
export const GUARD_SECONDS = 1800;

const GUARD = String.raw`trap '' INT TERM HUP QUIT
secs=$1; shift
cleanup=("$@")
groups=
while read -r line; do
  case "$line" in done) exit 0 ;; "g "*) groups="$groups ${"${line#g }"}" ;; esac
done
${KILL_SESSIONS}
end=$(( $(date +%s) + secs ))
while :; do
  left=$(( end - $(date +%s) ))
  [ "$left" -gt 0 ] || exit 1
  out=$(timeout "$left" "${"${cleanup[@]}"}" 2>/dev/null) && [ -n "$out" ] && exit 0
  sleep 2
done`;

const encoder = new TextEncoder();

/** Runs `argv` once claudius is gone or has given up on removing what it names. */
export class LeftoverGuard {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #settled = false;

  /**
   * @param argv the cleanup (e.g. `docker rm -f <name>`)
   * @param env the cleanup's whole environment (undefined: claudius's)
   * @param seconds how long a released guard keeps trying
   */
  constructor(argv: string[], env?: Record<string, string>, seconds = GUARD_SECONDS) {
    try {
      const child = new Deno.Command("setsid", {
        args: ["bash", "-c", GUARD, "claudius-guard", String(seconds), ...argv],
        ...(env ? { env, clearEnv: true } : {}),
        stdin: "piped",
        stdout: "null",
        stderr: "null",
      }).spawn();
      child.unref();
      // The guard is waited for by nobody: its status must not hold the process open.
      child.status.catch(() => {});
      this.#writer = child.stdin.getWriter();
    } catch {
      // No setsid or bash: close() of a living claudius still cleans up; a killed one leaves it to reap.
      this.#writer = undefined;
    }
  }

  /** True when the guard process was started (false: no setsid or bash here). */
  get started(): boolean {
    return this.#writer !== undefined;
  }

  /** Kill process group `pgid` (and the groups of its session) before the cleanup, should it run. */
  addGroup(pgid: number): void {
    if (this.#settled) return;
    this.#writer?.write(encoder.encode(`g ${pgid}\n`)).catch(() => {});
  }

  /** The cleanup happened (or is not needed): the guard exits without running it. */
  done(): Promise<void> {
    return this.#settle("done\n");
  }

  /** Leave the cleanup to the guard, which goes on after claudius exits. */
  release(): Promise<void> {
    return this.#settle("");
  }

  async #settle(word: string): Promise<void> {
    if (this.#settled || this.#writer === undefined) return;
    this.#settled = true;
    if (word) await this.#writer.write(encoder.encode(word)).catch(() => {});
    await this.#writer.close().catch(() => {});
  }
}
