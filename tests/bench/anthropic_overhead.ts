/**
 * Per-step cost of the Anthropic Messages API client against the OpenAI chat client, each through a
 * ChatModel over the same episode (STEPS steps, one ~2,000-character observation each, cache markers
 * on as for Claude), each against its loopback server running in a process of its own: per step, the
 * CPU time this process spends (`process.cpuUsage`, user + sys: translating, serialising and sending
 * the request, reading and parsing the answer, the model layer), which the machine's load does not
 * inflate, and the wall time of the query (server included). No command runs. Prints medians and the
 * first and last 100 steps' medians (growth means work that grows with the history); writes nothing.
 *
 * Run: `deno run -A --v8-flags=--max-semi-space-size=1,--optimize-for-size tests/bench/anthropic_overhead.ts [STEPS]`
 *
 * @module
 */
import { cpuUsage } from "node:process";
import { AnthropicClient } from "../../src/core/models/extra/anthropic.ts";
import { ChatModel } from "../../src/core/models/model.ts";
import { OpenAIClient } from "../../src/core/models/openai.ts";
import type { ChatClient, Message } from "../../src/core/types.ts";

const STEPS = Number(Deno.args[0] ?? 1000);
const SUPPORT = new URL("../_support/", import.meta.url).pathname;

/** A server script of the tests in a process of its own, and its URL. */
async function serve(script: string, ...flags: string[]) {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  const replies = Array.from({ length: STEPS }, (_, i) => ({ content: `step ${i}`, commands: ["ls"] }));
  await Deno.writeTextFile(path, JSON.stringify(replies));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${SUPPORT}${script}`, path, ...flags],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) first += (await reader.read()).value ?? "";
  return {
    url: first.trim(),
    stop: async () => (child.kill("SIGTERM"), await child.status, Deno.remove(path)),
  };
}

/** Per step: [CPU ms of this process, wall ms]. */
async function steps(client: ChatClient): Promise<[number, number][]> {
  const model = new ChatModel({ set_cache_control: "default_end" }, client, "toolcall", "bench");
  const messages: Message[] = [{ role: "system", content: "You are a benchmark." }, {
    role: "user",
    content: "Go.",
  }];
  const out: [number, number][] = [];
  for (let i = 0; i < STEPS; i++) {
    const bytes = crypto.getRandomValues(new Uint8Array(1500));
    const output = btoa(String.fromCharCode(...bytes)).replace(/(.{100})/g, "$1\n");
    const cpu = cpuUsage();
    const t = performance.now();
    const reply = await model.query(messages);
    messages.push(
      reply,
      ...model.formatObservations(reply, [{ output, returncode: 0, exception_info: "" }], {}),
    );
    const used = cpuUsage(cpu);
    out.push([(used.user + used.system) / 1000, performance.now() - t]);
  }
  return out;
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] ?? NaN;
const row = (name: string, s: [number, number][]) => {
  const cell = (k: 0 | 1, part: [number, number][]) => `${median(part.map((p) => p[k])).toFixed(2)} ms`;
  return `| ${name} | ${cell(0, s)} | ${cell(0, s.slice(0, 100))} | ${cell(0, s.slice(-100))} | ${
    cell(1, s)
  } | ${cell(1, s.slice(-100))} |`;
};

const anthropicServer = await serve("anthropic_server.ts", "--lean", "--no-bodies");
let anthropic: [number, number][];
try {
  anthropic = await steps(
    new AnthropicClient(
      {
        model_name: "anthropic/claude-sonnet-4-5",
        base_url: anthropicServer.url,
        cost_tracking: "ignore_errors",
      },
      { costLimit: 0, log: () => {}, env: { ANTHROPIC_API_KEY: "sk-ant-bench" } },
    ),
  );
} finally {
  await anthropicServer.stop();
}
const openaiServer = await serve("fake_server.ts");
let openai: [number, number][];
try {
  openai = await steps(
    new OpenAIClient(
      {
        model_name: "openrouter/anthropic/claude-sonnet-4-5",
        base_url: openaiServer.url,
        cost_tracking: "ignore_errors",
      },
      { costLimit: 0, log: () => {}, env: {} },
    ),
  );
} finally {
  await openaiServer.stop();
}
console.log(`${STEPS} steps, per step (the client's process; the server in its own)`);
console.log("| client | CPU, median | CPU, first 100 | CPU, last 100 | wall, median | wall, last 100 |");
console.log("| --- | --: | --: | --: | --: | --: |");
console.log(row("Anthropic Messages (native)", anthropic));
console.log(row("OpenAI chat completions", openai));
