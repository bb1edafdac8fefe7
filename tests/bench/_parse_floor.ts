/**
 * The floor of reading trajectories: read and `JSON.parse` every `*.traj.json` under a directory,
 * nothing else (run as its own Deno process by the benchmark, like claudius).
 * Usage: deno run --allow-read tests/bench/_parse_floor.ts DIR
 *
 * @module
 */
async function walk(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) n += await walk(path);
    else if (e.name.endsWith(".traj.json")) n += JSON.parse(await Deno.readTextFile(path)).messages.length;
  }
  return n;
}
console.log(await walk(Deno.args[0]!));
