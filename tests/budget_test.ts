/**
 * The control stays within a budget, as `layers_test.ts` holds the layers: the modules a default run
 * (`claudius -t TASK -m openai/MODEL` against a loopback server) loads, every one of them as
 * `deno run --coverage=DIR` lists them, are at most {@link CONTROL_BUDGET} of claudius's own code
 * outside `src/lib/python`, that library's share is at most {@link PYTHON_BUDGET}, and none of them is
 * in an `extra/` folder (what a default run does not execute lives there). Lines are counted as `wc -l`
 * counts them.
 */
import { assert, assertEquals } from "./_support/assert.ts";
import { CONTROL_BUDGET, defaultRunLoads, PYTHON_BUDGET } from "./_support/default_run.ts";

/** Files and lines of the paths `which` keeps, largest first. */
function tally(loaded: Map<string, number>, which: (path: string) => boolean) {
  const files = [...loaded].filter(([path]) => which(path)).sort((a, b) => b[1] - a[1]);
  return { files: files.length, lines: files.reduce((n, [, lines]) => n + lines, 0), list: files };
}

const loaded = await defaultRunLoads();

Deno.test(`a default run loads at most ${CONTROL_BUDGET.files} files and ${CONTROL_BUDGET.lines} lines of claudius's own code outside src/lib/python`, () => {
  const own = tally(loaded, (path) => !path.startsWith("src/lib/python/"));
  const shown = own.list.map(([path, lines]) => `${lines} ${path}`).join("\n");
  assert(own.files <= CONTROL_BUDGET.files, `${own.files} files loaded:\n${shown}`);
  assert(own.lines <= CONTROL_BUDGET.lines, `${own.lines} lines loaded:\n${shown}`);
});

Deno.test("the Python-semantics library's share of a default run does not grow", () => {
  const python = tally(loaded, (path) => path.startsWith("src/lib/python/"));
  assert(python.files <= PYTHON_BUDGET.files, `${python.files} files of src/lib/python loaded`);
  assert(python.lines <= PYTHON_BUDGET.lines, `${python.lines} lines of src/lib/python loaded`);
});

Deno.test("a default run imports no node: module (Node's compatibility layer costs ~20 ms of start-up)", async () => {
  const importers = [];
  for (const path of loaded.keys()) {
    const text = await Deno.readTextFile(new URL(`../${path}`, import.meta.url));
    if (/^import [^;]*from "node:/m.test(text)) importers.push(path);
  }
  assertEquals(importers, []);
});

Deno.test("a default run loads no extra/ module", () => {
  assertEquals([...loaded.keys()].filter((path) => path.includes("/extra/")), []);
});
