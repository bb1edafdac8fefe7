/**
 * Reading batch instances from JSON, JSONL and directories, with one-line errors.
 */
import { assertEquals, assertRejects } from "../_support/assert.ts";
import { instanceTask, loadInstances, swebenchImageName } from "../../src/batch/instances.ts";
import { ConfigError } from "../../src/core/errors.ts";

const DATA = new URL("../testdata/batch/", import.meta.url).pathname;

async function file(text: string): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  await Deno.writeTextFile(path, text);
  return path;
}

Deno.test("loadInstances() reads a JSON array with every field kept", async () => {
  const list = await loadInstances(`${DATA}instances.json`);
  assertEquals(list.map((i) => i.instance_id), ["astropy__astropy-12907", "custom-1"]);
  assertEquals(list[0]!.repo, "astropy/astropy");
  assertEquals(instanceTask(list[0]!), "Fix separability.");
  assertEquals(instanceTask(list[1]!), "Write hello.");
});

Deno.test("loadInstances() reads JSONL (blank lines skipped) and a directory of task files", async () => {
  const path = await file(
    '{"instance_id": "a", "task": "x"}\n\n{"instance_id": "b", "problem_statement": "y"}\n',
  );
  assertEquals((await loadInstances(path)).map((i) => i.instance_id), ["a", "b"]);
  const dir = await loadInstances(`${DATA}tasks`);
  assertEquals(dir, [
    { instance_id: "alpha", task: "Fix the bug in foo.\n" },
    { instance_id: "beta", task: "Add a test.\n" },
  ]);
});

Deno.test("loadInstances() names the file and line or record of a bad entry", async () => {
  const jsonl = await file('{"instance_id": "a", "task": "x"}\n{"instance_id": "b"\n');
  await assertRejects(() => loadInstances(jsonl), ConfigError, `${jsonl}:2:`);
  const noTask = await file('{"instance_id": "a", "task": "x"}\n\n{"instance_id": "b", "task": 3}\n');
  await assertRejects(
    () => loadInstances(noTask),
    ConfigError,
    `${noTask}:3: instance 'b' needs a problem_statement or task`,
  );
  const empty = await file('{"instance_id": "a", "problem_statement": " \\n", "task": "x"}\n');
  await assertRejects(
    () => loadInstances(empty),
    ConfigError,
    `${empty}:1: instance 'a' needs a problem_statement`,
  );
  const array = await file('[{"instance_id": "a", "task": "x"}, {"task": "y"}]');
  await assertRejects(() => loadInstances(array), ConfigError, `${array}: record 2: missing instance_id`);
  const dup = await file('{"instance_id": "a", "task": "x"}\n{"instance_id": "a", "task": "y"}\n');
  await assertRejects(() => loadInstances(dup), ConfigError, "duplicate instance_id 'a'");
  const slash = await file('{"instance_id": "../etc", "task": "x"}\n');
  await assertRejects(() => loadInstances(slash), ConfigError, "cannot be a directory name");
  await assertRejects(() => loadInstances(`${DATA}missing.jsonl`), ConfigError, "Cannot read instances");
  const latin1 = await file("");
  await Deno.writeFile(
    latin1,
    Uint8Array.from('{"instance_id": "a", "task": "caf\xe9"}\n', (c) => c.charCodeAt(0)),
  );
  await assertRejects(
    () => loadInstances(latin1),
    ConfigError,
    `${latin1}: not UTF-8 text: byte 0xe9 on line 1`,
  );
});

Deno.test("loadInstances() refuses an instance_id too long to name its files, before anything runs", async () => {
  // A 300-character id was accepted, then failed at run time (its <id>.traj.json: name too long).
  const long = await file(`{"instance_id": "${"x".repeat(300)}", "task": "t"}\n`);
  await assertRejects(
    () => loadInstances(long),
    ConfigError,
    `${long}:1: instance_id '${"x".repeat(40)}...' is 300 bytes long; at most 200`,
  );
  // Bytes, not characters: 101 two-byte characters are 202 bytes.
  const wide = await file(`{"instance_id": "${"\u00e9".repeat(101)}", "task": "t"}\n`);
  await assertRejects(() => loadInstances(wide), ConfigError, "is 202 bytes long");
  assertEquals(
    (await loadInstances(await file(`{"instance_id": "${"y".repeat(200)}", "task": "t"}\n`))).length,
    1,
  );
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/${"z".repeat(230)}.md`, "a task");
  await assertRejects(() => loadInstances(dir), ConfigError, "is 230 bytes long");
});

Deno.test("loadInstances() refuses an instance_id naming one of the batch's own files in the output directory", async () => {
  // Before: an instance `preds.json` or `.claudius.lock` got a directory where the batch keeps its files.
  for (const id of ["preds.json", ".claudius.lock", ".claims", ".rescued", "exit_statuses_1700000000.yaml"]) {
    const f = await file(`{"instance_id": "${id}", "task": "t"}\n`);
    await assertRejects(
      () => loadInstances(f),
      ConfigError,
      `${f}:1: instance_id '${id}' would name one of the batch's own files in the output directory`,
    );
  }
  const fine = ["preds", "my.preds.json", "exit_statuses", "a.b"].map((id) =>
    `{"instance_id": "${id}", "task": "t"}`
  );
  assertEquals((await loadInstances(await file(fine.join("\n") + "\n"))).length, 4);
});

