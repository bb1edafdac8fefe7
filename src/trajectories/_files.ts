/**
 * Walking a directory tree for files by name.
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
