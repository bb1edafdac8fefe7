/**
 * Walking a directory tree for files by name; telling whether two names are one file (an output
 * must never be the trajectory it is made from); replacing a file whole (the one atomic write:
 * a temporary file beside it, renamed over it, removed when anything fails); writing a tool's output
 * file.
 *
 * @module
 */
import { UsageError } from "./flags.ts";

/**
 * Every file under `dir` whose path `accept` takes, unsorted. Symbolic links to directories are not
 * followed; hidden directories and `node_modules` are skipped.
 */
export async function findFiles(dir: string, accept: (path: string) => boolean): Promise<string[]> {
  const found: string[] = [];
  const walk = async (d: string) => {
    const subdirs: string[] = [];
    for await (const entry of Deno.readDir(d)) {
      const path = `${d}/${entry.name}`;
      if (entry.isDirectory) {
        if (!entry.name.startsWith(".") && entry.name !== "node_modules") subdirs.push(path);
      } else if ((entry.isFile || entry.isSymlink) && accept(path)) found.push(path);
    }
    for (const sub of subdirs) await walk(sub);
  };
  await walk(dir.replace(/\/+$/, "") || "/");
  return found;
}

/** True when both paths name one existing file (links, `./` and relative paths included). */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([a, b].map((p) => Deno.stat(p).catch(() => undefined)));
  return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino;
}

/** A temporary name beside `path`, unique to this process and call: `<path>.tmp-<pid>-<8 hex>`. */
export function tempNameBeside(path: string): string {
  return `${path}.tmp-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * Replace `path` whole: write a temporary file beside it, then rename it over `path`, so a reader
 * finds the old content or the new one, never a part. When the write or the rename fails (a full
 * disk, a read-only directory) the temporary file is removed and the error rethrown: no
 * `<path>.tmp-*` is left behind (but by a process killed between the two steps).
 *
 * @example
 * ```ts ignore
 * import { writeFileAtomic } from "./files.ts";
 * await writeFileAtomic("out/preds.json", JSON.stringify({}));
 * ```
 * @param path the file to replace (its directory must exist)
 * @param data text (written as UTF-8) or bytes
 * @param options `mode` of a new file
 * @throws {Error} the write's or the rename's error
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  const tmp = tempNameBeside(path);
  const opts = options.mode === undefined ? {} : { mode: options.mode };
  try {
    if (typeof data === "string") await Deno.writeTextFile(tmp, data, opts);
    else await Deno.writeFile(tmp, data, opts);
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/** {@link writeFileAtomic}, synchronously (for callers that cannot wait, e.g. a line editor's history). */
export function writeFileAtomicSync(path: string, data: string, options: { mode?: number } = {}): void {
  const tmp = tempNameBeside(path);
  try {
    Deno.writeTextFileSync(tmp, data, options.mode === undefined ? {} : { mode: options.mode });
    Deno.renameSync(tmp, path);
  } catch (e) {
    try {
      Deno.removeSync(tmp);
    } catch { /* never created */ }
    throw e;
  }
}

/**
 * Write a tool's output (`-o`): `-` is standard output; a device or pipe (`/dev/stdout`) is written
 * as it is; a file is replaced whole (written beside it, then renamed over it), a symbolic link
 * through to its target (the link stays).
 *
 * @param path where to write
 * @param text what to write
 * @param stdout writes to standard output
 * @throws {UsageError} when `path` is a directory
 * @throws {Error} `Cannot write <path>: <why>` when the file cannot be written
 */
export async function writeOutput(path: string, text: string, stdout: (text: string) => void): Promise<void> {
  if (path === "-") return stdout(text);
  const info = await Deno.stat(path).catch(() => undefined);
  if (info?.isDirectory) throw new UsageError(`Cannot write ${path}: it is a directory; give a file path`);
  try {
    if (info && !info.isFile) return await Deno.writeTextFile(path, text);
    await writeFileAtomic(info ? await Deno.realPath(path) : path, text);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? "no such directory"
      : e instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : e instanceof Error
      ? e.message
      : String(e);
    throw new Error(`Cannot write ${path}: ${why}`, { cause: e });
  }
}
