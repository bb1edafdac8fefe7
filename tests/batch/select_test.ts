/**
 * Instance selection: upstream's shuffle (Python's generator), filter and slice, and shards.
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../_support/assert.ts";
import {
  FILTER_WORKER,
  type Instance,
  parseShard,
  parseSlice,
  selectInstances,
  selectInstancesGuarded,
} from "../../src/batch/select.ts";
import { UsageError } from "../../src/cli/run_flags.ts";
import { programFile } from "../_support/episode.ts";

const make = (n: number): Instance[] =>
  Array.from({ length: n }, (_, k) => ({ instance_id: `i${String(k).padStart(2, "0")}` }));
const ids = (list: Instance[]) => list.map((i) => i.instance_id);

Deno.test("selectInstances() shuffles exactly as Python's random.seed(n); random.shuffle", () => {
  // python3 -c "import random; x=sorted(...); random.seed(42); random.shuffle(x)"
  const reversed = make(20).reverse(); // input order must not matter: upstream sorts by id first
  assertEquals(ids(selectInstances(reversed, { shuffleSeed: 42 })), [
    "i19",
    "i05",
    "i14",
    "i04",
    "i09",
    "i13",
    "i15",
    "i18",
    "i06",
    "i12",
    "i17",
    "i10",
    "i01",
    "i11",
    "i02",
    "i16",
    "i07",
    "i08",
    "i00",
    "i03",
  ]);
  assertEquals(ids(selectInstances(make(20), { shuffleSeed: 7 })), [
    "i17",
    "i15",
    "i11",
    "i18",
    "i07",
    "i06",
    "i19",
    "i03",
    "i14",
    "i00",
    "i09",
    "i05",
    "i16",
    "i08",
    "i13",
    "i02",
    "i01",
    "i12",
    "i04",
    "i10",
  ]);
});

Deno.test("selectInstances() slices with Python semantics", () => {
  const ten = Array.from({ length: 10 }, (_, k) => ({ instance_id: String(k) }));
  const sl = (s: string) => ids(selectInstances(ten, { slice: s })).map(Number);
  assertEquals(sl("-3:"), [7, 8, 9]);
  assertEquals(sl("::-2"), [9, 7, 5, 3, 1]);
  assertEquals(sl("8:2:-3"), [8, 5]);
  assertEquals(sl("-2::-2"), [8, 6, 4, 2, 0]);
  assertEquals(sl("100::-4"), [9, 5, 1]);
  assertEquals(sl("2:8:-1"), []);
  assertEquals(sl("-100:100:3"), [0, 3, 6, 9]);
  assertEquals(sl(":-20"), []);
  assertEquals(sl("-100:2"), [0, 1]);
  assertEquals(sl(":"), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

Deno.test("selectInstances() filters at the start of the id, then slices (upstream's order)", () => {
  const list = ["a-1", "b-1", "a-2", "xa-3", "a-4"].map((instance_id) => ({ instance_id }));
  assertEquals(ids(selectInstances(list, { filter: "a-" })), ["a-1", "a-2", "a-4"]);
  assertEquals(ids(selectInstances(list, { filter: "a-", slice: "1:" })), ["a-2", "a-4"]);
  assertEquals(ids(selectInstances(list, { filter: "a-1|b" })), ["a-1", "b-1"]);
});

Deno.test("selectInstances() reads --filter as a Python regex (re.match), refusing what it cannot mirror", () => {
  const list = ["django__django-11099", "Django__x", "sympy__sympy-20590", "django"].map((instance_id) => ({
    instance_id,
  }));
  // Python-only syntax: \Z, verbose mode, named groups and their backreferences, scoped flags.
  assertEquals(ids(selectInstances(list, { filter: "django\\Z" })), ["django"]);
  assertEquals(ids(selectInstances(list, { filter: "(?x) sympy __ sympy" })), ["sympy__sympy-20590"]);
  assertEquals(ids(selectInstances(list, { filter: "(?P<p>\\w+)__(?P=p)" })), [
    "django__django-11099",
    "sympy__sympy-20590",
  ]);
  assertEquals(ids(selectInstances(list, { filter: "(?i:d)jango__" })), [
    "django__django-11099",
    "Django__x",
  ]);
  assertThrows(
    () => selectInstances(list, { filter: "a{2" + "}{3}" }),
    UsageError,
    '--filter "a{2}{3}": multiple repeat',
  );
  assertThrows(() => selectInstances(list, { filter: "(a)?(?(1)b|c)" }), UsageError, "conditional group");
});

Deno.test("selectInstances() shards are disjoint, balanced and cover the selection", () => {
  const all = make(23);
  for (const n of [1, 2, 3, 5, 23, 30]) {
    const shards = Array.from(
      { length: n },
      (_, k) => ids(selectInstances(all, { shard: { index: k + 1, count: n } })),
    );
    const union = shards.flat();
    assertEquals(union.length, 23, `n=${n}: no id twice`);
    assertEquals(union.toSorted(), ids(all));
    for (const s of shards) assertEquals(Math.abs(s.length - Math.floor(23 / n)) <= 1, true);
  }
  assertEquals(ids(selectInstances(make(5), { shard: { index: 2, count: 2 } })), ["i01", "i03"]);
});

Deno.test("parseSlice() and parseShard() reject malformed specs with UsageError", () => {
  assertEquals(parseSlice("1:5"), [1, 5, null]);
  assertEquals(parseSlice(":-1:2"), [null, -1, 2]);
  for (const bad of ["5", "a:b", "1:2:3:4", "::0"]) {
    assertThrows(() => parseSlice(bad), UsageError, "--slice");
  }
  assertEquals(parseShard("2/3"), { index: 2, count: 3 });
  for (const bad of ["0/3", "4/3", "1/0", "x", "1/2/3"]) {
    assertThrows(() => parseShard(bad), UsageError, "--shard");
  }
  assertThrows(() => selectInstances(make(2), { filter: "(" }), UsageError, "--filter");
});

// An id on which `(a+)+$` backtracks for ever (2^34 ways to split the a's, none ending the id).
const STUCK = `${"a".repeat(34)}!`;

Deno.test("selectInstancesGuarded() matches --filter in a worker: same selection; a stuck match times out, naming the id", async () => {
  const list = ["a-1", "b-1", "a-2", "xa-3", "a-4", "a-5"].map((instance_id) => ({ instance_id }));
  const worker = programFile(FILTER_WORKER);
  for (
    const selection of [{ filter: "a-" }, { filter: "a-", slice: "1:", shard: { index: 1, count: 2 } }, {}]
  ) {
    assertEquals(
      ids(await selectInstancesGuarded(list, selection, { worker })),
      ids(selectInstances(list, selection)),
    );
  }
  await assertRejects(
    () => selectInstancesGuarded(list, { filter: "(" }, { worker }),
    UsageError,
    "--filter",
  );
  const start = Date.now();
  await assertRejects(
    () =>
      selectInstancesGuarded([...list, { instance_id: STUCK }], { filter: "(a+)+$" }, {
        worker,
        timeoutMs: 500,
      }),
    UsageError,
    `--filter '(a+)+$' did not finish within 0.5 s (still on instance '${STUCK}')`,
  );
  assert(Date.now() - start < 5000);
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 200);
  assertEquals(
    await selectInstancesGuarded([{ instance_id: STUCK }], { filter: "(a+)+$" }, {
      worker,
      signal: stop.signal,
    }),
    [],
  );
});

Deno.test("claudius batch hears SIGTERM while --filter is stuck: it selects nothing and exits 143", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/i.json`,
    JSON.stringify([{ instance_id: STUCK, task: "t" }, { instance_id: "a", task: "t" }]),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname, "batch", `${dir}/i.json`]
      .concat([
        "--filter",
        "(a+)+$",
        "--model-class",
        "scripted",
        "-c",
        "model.replies=[]",
        "-o",
        `${dir}/out`,
      ]),
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const done = child.output();
  await new Promise((r) => setTimeout(r, 2000)); // started, and stuck in the match
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000); // the old code never heard it
  const out = await done;
  clearTimeout(timer);
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 143, stderr);
  assert(stderr.includes("SIGTERM received"), stderr);
});
