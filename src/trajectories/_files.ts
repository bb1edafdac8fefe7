/**
 * Walking a directory tree for files by name; telling whether two names are one file (an output
 * must never be the trajectory it is made from).
 *
 * @module
 */

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
