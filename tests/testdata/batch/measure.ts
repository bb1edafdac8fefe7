/**
 * Batch throughput and harness CPU share: N scripted instances x S steps, local (or docker)
 * environment, `claudius batch` as a subprocess; its own CPU time (utime+stime of
 * /proc/<pid>/stat, sampled every 50 ms until it exits) against wall time.
 *
 *   deno run -A tests/testdata/batch/measure.ts [instances=64] [steps=5] [workers=8,32] [env=local]
 */
const [n = "64", steps = "5", workersList = "8,32", env = "local"] = Deno.args;
const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const TICK = 100; // sysconf(_SC_CLK_TCK) on Linux

async function cpu(pid: number): Promise<{ self: number; children: number } | null> {
  try {
    const f = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1]!.split(" ");
    return { self: (Number(f[11]) + Number(f[12])) / TICK, children: (Number(f[13]) + Number(f[14])) / TICK };
  } catch {
    return null;
  }
}

for (const workers of workersList.split(",").map(Number)) {
  const dir = await Deno.makeTempDir({ prefix: "claudius-measure-" });
  await Deno.mkdir(`${dir}/scripts`);
  const lines: string[] = [];
  for (let k = 0; k < Number(n); k++) {
    const id = `m-${k}`;
    lines.push(JSON.stringify({ instance_id: id, task: `task ${k}` }));
    const replies = [
      ...Array.from({ length: Number(steps) - 1 }, (_, s) => ({ content: `s${s}`, commands: [`echo step ${s}`] })),
      { content: "done", commands: [`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo ${id}`] },
    ];
    await Deno.writeTextFile(`${dir}/scripts/${id}.json`, JSON.stringify(replies));
  }
  await Deno.writeTextFile(`${dir}/i.jsonl`, lines.join("\n") + "\n");
  const args = ["run", "-A", MAIN, "batch", `${dir}/i.jsonl`, "-o", `${dir}/out`, "-w", String(workers),
    "--model-class", "scripted", "-c", `model.script=${dir}/scripts/{{instance.instance_id}}.json`];
  if (env !== "local") args.push("--env", "docker", "--image", "claudius-test-tiny:latest");
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), { args, stdout: "null", stderr: "piped" }).spawn();
  let last = { self: 0, children: 0 };
  const poll = setInterval(async () => (last = (await cpu(child.pid)) ?? last), 50);
  const status = await child.status;
  clearInterval(poll);
  const wall = (performance.now() - t0) / 1000;
  const preds = Object.keys(JSON.parse(await Deno.readTextFile(`${dir}/out/preds.json`))).length;
  console.log(
    `${env} workers=${workers}: ${preds}/${n} instances in ${wall.toFixed(2)} s = ${(preds / wall * 60).toFixed(0)}/min; ` +
      `harness CPU ${last.self.toFixed(2)} s = ${(100 * last.self / wall).toFixed(0)}% of wall ` +
      `(children ${last.children.toFixed(2)} s); exit ${status.code}`,
  );
  await Deno.remove(dir, { recursive: true });
}
