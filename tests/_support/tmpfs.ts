/**
 * A small tmpfs for full-disk tests (mounting needs root: tests using it are ignored otherwise,
 * unless CI is set, where they must run).
 */
import { assert } from "./assert.ts";
import { NO_ROOT } from "./root.ts";

/** True when a tmpfs cannot be mounted here (not root) and CI does not demand it. */
export const NO_TMPFS: boolean = NO_ROOT;

/**
 * Run `fn` with a fresh tmpfs of `size` (mount's syntax, e.g. `64k`) mounted on a new directory,
 * unmounted afterwards whatever happens.
 */
export async function withTmpfs<T>(size: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "claudius-tmpfs-" });
  const m = await new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir] })
    .output();
  assert(m.success, new TextDecoder().decode(m.stderr));
  try {
    return await fn(dir);
  } finally {
    await new Deno.Command("umount", { args: [dir] }).output();
    await Deno.remove(dir).catch(() => {});
  }
}
