import { assert, assertEquals, assertRejects } from "../../_support/assert.ts";
import { OpenAIClient } from "../../../src/core/models/openai.ts";
import { readCompletionStream, type StreamEvent } from "../../../src/core/models/extra/_stream.ts";
import { type ScriptReply, toCompletionBody } from "../../../src/core/models/extra/_script.ts";
import type { ChatRequest, Completion, Json } from "../../../src/core/types.ts";
import { startFakeServer, toStreamEvents } from "../../_support/fake_server.ts";

const REQUEST: ChatRequest = { messages: [{ role: "user", content: "List files." }] };

const REPLIES: ScriptReply[] = [
  {
    content: "Let me look: ünïcødé 🙂 and a long enough text to arrive in many pieces.",
    commands: ["ls -la", "cat 'a b'"],
  },
  { content: null, commands: ["echo only a tool call"], cost: 0.25 },
  { content: "plain text, no calls", reasoning_content: "thinking it over", usage: { prompt_tokens: 7 } },
  {
    content: "hand-written call",
    tool_calls: [{
      id: "call_z",
      type: "function",
      function: { name: "bash", arguments: '{"command": "pwd"}' },
    }],
  },
];

async function completions(stream: boolean, onStream?: (e: StreamEvent) => void): Promise<Completion[]> {
  const server = await startFakeServer(REPLIES);
  try {
    const client = new OpenAIClient(
      { model_name: "hosted_vllm/test-model", base_url: server.url, cost_tracking: "ignore_errors", stream },
      { env: {}, costLimit: 0, log: () => {}, ...(onStream ? { onStream } : {}) },
    );
    const out: Completion[] = [];
    for (const _ of REPLIES) out.push(await client.complete(REQUEST));
    if (stream) {
      for (const r of server.requests) {
        assertEquals((r.body as Record<string, unknown>).stream, true);
        assertEquals((r.body as Record<string, unknown>).stream_options, { include_usage: true });
      }
    } else {
      for (const r of server.requests) assert(!("stream" in (r.body as Record<string, unknown>)));
    }
    return out;
  } finally {
    await server.close();
  }
}

Deno.test("OpenAIClient with model.stream saves the same message, response and cost as without", async () => {
  const events: StreamEvent[] = [];
  const streamed = await completions(true, (e) => events.push(e));
  const plain = await completions(false);
  assertEquals(streamed, plain);
  assertEquals(events.filter((e) => e.type === "start").length, REPLIES.length);
  const text = events.map((e) => (e.type === "text" ? e.text : "")).join("");
  assertEquals(text, REPLIES.map((r) => ("content" in r ? r.content ?? "" : "")).join(""));
  assert(events.filter((e) => e.type === "text").length > 8, "the text arrives in pieces");
});

Deno.test("OpenAIClient with model.stream retries a stream cut short, showing the retry", async () => {
  const server = await startFakeServer([{ fault: "truncate" }, { content: "whole", commands: ["ls"] }]);
  try {
    const events: StreamEvent[] = [];
    const logs: string[] = [];
    const client = new OpenAIClient(
      { model_name: "hosted_vllm/m", base_url: server.url, cost_tracking: "ignore_errors", stream: true },
      {
        env: {},
        costLimit: 0,
        log: (l) => logs.push(l),
        sleep: () => Promise.resolve(),
        onStream: (e) => events.push(e),
      },
    );
    const completion = await client.complete(REQUEST);
    assertEquals(completion.message.content, "whole");
    assertEquals(server.requests.length, 2);
    assertEquals(events.filter((e) => e.type === "start").length, 2);
    assert(logs.some((l) => /^Retrying model query/.test(l)), logs.join("\n"));
  } finally {
    await server.close();
  }
});

