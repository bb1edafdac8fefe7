/**
 * Anthropic's native Messages API (src/core/models/extra/anthropic.ts and its helpers) against a loopback
 * server that speaks the documented protocol and refuses what the API refuses.
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../../_support/assert.ts";
import { ApiError, ConfigError } from "../../../src/core/errors.ts";
import { AnthropicClient } from "../../../src/core/models/extra/anthropic.ts";
import { ChatModel } from "../../../src/core/models/model.ts";
import type { HttpClientDeps } from "../../../src/core/models/_http.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import type { Json, Message, WireMessage } from "../../../src/core/types.ts";
import { type AnthropicServer, startAnthropicServer } from "../../_support/anthropic_server.ts";
import { assertIncludes, field, KEY } from "./_client.ts";

type Obj = { [key: string]: Json };

/** A client against `server` with the key in ANTHROPIC_API_KEY, recording logs and sleeps. */
function anthropicSetup(
  server: { url: string },
  config: Record<string, unknown> = {},
  deps: Partial<HttpClientDeps> = {},
) {
  const logs: string[] = [];
  const sleeps: number[] = [];
  const client = new AnthropicClient(
    { model_name: "anthropic/claude-sonnet-4-5-20250929", cost_tracking: "ignore_errors", ...config },
    {
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
      costLimit: 0,
      log: (line) => logs.push(line),
      sleep: (ms) => (sleeps.push(ms), Promise.resolve()),
      random: () => 0.5,
      ...deps,
    },
  );
  return { client, logs, sleeps };
}