Deno.test("swebenchImageName() follows SWE-bench's naming unless the record names an image", () => {
  assertEquals(
    swebenchImageName({ instance_id: "Django__django-11099" }),
    "docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest",
  );
  assertEquals(swebenchImageName({ instance_id: "x", image_name: "my/Image:1" }), "my/Image:1");
  assertEquals(swebenchImageName({ instance_id: "x", docker_image: "d:2" }), "d:2");
});

Deno.test("loadInstances() reads an exported parquet dataset (snappy) and names the export step for other codecs", async () => {
  const list = await loadInstances(`${DATA}swebench.parquet`);
  assertEquals(list, [
    {
      instance_id: "acme__widget-1",
      repo: "acme/widget",
      problem_statement: "Widgets crash on naïve input.\nSecond line.",
      FAIL_TO_PASS: '["tests/test_w.py::test_naive"]',
      patch_lines: 12,
      created_at: "2024-05-01T12:00:00.000Z",
    },
    {
      instance_id: "acme__widget-2",
      repo: "acme/widget",
      problem_statement: "Add a --verbose flag.",
      FAIL_TO_PASS: "[]",
      patch_lines: "9007199254740993",
      created_at: "2024-06-02T08:30:00.000Z",
    },
  ]);
  await assertRejects(
    () => loadInstances(`${DATA}swebench_zstd.parquet`),
    ConfigError,
    "ZSTD; claudius reads uncompressed and snappy parquet",
  );
  const notParquet = await Deno.makeTempFile({ suffix: ".parquet" });
  await Deno.writeTextFile(notParquet, "not parquet");
  await assertRejects(() => loadInstances(notParquet), ConfigError, `Cannot read instances ${notParquet}`);
});

Deno.test("loadInstances() without a required task: ProgramBench's task folders and lists of ids", async () => {
  const dir = await Deno.makeTempDir();
  for (const id of ["zed__tool.abc", "acme__cli.123"]) {
    await Deno.mkdir(`${dir}/${id}/tests`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${id}/task.yaml`, `language: rust\nrepository: ${id}\n`);
  }
  await Deno.mkdir(`${dir}/not-a-task`);
  assertEquals(await loadInstances(dir, { taskRequired: false }), [
    { language: "rust", repository: "acme__cli.123", instance_id: "acme__cli.123" },
    { language: "rust", repository: "zed__tool.abc", instance_id: "zed__tool.abc" },
  ]);
  const ids = await file("# ProgramBench ids\nacme__cli.123\n\nzed__tool.abc  # the second\n");
  assertEquals(await loadInstances(ids, { taskRequired: false }), [
    { instance_id: "acme__cli.123" },
    { instance_id: "zed__tool.abc" },
  ]);
  const records = await file('{"instance_id": "x", "image_name": "img"}\n');
  assertEquals(await loadInstances(records, { taskRequired: false }), [{
    instance_id: "x",
    image_name: "img",
  }]);
  await assertRejects(() => loadInstances(records), ConfigError, "needs a problem_statement or task");
});

Deno.test("loadInstances() refuses a file or folder that holds no instance, naming it", async () => {
  const dir = await Deno.makeTempDir();
  for (const [name, text] of [["e.jsonl", ""], ["e.json", "[]"], ["blank.jsonl", "\n\n"]]) {
    await Deno.writeTextFile(`${dir}/${name}`, text!);
    await assertRejects(
      () => loadInstances(`${dir}/${name}`),
      ConfigError,
      `${dir}/${name}: it holds no instance`,
    );
  }
  await Deno.mkdir(`${dir}/empty`);
  await assertRejects(() => loadInstances(`${dir}/empty`), ConfigError, "holds no instance");
});