Deno.test("readCompletionStream() reads the same body whatever the chunking, blank lines split across chunks included", async () => {
  const body = toCompletionBody({ content: "ünïcødé 🙂 text", commands: ["ls -la"] }, 0, "m");
  const sse = new TextEncoder().encode(toStreamEvents(body).map((e) => `data: ${e}\n\n`).join(""));
  const chunked = (size: number) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < sse.length; i += size) controller.enqueue(sse.slice(i, i + size));
        controller.close();
      },
    });
  const whole = await readCompletionStream(chunked(sse.length));
  assertEquals(
    (whole as { choices: { message: { content: string } }[] }).choices[0]!.message.content,
    "ünïcødé 🙂 text",
  );
  for (const size of [1, 2, 3, 7]) assertEquals(await readCompletionStream(chunked(size)), whole);
});

Deno.test("readCompletionStream() reads CRLF and CR line endings (SSE allows both), a CRLF split across chunks included", async () => {
  const body = toCompletionBody({ content: "line endings", commands: ["ls"] }, 0, "m");
  const events = toStreamEvents(body);
  const chunked = (eol: string, size: number) => {
    const sse = new TextEncoder().encode(events.map((e) => `data: ${e}${eol}${eol}`).join(""));
    return new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < sse.length; i += size) controller.enqueue(sse.slice(i, i + size));
        controller.close();
      },
    });
  };
  const whole = await readCompletionStream(chunked("\n", 1 << 20));
  for (const eol of ["\r\n", "\r"]) {
    for (const size of [1, 2, 3, 7, 1 << 20]) {
      assertEquals(await readCompletionStream(chunked(eol, size)), whole);
    }
  }
});

/** A stream of the given SSE text, in one chunk. */
function sseOf(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

Deno.test("readCompletionStream() skips events with empty data (keep-alives) instead of failing the paid reply", async () => {
  const events = toStreamEvents(toCompletionBody({ content: "kept", commands: ["ls"] }, 0, "m"));
  const plain = await readCompletionStream(sseOf(events.map((e) => `data: ${e}\n\n`).join("")));
  const [first, ...rest] = events;
  const odd = [`data: ${first}\n\n`, "data:\n\n", "data: \n\n", ...rest.map((e) => `data: ${e}\n\n`)];
  assertEquals(await readCompletionStream(sseOf(odd.join(""))), plain);
});

Deno.test("readCompletionStream() rebuilds choice 0 when a chunk carries other choices first", async () => {
  const events = toStreamEvents(toCompletionBody({ content: "zero", commands: ["ls"] }, 0, "m"));
  const plain = await readCompletionStream(sseOf(events.map((e) => `data: ${e}\n\n`).join("")));
  const withOther = events.map((e) => {
    if (e === "[DONE]") return e;
    const chunk = JSON.parse(e);
    if (chunk.choices.length === 0) return e;
    const other = { index: 1, delta: { content: "one" }, finish_reason: chunk.choices[0].finish_reason };
    return JSON.stringify({ ...chunk, choices: [other, ...chunk.choices] });
  });
  assertEquals(await readCompletionStream(sseOf(withOther.map((e) => `data: ${e}\n\n`).join(""))), plain);
});

Deno.test("readCompletionStream() keeps a reply whose stream breaks after its finish_reason (it was served whole)", async () => {
  const events = toStreamEvents(toCompletionBody({ content: "whole", commands: ["ls"] }, 0, "m"));
  const finished = events.filter((e) => e === "[DONE]" || JSON.parse(e).choices.length > 0);
  const clean = await readCompletionStream(sseOf(finished.map((e) => `data: ${e}\n\n`).join("")));
  const broken = (upTo: number) => {
    let sent = false; // the text on the first read, the error on the next (as a connection reset)
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new TypeError("error reading a body from connection"));
        sent = true;
        const text = finished.slice(0, upTo).map((e) => `data: ${e}\n\n`).join("");
        controller.enqueue(new TextEncoder().encode(text));
      },
    });
  };
  assertEquals(await readCompletionStream(broken(finished.length - 1)), clean, "no usage, no [DONE]");
  await assertRejects(() => readCompletionStream(broken(finished.length - 2)), TypeError, "error reading");
});

