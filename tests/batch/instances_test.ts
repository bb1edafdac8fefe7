/**
 * Reading batch instances from JSON, JSONL and directories, with one-line errors.
 */
import { assertEquals, assertRejects } from "../_assert.ts";
import { instanceTask, loadInstances, swebenchImageName } from "../../src/batch/instances.ts";
import { ConfigError } from "../../src/errors.ts";

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
  const array = await file('[{"instance_id": "a", "task": "x"}, {"task": "y"}]');
  await assertRejects(() => loadInstances(array), ConfigError, `${array}: record 2: missing instance_id`);
  const dup = await file('{"instance_id": "a", "task": "x"}\n{"instance_id": "a", "task": "y"}\n');
  await assertRejects(() => loadInstances(dup), ConfigError, "duplicate instance_id 'a'");
  const slash = await file('{"instance_id": "../etc", "task": "x"}\n');
  await assertRejects(() => loadInstances(slash), ConfigError, "cannot be a directory name");
  await assertRejects(() => loadInstances(`${DATA}missing.jsonl`), ConfigError, "Cannot read instances");
});

Deno.test("swebenchImageName() follows SWE-bench's naming unless the record names an image", () => {
  assertEquals(
    swebenchImageName({ instance_id: "Django__django-11099" }),
    "docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest",
  );
  assertEquals(swebenchImageName({ instance_id: "x", image_name: "my/Image:1" }), "my/Image:1");
  assertEquals(swebenchImageName({ instance_id: "x", docker_image: "d:2" }), "d:2");
});
