/**
 * An instance's rescue files: where its run went on when the model made the trajectory's path
 * unwritable (a pipe or a directory put in its place, the instance directory made read-only or
 * immutable). `<stem>.rescued-<pid>-<time>.traj.json`, beside the path or in the output directory's
 * `.rescued/`. The batch records the instance from the rescue and puts it back at its path when it can;
 * a rerun reads whichever is newest, so the instance is neither paid for again nor counted twice.
 *
 * @module
 */
import { writeFileAtomic } from "../lib/files.ts";

/** The directory a batch's rescue files go to when none can be made beside the trajectory. */
export function rescueDir(base: string): string {
  const instanceDir = base.slice(0, base.lastIndexOf("/"));
  return `${instanceDir.slice(0, instanceDir.lastIndexOf("/"))}/.rescued`;
}

/** The rescue files of the trajectory `base` (`<out>/<id>/<id>.traj.json`), newest first. */
export async function rescuesOf(base: string): Promise<string[]> {
  const dir = base.slice(0, base.lastIndexOf("/"));
  const prefix = `${base.slice(dir.length + 1).replace(/\.traj\.json$/, "")}.rescued-`;
  const found: { path: string; mtime: number }[] = [];
  for (const d of [dir, rescueDir(base)]) {
    try {
      for await (const e of Deno.readDir(d)) {
        if (!e.isFile || !e.name.startsWith(prefix) || !e.name.endsWith(".traj.json")) continue;
        const mtime = (await Deno.stat(`${d}/${e.name}`).catch(() => undefined))?.mtime?.getTime() ?? 0;
        found.push({ path: `${d}/${e.name}`, mtime });
      }
    } catch {
      // No such directory.
    }
  }
  return found.sort((a, b) => b.mtime - a.mtime).map((f) => f.path);
}

/**
 * Put a rescued trajectory back at its path (what stands there in its place, an empty directory or a
 * pipe, removed first), then remove the rescue file.
 * @throws {Error} when the path cannot be written (a directory with files in it, an immutable directory)
 */
export async function bringHome(rescue: string, path: string): Promise<void> {
  const there = await Deno.lstat(path).catch(() => undefined);
  if (there && !there.isFile) await Deno.remove(path);
  await writeFileAtomic(path, await Deno.readFile(rescue));
  await Deno.remove(rescue);
}