Deno.test("OpenAIClient with model.stream retries an error event as it retries the same error in a 200 body", async () => {
  const requests: number[] = [];
  const error = (code: number) => `data: {"error":{"message":"context length exceeded","code":${code}}}\n\n`;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    await request.text();
    requests.push(requests.length);
    const code = requests.length === 1 ? 503 : 400; // transient once, then a request error
    return new Response(error(code), { headers: { "content-type": "text/event-stream" } });
  });
  try {
    const client = new OpenAIClient(
      {
        model_name: "hosted_vllm/test-model",
        base_url: `http://127.0.0.1:${server.addr.port}/v1`,
        cost_tracking: "ignore_errors",
        stream: true,
        retry_base_delay: 0,
      },
      { env: {}, costLimit: 0, log: () => {} },
    );
    const failure = await client.complete(REQUEST).then(() => undefined, (e: Error) => e);
    assertEquals(requests.length, 2, "the 503 is retried, the 400 is not");
    assertEquals(failure?.name, "ContextWindowExceededError");
    assert(/context length exceeded \(code 400\)/.test(failure!.message), failure?.message);
  } finally {
    await server.shutdown();
  }
});

Deno.test("readCompletionStream() merges list fields sent in pieces (OpenRouter's reasoning_details) as the whole reply has them", async () => {
  const detail = { type: "reasoning.text", text: "think hard", format: "anthropic-claude-v1", index: 0 };
  const whole = toCompletionBody({ content: "ok", commands: ["ls"] }, 0, "m") as {
    choices: { message: Json }[];
  };
  const message = whole.choices[0]!.message as { [key: string]: Json };
  message.reasoning_details = [{ ...detail, signature: "sig" }];
  const pieces = toStreamEvents(whole).flatMap((e) => {
    if (e === "[DONE]" || !e.includes("reasoning_details")) return [e];
    const chunk = JSON.parse(e);
    const part = (d: Record<string, unknown>) =>
      JSON.stringify({ ...chunk, choices: [{ ...chunk.choices[0], delta: { reasoning_details: [d] } }] });
    return [
      part({ ...detail, text: "think " }),
      part({ ...detail, text: "hard" }),
      part({ ...detail, text: "", signature: "sig" }),
    ];
  });
  const streamed = await readCompletionStream(sseOf(pieces.map((e) => `data: ${e}\n\n`).join("")));
  assertEquals(
    (streamed as { choices: { message: Json }[] }).choices[0]!.message,
    message,
  );
});

Deno.test("OpenAIClient with model.stream joins tool-call deltas without an index, and a name sent in pieces", async () => {
  const chunk = (delta: Json, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const call = (part: Json) => chunk({ tool_calls: [part] });
  const sse = [
    chunk({ role: "assistant", content: null }),
    call({ id: "call_a", type: "function", function: { name: "ba", arguments: "" } }),
    call({ function: { name: "sh", arguments: '{"comm' } }),
    call({ function: { arguments: 'and": "ls"}' } }),
    call({ id: "call_b", type: "function", function: { name: "bash", arguments: "" } }),
    // A server that repeats the whole name in every delta.
    call({ id: "call_b", function: { name: "bash", arguments: '{"command": "pwd"}' } }),
    chunk({}, "tool_calls"),
    "data: [DONE]\n\n",
  ].join("");
  const reply: ScriptReply = {
    fault: "status",
    status: 200,
    body: sse,
    headers: { "content-type": "text/event-stream" },
  };
  const server = await startFakeServer([reply]);
  try {
    const client = new OpenAIClient(
      { model_name: "hosted_vllm/m", base_url: server.url, cost_tracking: "ignore_errors", stream: true },
      { env: {}, costLimit: 0, log: () => {} },
    );
    const { message } = await client.complete(REQUEST);
    assertEquals(message.tool_calls, [
      { id: "call_a", type: "function", function: { name: "bash", arguments: '{"command": "ls"}' } },
      { id: "call_b", type: "function", function: { name: "bash", arguments: '{"command": "pwd"}' } },
    ]);
  } finally {
    await server.close();
  }
});
