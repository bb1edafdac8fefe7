import { assert, assertEquals } from "../_support/assert.ts";
import { runFlags } from "./_child.ts";
import { expandNames, runScenarios } from "./bench.ts";
import { perStep, stepPart } from "./_breakdown.ts";
import { SUBMIT } from "./_episode.ts";
import { batchReply, gapFigures, PRINT_2000, vsRow } from "./_vs.ts";
import { markdownTable, type Row } from "./_report.ts";

const row = (figure: string): Row => ({ figure, value: "1 ms", floor: "", ratio: "", budget: "", met: null });

Deno.test("runScenarios() keeps and saves every figure taken when a later scenario fails", async () => {
  const saved: [string[], string[]][] = [];
  const rows = await runScenarios(
    [
      ["first", () => Promise.resolve([row("a"), row("b")])],
      ["skipped", () => Promise.resolve([row("never")])],
      ["last", () => Promise.reject(new Error("claudius exited 1\nstack..."))],
    ],
    ["first", "last"],
    "/nonexistent",
    (rows, done) => Promise.resolve(void saved.push([rows.map((r) => r.figure), [...done]])),
  );
  assertEquals(saved, [[["a", "b"], ["first"]], [["a", "b", "scenario `last`"], ["first", "last"]]]);
  assertEquals(rows[2], {
    figure: "scenario `last`",
    value: "failed",
    floor: "claudius exited 1",
    ratio: "",
    budget: "",
    met: false,
  });
});

Deno.test("markdownTable() keeps a shell pipeline inside its cell", () => {
  const table = markdownTable([
    { figure: "flood", value: "1 MB/s", floor: "`yes | head`", ratio: "1x", budget: "", met: null },
  ]);
  assertEquals(table.split("\n")[2], "| flood | 1 MB/s | `yes \\| head` | 1x |  |  |");
});

Deno.test("vsRow() gives times as upstream / claudius and memory as claudius / upstream, against the target", () => {
  const time = vsRow("gap", 10, 85, "time", { text: ">= 8x faster", met: (r) => r >= 8 });
  assertEquals([time.value, time.floor, time.ratio, time.met], ["10 ms", "85 ms", "8.5x faster", true]);
  const rss = vsRow("rss", 80 * 1024, 78 * 1024, "memory", { text: "<= 0.9x", met: (r) => r <= 0.9 });
  assertEquals([rss.value, rss.floor, rss.ratio, rss.met], ["80 MiB", "78 MiB", "1.03x upstream's", false]);
});

Deno.test("gapFigures() takes the last decile as the median of the run's last tenth", () => {
  const gaps = Array.from({ length: 100 }, (_, i) => (i < 10 ? 1 : i >= 90 ? 5 : 2));
  const f = gapFigures(gaps);
  assertEquals([f.median, f.first, f.last, f.growth], [2, 1, 5, 4]);
});

Deno.test("batchReply() answers each conversation by its own length, then submits", () => {
  const reply = batchReply(3);
  const request = (assistants: number) => ({
    method: "POST",
    path: "/v1/chat/completions",
    headers: {},
    raw: "",
    receivedAt: 0,
    body: { messages: [{ role: "user" }, ...Array(assistants).fill({ role: "assistant" })] },
  });
  assertEquals(reply(request(0)), { commands: [PRINT_2000] });
  assertEquals(reply(request(1)), { commands: [PRINT_2000] });
  assertEquals(reply(request(2)), SUBMIT);
});

Deno.test("expandNames() expands `vs` into the side-by-side scenarios", () => {
  assertEquals(expandNames(["vs", "long"]), [
    "vs-startup",
    "vs-long",
    "vs-mixed",
    "vs-batch8",
    "vs-batch32",
    "long",
  ]);
});

Deno.test("perStep() puts a sample in the part of its nearest claudius frame, runtime work apart", () => {
  const frame = (id: number, url: string, functionName = "f", children: number[] = []) => ({
    id,
    callFrame: { functionName, url, lineNumber: 0 },
    children,
  });
  const profile = {
    nodes: [
      frame(1, "", "(root)", [2, 5, 6]),
      frame(2, "file:///r/src/core/trajectory.ts", "save", [3]),
      frame(3, "file:///r/src/core/redact.ts", "redactSecrets", [4]),
      frame(4, "", "JSON.stringify"),
      frame(5, "", "(garbage collector)"),
      frame(6, "file:///r/src/lib/process.ts", "runCommand"),
    ],
    startTime: 0,
    endTime: 10_000,
    samples: [4, 4, 5, 6],
    timeDeltas: [1000, 1000, 2000, 4000],
  };
  assertEquals(perStep(profile, 2), {
    "saves: trajectory file and its info": 1,
    "runtime: garbage collection": 1,
    "command: spawn, capture, orphan guard": 2,
  });
  assertEquals(stepPart({ functionName: "x", url: "ext:deno_fetch/26_fetch.js", lineNumber: 0 }), undefined);
});

Deno.test("every deno.json task that starts claudius gives it the run task's V8 flags", () => {
  const tasks: Record<string, string> =
    JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)))
      .tasks;
  const flags = runFlags().find((f) => f.startsWith("--v8-flags="));
  assert(flags, "deno task run has no --v8-flags");
  const starting = Object.entries(tasks).filter(([, t]) =>
    /\bmain\.ts\b/.test(t) && !/^deno (check|fmt|lint)/.test(t)
  );
  for (const name of ["run", "install", "compile"]) {
    assert(starting.some(([n]) => n === name), `deno task ${name} does not start main.ts`);
  }
  for (const [name, task] of starting) {
    assert(task.includes(` ${flags} `), `deno task ${name} lacks ${flags}`);
  }
});

Deno.test("the README's bare deno run line names the run task's V8 flags", () => {
  const readme = Deno.readTextFileSync(new URL("../../README.md", import.meta.url));
  const flags = runFlags().find((f) => f.startsWith("--v8-flags="))!.slice("--v8-flags=".length);
  assert(readme.includes(`DENO_V8_FLAGS=${flags}\``), `README.md lacks DENO_V8_FLAGS=${flags}`);
});

Deno.test("the tasks that run claudius from source load dynamic imports lazily; compile and deno.json do not", () => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
  const tasks: Record<string, string> = config.tasks;
  const lazy = "--unstable-lazy-dynamic-imports";
  for (const name of ["run", "demo", "install"]) {
    assert(tasks[name]?.includes(` ${lazy} `), `deno task ${name} lacks ${lazy}`);
  }
  // deno compile follows deno.json's flag too, and would then embed main.ts's static imports alone.
  assert(
    !tasks.compile?.includes(lazy),
    `deno task compile has ${lazy}: the binary would lack every command`,
  );
  assert(
    !(config.unstable ?? []).includes("lazy-dynamic-imports"),
    "deno.json turns on lazy-dynamic-imports for deno compile too",
  );
});