/** Run `fn` against an Anthropic loopback server playing `replies`. */
async function withAnthropic(
  replies: ScriptReply[],
  fn: (server: AnthropicServer) => Promise<void>,
  key = KEY,
): Promise<void> {
  const server = await startAnthropicServer(replies, { key });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

const SYSTEM = { role: "system" as const, content: "You are a test." };
const TASK = { role: "user" as const, content: "List files." };
const BASH = {
  type: "function",
  function: {
    name: "bash",
    description: "Execute a bash command",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
};

Deno.test("AnthropicClient sends the conversation as the Messages API takes it and returns litellm's OpenAI shape", async () => {
  await withAnthropic([{ content: "Looking.", commands: ["ls -la", "echo é"] }], async (server) => {
    const { client } = anthropicSetup(server);
    const completion = await client.complete({ messages: [SYSTEM, TASK], tools: [BASH] });
    const request = server.requests[0]!;
    assertEquals([request.path, request.headers["x-api-key"], request.headers["anthropic-version"]], [
      "/v1/messages",
      KEY,
      "2023-06-01",
    ]);
    assertEquals(request.headers.authorization, undefined);
    assertEquals(request.body, {
      model: "claude-sonnet-4-5-20250929",
      messages: [{ role: "user", content: [{ type: "text", text: "List files." }] }],
      tools: [{
        name: "bash",
        input_schema: BASH.function.parameters,
        description: "Execute a bash command",
      }],
      system: [{ type: "text", text: "You are a test." }],
      max_tokens: 64000,
    } as Json);
    assertEquals(completion.message, {
      content: "Looking.",
      role: "assistant",
      tool_calls: [
        {
          index: 1,
          function: { arguments: '{"command": "ls -la"}', name: "bash" },
          id: "toolu_0_0",
          type: "function",
        },
        {
          index: 2,
          function: { arguments: '{"command": "echo \\u00e9"}', name: "bash" },
          id: "toolu_0_1",
          type: "function",
        },
      ] as Json,
      function_call: null,
    });
    assertEquals(completion.finish_reason, "tool_calls");
    const response = completion.response as Obj;
    assertEquals([response.id, response.object, response.model], [
      "msg_scripted_0",
      "chat.completion",
      "claude-sonnet-4-5-20250929",
    ]);
    assertEquals(field(response, "usage"), {
      completion_tokens: 5,
      prompt_tokens: server.cache[0]!.input_tokens,
      total_tokens: server.cache[0]!.input_tokens + 5,
      prompt_tokens_details: { cached_tokens: 0, cache_creation_tokens: 0 },
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });
});

/** Drive a ChatModel over `steps` steps of one command each, as the agent does. */
async function episode(model: ChatModel, steps: number): Promise<Message[]> {
  const messages: Message[] = [SYSTEM, TASK];
  for (let i = 0; i < steps; i++) {
    const reply = await model.query(messages);
    messages.push(reply);
    const outputs = reply.extra.actions.map((a) => ({
      output: `ran ${a.command}\n`.repeat(20),
      returncode: 0,
      exception_info: "",
    }));
    messages.push(...model.formatObservations(reply, outputs, {}));
  }
  return messages;
}

Deno.test("Claude over the native API gets cache hits exactly where upstream's set_cache_control puts its marker", async () => {
  const replies: ScriptReply[] = [
    { content: "one", commands: ["ls"] },
    { content: "two", commands: ["cat a", "cat b"] },
    { commands: ["pwd"] },
    { content: "four", commands: ["id"] },
  ];
  const prices = {
    input_cost_per_token: 3e-6,
    output_cost_per_token: 15e-6,
    cache_read_input_token_cost: 3e-7,
    cache_creation_input_token_cost: 3.75e-6,
  };
  await withAnthropic(replies, async (server) => {
    const { client } = anthropicSetup(server, { ...prices, cost_tracking: "default" });
    const model = new ChatModel({ set_cache_control: "default_end" }, client, "toolcall", "t");
    const messages = await episode(model, replies.length);
    for (const [i, use] of server.cache.entries()) {
      // One breakpoint, on the last block: the task, then the last observation (a tool_result).
      assertEquals(use.breakpoints, [use.blocks - 1], `request ${i}`);
      const last = (server.requests[i]!.body as Obj).messages as Obj[];
      const block = (last.at(-1)!.content as Obj[]).at(-1)!;
      assertEquals(block.cache_control, { type: "ephemeral" });
      assertEquals(block.type, i === 0 ? "text" : "tool_result");
    }
    assertEquals(server.cache[0]!.cache_read_input_tokens, 0);
    for (let i = 1; i < server.cache.length; i++) {
      const before = server.cache[i - 1]!;
      // What the previous request wrote is read back whole; only the new turn is written.
      assertEquals(
        server.cache[i]!.cache_read_input_tokens,
        before.cache_read_input_tokens + before.cache_creation_input_tokens,
      );
      assert(server.cache[i]!.cache_creation_input_tokens > 0);
      assertEquals(server.cache[i]!.input_tokens, 0);
    }
    // Cache reads and writes are priced at their own rates.
    const third = messages.filter((m) => m.role === "assistant")[2]!;
    const use = server.cache[2]!;
    const cost = use.cache_read_input_tokens * 3e-7 + use.cache_creation_input_tokens * 3.75e-6 + 5 * 15e-6;
    assert(Math.abs(third.extra.cost - cost) < 1e-12, `${third.extra.cost} != ${cost}`);
    assertEquals(
      field(third.extra.response, "usage") &&
        (field(third.extra.response, "usage") as Obj).prompt_tokens_details,
      {
        cached_tokens: use.cache_read_input_tokens,
        cache_creation_tokens: use.cache_creation_input_tokens,
      },
    );
  });
  await withAnthropic(replies, async (server) => {
    const { client } = anthropicSetup(server);
    const model = new ChatModel({ set_cache_control: null }, client, "toolcall", "t");
    await episode(model, replies.length);
    assertEquals(server.cache.map((u) => [u.breakpoints, u.cache_read_input_tokens]), Array(4).fill([[], 0]));
  });
});

Deno.test("reasoning_effort: a thinking budget as litellm maps it, thinking blocks sent back first; adaptive from Claude 4.6", async () => {
  const replies: ScriptReply[] = [
    { reasoning_content: "Let me think.", content: "ok", commands: ["ls"] },
    { commands: ["pwd"] },
  ];
  await withAnthropic(replies, async (server) => {
    const { client } = anthropicSetup(server, { model_kwargs: { reasoning_effort: "low" } });
    const model = new ChatModel({ set_cache_control: "default_end" }, client, "toolcall", "t");
    const messages = await episode(model, 2);
    const first = server.requests[0]!.body as Obj;
    assertEquals([first.thinking, first.max_tokens, first.reasoning_effort], [
      { type: "enabled", budget_tokens: 1024 },
      1024 + 4096,
      undefined,
    ]);
    const reply = messages[2]!;
    assertEquals([reply.reasoning_content, reply.thinking_blocks], ["Let me think.", [
      { type: "thinking", thinking: "Let me think.", signature: "sig-0" },
    ]]);
    // The server refuses a tool-using turn without its thinking block first while thinking is on.
    const second = (server.requests[1]!.body as Obj).messages as Obj[];
    assertEquals((second[1]!.content as Obj[]).map((b) => b.type), ["thinking", "text", "tool_use"]);
  });
  await withAnthropic([{ content: "hi" }, { content: "hi" }], async (server) => {
    await anthropicSetup(server, { model_name: "anthropic/claude-opus-4-6", reasoning_effort: "xhigh" })
      .client
      .complete({ messages: [TASK] });
    await anthropicSetup(server, {
      model_name: "claude-sonnet-4-6",
      model_kwargs: { reasoning_effort: "medium", max_tokens: 900 },
    })
      .client.complete({ messages: [TASK] });
    const [opus, sonnet] = server.requests.map((r) => r.body as Obj);
    assertEquals([opus!.thinking, opus!.output_config, opus!.max_tokens], [{ type: "adaptive" }, {
      effort: "max",
    }, 128000]);
    assertEquals([sonnet!.thinking, sonnet!.output_config, sonnet!.max_tokens], [{ type: "adaptive" }, {
      effort: "medium",
    }, 900]);
  });
});

Deno.test("AnthropicClient with model.stream saves the same message and response as without, showing the text as it arrives", async () => {
  const replies: ScriptReply[] = [
    {
      reasoning_content: "hmm",
      content: "Streaming ünïcødé 🙂 text in pieces.",
      commands: ["ls -la", "cat 'a b'"],
    },
    { content: "plain text" },
  ];
  const run = async (stream: boolean, sink?: (e: Json) => void) => {
    const out: Obj[] = [];
    await withAnthropic(replies, async (server) => {
      const { client } = anthropicSetup(server, { stream }, sink ? { onStream: sink } : {});
      for (const _ of replies) {
        const c = await client.complete({ messages: [TASK], tools: [BASH] });
        out.push({
          message: c.message as unknown as Json,
          finish: c.finish_reason,
          response: { ...(c.response as Obj), created: 0 },
        });
      }
      assertEquals(
        server.requests.map((r) => (r.body as Obj).stream),
        stream ? [true, true] : [undefined, undefined],
      );
    });
    return out;
  };
  const events: Json[] = [];
  const streamed = await run(true, (e) => events.push(e as unknown as Json));
  assertEquals(streamed, await run(false));
  const text = events.map((e) => field(e, "text") ?? "").join("");
  assertEquals(text, "Streaming ünïcødé 🙂 text in pieces.plain text");
  assertEquals(events.filter((e) => field(e, "type") === "start").length, 2);
});

Deno.test("AnthropicClient retries 529 overloaded and 429 honouring Retry-After, and drops, garbage, cut bodies", async () => {
  const overloaded = JSON.stringify({
    type: "error",
    error: { type: "overloaded_error", message: "Overloaded" },
  });
  await withAnthropic([
    { fault: "status", status: 529, body: overloaded, retry_after: 3 },
    { fault: "status", status: 429, retry_after: 2 },
    { fault: "status", status: 529, body: overloaded },
    { fault: "drop" },
    { fault: "garbage" },
    { fault: "truncate" },
    { commands: ["ls"] },
  ], async (server) => {
    const { client, sleeps, logs } = anthropicSetup(server);
    const { message } = await client.complete({ messages: [TASK], tools: [BASH] });
    assertEquals(message.tool_calls?.[0]?.function.arguments, '{"command": "ls"}');
    assertEquals(sleeps, [3000, 2000, 2000, 4000, 8000, 16000]);
    assertIncludes(logs[0] ?? "", "HTTP 529 from");
    assertIncludes(logs[0] ?? "", "Overloaded");
    assertEquals(logs.length, 6);
  });
});

Deno.test("AnthropicClient fails fast on 4xx with Anthropic's message, naming the key to check", async () => {
  await withAnthropic([
    {
      fault: "status",
      status: 400,
      body:
        '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}',
    },
    { content: "never" },
  ], async (server) => {
    const { client, sleeps } = anthropicSetup(server);
    const error = await assertRejects(() => client.complete({ messages: [TASK] }), ApiError);
    assertEquals(error.status, 400);
    assertIncludes(error.message, "prompt is too long: 210000 tokens > 200000 maximum");
    assertEquals([server.requests.length, sleeps], [1, []]);
  });
  await withAnthropic([{ content: "never" }], async (server) => {
    const { client } = anthropicSetup(server, {}, {
      env: { ANTHROPIC_API_KEY: "sk-ant-wrong-0123456789", ANTHROPIC_BASE_URL: server.url },
    });
    const error = await assertRejects(() => client.complete({ messages: [TASK] }), ApiError);
    assertEquals(error.status, 401);
    assertIncludes(error.message, "(check ANTHROPIC_API_KEY): invalid x-api-key");
    assert(!error.message.includes("sk-ant-wrong"), error.message);
  });
});

Deno.test("AnthropicClient retries an overloaded error event in the stream, and fails fast on an invalid-request one", async () => {
  const sse = (type: string) =>
    "event: message_start\ndata: " +
    JSON.stringify({ type: "message_start", message: { id: "m", content: [], usage: {} } }) +
    "\n\nevent: error\ndata: " +
    JSON.stringify({ type: "error", error: { type, message: `${type} mid-stream` } }) + "\n\n";
  const stream = (type: string): ScriptReply => ({
    fault: "status",
    status: 200,
    body: sse(type),
    headers: { "content-type": "text/event-stream" },
  });
  await withAnthropic(
    [stream("overloaded_error"), { content: "whole" }, stream("invalid_request_error")],
    async (server) => {
      const { client, logs } = anthropicSetup(server, { stream: true });
      assertEquals((await client.complete({ messages: [TASK] })).message.content, "whole");
      assertIncludes(logs[0] ?? "", "overloaded_error: overloaded_error mid-stream");
      const error = await assertRejects(() => client.complete({ messages: [TASK] }), ApiError);
      assertIncludes(error.message, "invalid_request_error mid-stream (code 400)");
    },
  );
});

Deno.test("AnthropicClient maps model_kwargs as litellm does and never sends litellm's own (the server refuses unknown fields)", async () => {
  await withAnthropic([{ content: "ok" }], async (server) => {
    const { client, logs } = anthropicSetup(server, {
      model_kwargs: {
        drop_params: true,
        allowed_openai_params: [],
        custom_llm_provider: "anthropic",
        num_retries: 3,
        timeout: 60,
        temperature: 0,
        top_k: 5,
        stop: "END",
        seed: 1,
        presence_penalty: 0.5,
        parallel_tool_calls: true,
        user: "team-a",
        max_completion_tokens: 2000,
        extra_headers: { Authorization: "Bearer proxy-token-0123", "anthropic-beta": "x-2025" },
        extra_body: { service_tier: "auto" },
      },
    });
    await client.complete({ messages: [TASK], tools: [BASH] });
    const { messages: _, tools: __, ...rest } = server.requests[0]!.body as Obj;
    assertEquals(rest, {
      model: "claude-sonnet-4-5-20250929",
      temperature: 0,
      top_k: 5,
      stop_sequences: ["END"],
      metadata: { user_id: "team-a" },
      tool_choice: { type: "auto", disable_parallel_tool_use: false },
      max_tokens: 2000,
      service_tier: "auto",
    });
    const headers = server.requests[0]!.headers;
    assertEquals([headers["x-api-key"], headers.authorization, headers["anthropic-beta"]], [
      KEY,
      "Bearer proxy-token-0123",
      "x-2025",
    ]);
    assertEquals(logs, [
      "warning: ignoring litellm-only model.model_kwargs keys: num_retries",
      "note: drop_params: not sending seed, presence_penalty (Anthropic's Messages API does not take them)",
    ]);
  });
});

Deno.test("AnthropicClient sends ANTHROPIC_AUTH_TOKEN as a bearer token when no key is set, as litellm does", async () => {
  await withAnthropic([{ content: "never" }], async (server) => {
    const { client } = anthropicSetup(server, {}, {
      env: { ANTHROPIC_AUTH_TOKEN: "oauth-token-0123456789", ANTHROPIC_BASE_URL: server.url },
    });
    const error = await assertRejects(() => client.complete({ messages: [TASK] }), ApiError);
    const headers = server.requests[0]!.headers;
    assertEquals([headers.authorization, headers["x-api-key"]], ["Bearer oauth-token-0123456789", undefined]);
    assertIncludes(error.message, "check ANTHROPIC_AUTH_TOKEN");
    assert(!error.message.includes("oauth-token-0123456789"), error.message);
  });
});

Deno.test("AnthropicClient refuses an OpenAI-only parameter without drop_params, and an effort with no counterpart", () => {
  const server = { url: "http://127.0.0.1:9" };
  assertThrows(
    () => anthropicSetup(server, { model_kwargs: { seed: 1 } }),
    ConfigError,
    "model.model_kwargs.seed: Anthropic's Messages API does not take it; remove it, or set model.model_kwargs.drop_params: true",
  );
  assertThrows(
    () => anthropicSetup(server, { reasoning_effort: "xhigh" }),
    ConfigError,
    'reasoning_effort "xhigh" has no Anthropic counterpart',
  );
});

Deno.test("AnthropicClient in text mode (litellm_textbased): no tools, the replies as text turns, a format error's re-prompt merged", async () => {
  await withAnthropic(
    [{ content: "```mswea_bash_command\nls\n```" }, { content: "done" }],
    async (server) => {
      const { client } = anthropicSetup(server);
      const history: WireMessage[] = [SYSTEM, TASK];
      history.push((await client.complete({ messages: history })).message);
      history.push({ role: "user", content: "<output>file</output>" }, {
        role: "user",
        content: "Format error.",
      });
      history.push({ role: "assistant", content: null }, { role: "user", content: "Go on." });
      await client.complete({ messages: history });
      const body = server.requests[1]!.body as Obj;
      assertEquals(body.tools, undefined);
      assertEquals(body.messages, [
        { role: "user", content: [{ type: "text", text: "List files." }] },
        { role: "assistant", content: [{ type: "text", text: "```mswea_bash_command\nls\n```" }] },
        {
          role: "user",
          content: [
            { type: "text", text: "<output>file</output>" },
            { type: "text", text: "Format error." },
          ],
        },
        // The empty assistant reply is left out; the server reads the two user turns as one, as the API does.
        { role: "user", content: [{ type: "text", text: "Go on." }] },
      ] as Json);
    },
  );
});
