/**
 * The uname of wherever commands run, probed with one shell call so the local and the docker
 * environments share it (templates see the container's uname, not the host's).
 *
 * @module
 */

/** The five fields of Python's `platform.uname()` (that is, `os.uname()`). */
export interface Uname {
  /** `uname -s`, e.g. `Linux`. */
  system: string;
  /** `uname -n`, the host name. */
  node: string;
  /** `uname -r`, the kernel release. */
  release: string;
  /** `uname -v`, the kernel version string. */
  version: string;
  /** `uname -m`, e.g. `x86_64`. */
  machine: string;
}

/** The script {@link probeUname} runs: the five fields on five lines. */
export const UNAME_SCRIPT = "uname -s; uname -n; uname -r; uname -v; uname -m";

/**
 * Probe the uname by running {@link UNAME_SCRIPT} through `run`.
 *
 * @example
 * ```ts
 * const uname = await probeUname(async (script) => {
 *   const out = await new Deno.Command("sh", { args: ["-c", script] }).output();
 *   return new TextDecoder().decode(out.stdout);
 * });
 * // uname.system === "Linux"
 * ```
 * @param run runs a shell script where commands run and resolves with its stdout
 * @returns the five fields
 * @throws {Error} the script did not print five lines (e.g. `uname` is missing)
 */
export async function probeUname(run: (script: string) => Promise<string>): Promise<Uname> {
  const out = await run(UNAME_SCRIPT);
  const lines = out.replace(/\n$/, "").split("\n");
  const [system, node, release, version, machine] = lines;
  if (lines.length !== 5 || machine === undefined || system === undefined || node === undefined) {
    throw new Error(`Cannot probe uname: expected 5 lines, got ${JSON.stringify(out.slice(0, 200))}`);
  }
  return { system, node, release: release ?? "", version: version ?? "", machine };
}
