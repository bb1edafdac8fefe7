/**
 * Conformance with upstream mini-swe-agent: for our built-in configs and scripted replies, claudius
 * must send the model the same request bodies (keys in the same order) and record the same messages
 * as upstream's Python harness did (golden files made by tests/testdata/conformance/gen_conformance.py),
 * also for a Claude model name, where upstream marks the last message for prompt caching.
 */
import { assertEquals } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { loadScript } from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";

const DIR = new URL("../testdata/conformance/", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function uname(flag: string): Promise<string> {
  const out = await new Deno.Command("uname", { args: [flag] }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

function normalise(value: unknown, cwd: string, names: [string, string][]): Json {
  let text = JSON.stringify(value).replaceAll(cwd, "<CWD>");
  for (const [real, placeholder] of names) {
    text = text.replaceAll(JSON.stringify(real).slice(1, -1), placeholder);
  }
  const parsed = JSON.parse(text);
  for (const m of parsed) delete m.extra?.timestamp;
  return parsed;
}

for (
  const scenario of [
    "toolcall",
    "text",
    "claude_toolcall",
    "claude_text",
    "openrouter_response",
    "litellm_response",
  ]
) {
  Deno.test(`claudius matches upstream's requests and messages (${scenario} mode)`, async () => {
    const golden = JSON.parse(await Deno.readTextFile(`${DIR}${scenario}_golden.json`));
    const server = await startFakeServer(await loadScript(`${DIR}${golden.replies}`));
    const dir = await Deno.makeTempDir();
    const cwd = `${dir}/ws`;
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          MAIN,
          "--task",
          golden.task,
          "-m",
          golden.model_name,
          "--model-class",
          golden.model_class,
          "--base-url",
          server.url,
          "-c",
          golden.config.replace(/\.yaml$/, ""),
          "-c",
          "environment.timeout=2",
          "--create-cwd",
          "--cwd",
          cwd,
          "-o",
          `${dir}/t.json`,
        ],
        env: { NO_COLOR: "1" },
        stdin: "null",
      }).output();
      assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
      const names: [string, string][] = [
        [await uname("-v"), "<VERSION>"],
        [await uname("-r"), "<RELEASE>"],
        [await uname("-n"), "<NODE>"],
      ];
      const traj = JSON.parse(await Deno.readTextFile(`${dir}/t.json`));
      assertEquals({ exit_status: traj.info.exit_status, submission: traj.info.submission }, golden.result);
      const requests = normalise(server.requests.map((r) => r.body), cwd, names) as Json[];
      assertEquals(requests, golden.requests);
      // Key order too: the bodies are the same JSON text up to whitespace.
      assertEquals(
        requests.map((r) => JSON.stringify(r)),
        golden.requests.map((r: Json) => JSON.stringify(r)),
      );
      const messages = normalise(traj.messages, cwd, names) as Json[];
      assertEquals(messages, golden.messages);
      assertEquals(
        messages.map((m) => JSON.stringify(m)),
        golden.messages.map((m: Json) => JSON.stringify(m)),
      );
    } finally {
      await server.close();
    }
  });
}
