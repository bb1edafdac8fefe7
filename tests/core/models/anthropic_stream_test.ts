/**
 * Streamed Messages API replies that are paid for but cannot be used as they came: a tool input that
 * is not JSON, one cut at `max_tokens` inside it, and events without `index`. claudius as a
 * subprocess against the Anthropic loopback server playing the raw event streams: each reply is
 * recorded and counted once, a malformed one is the model's format error, none is bought again.
 */
import { assert, assertEquals, assertMatch } from "../../_support/assert.ts";
import { startAnthropicServer } from "../../_support/anthropic_server.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import { readTrajectory } from "../../../src/core/trajectory.ts";
import type { Json } from "../../../src/core/types.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const KEY = "sk-ant-test-0123456789";
type Obj = { [key: string]: Json };

/** A 200 event stream of `events` (each `[type, data]`; `index` left as given). */
function stream(events: Obj[]): ScriptReply {
  const body = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  return { fault: "status", status: 200, body, headers: { "content-type": "text/event-stream" } };
}

/** A streamed reply: some text, then a bash tool call whose input arrives as `pieces`. */
function toolStream(pieces: string[], stop: string, o: { index?: boolean } = {}): ScriptReply {
  const at = (i: number) => (o.index === false ? {} : { index: i });
  return stream([
    {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 1000, output_tokens: 1 },
      },
    },
    { type: "content_block_start", ...at(0), content_block: { type: "text", text: "" } },
    { type: "content_block_delta", ...at(0), delta: { type: "text_delta", text: "Listing." } },
    { type: "content_block_stop", ...at(0) },
    {
      type: "content_block_start",
      ...at(1),
      content_block: { type: "tool_use", id: "toolu_1", name: "bash", input: {} },
    },
    ...pieces.map((p) => ({
      type: "content_block_delta",
      ...at(1),
      delta: { type: "input_json_delta", partial_json: p },
    })),
    { type: "content_block_stop", ...at(1) },
    {
      type: "message_delta",
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 200 },
    },
    { type: "message_stop" },
  ]);
}

const SUBMIT: ScriptReply = { commands: ["echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"] };

async function run(first: ScriptReply) {
  const server = await startAnthropicServer([first, SUBMIT], { key: KEY });
  const dir = await Deno.makeTempDir({ prefix: "claudius-anthropic-stream-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "-t",
        "t",
        "-m",
        "anthropic/claude-sonnet-4-5-20250929",
        "-c",
        "model.stream=true",
      ]
        .concat(["-c", "model.retry_base_delay=0", "-o", `${dir}/t.traj.json`, "--cwd", dir]),
      env: { NO_COLOR: "1", ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
      stdin: "null",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    const { data } = await readTrajectory(`${dir}/t.traj.json`);
    return { code: out.code, stderr, data, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

function stats(data: Awaited<ReturnType<typeof run>>["data"]) {
  return data.info.model_stats as { api_calls: number; instance_cost: number };
}

Deno.test("a streamed Anthropic tool input that is not JSON is a paid format error, recorded and counted, not bought again", async () => {
  const r = await run(toolStream(['{"command": ', '"ls -la"'], "tool_use"));
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.requests, 2, "one call each, no retry");
  assertEquals(stats(r.data).api_calls, 2);
  assert(stats(r.data).instance_cost > 0, JSON.stringify(r.data.info.model_stats));
  // As upstream records a format error: the error message the model sees, carrying the call's cost.
  const error = r.data.messages[2];
  assertEquals(error?.role, "user");
  assert(Number(error?.extra?.cost) > 0, JSON.stringify(error?.extra));
  assertMatch(String(error?.content), /Error parsing tool call arguments: Expecting ',' delimiter/);
  assertEquals(r.data.info.exit_status, "Submitted");
});

Deno.test("a streamed Anthropic reply cut at max_tokens inside a tool input is the output-limit format error, counted once", async () => {
  const r = await run(toolStream(['{"command": "find / -name', " '*.py"], "max_tokens"));
  assertEquals(r.code, 0, r.stderr);
  assertEquals([r.requests, stats(r.data).api_calls], [2, 2]);
  assert(stats(r.data).instance_cost > 0);
  const error = r.data.messages[2];
  assertEquals(error?.role, "user");
  assert(Number(error?.extra?.cost) > 0, JSON.stringify(error?.extra));
  assertMatch(String(error?.content), /output token limit \(finish_reason=length\)/);
});

Deno.test("a streamed Anthropic reply whose events carry no index keeps its text and its tool call", async () => {
  const r = await run(toolStream(['{"command": ', '"echo from-the-call"}'], "tool_use", { index: false }));
  assertEquals(r.code, 0, r.stderr);
  assertEquals([r.requests, stats(r.data).api_calls], [2, 2]);
  const [, , reply, output] = r.data.messages;
  assertEquals([reply?.role, reply?.content], ["assistant", "Listing."]);
  assertMatch(String(output?.content), /from-the-call/);
});
