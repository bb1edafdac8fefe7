/**
 * The Responses API model classes against the loopback server's `/responses`: stateless requests
 * carrying earlier output items (reasoning included), upstream's finish_reason, and the transport's
 * retries on the same faults as chat completions.
 */
import { assert, assertEquals, assertRejects } from "../../_support/assert.ts";
import { ApiError, FormatError } from "../../../src/core/errors.ts";
import { makeModel } from "../../../src/core/models/classes.ts";
import { episodeDeps } from "../../_support/episode.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import type { Json, Message, Model } from "../../../src/core/types.ts";
import { type FakeServer, startFakeServer } from "../../_support/fake_server.ts";

async function withModel(
  replies: ScriptReply[],
  model_class: string,
  fn: (model: Model, server: FakeServer, logs: string[]) => Promise<void>,
  config: Record<string, unknown> = {},
) {
  const server = await startFakeServer(replies);
  const logs: string[] = [];
  try {
    const model = await makeModel(
      {
        model_class,
        model_name: "my-model",
        base_url: server.url,
        format_error_template: "{{ error }} ({{ finish_reason }})",
        retry_base_delay: 0,
        cost_tracking: "ignore_errors",
        ...config,
      },
      0,
      episodeDeps({ log: (l) => void logs.push(l), cwd: "/" }),
    );
    await fn(model, server, logs);
  } finally {
    await server.close();
  }
}

const input = (server: FakeServer, i: number) => (server.requests[i]!.body as { input: Json[] }).input;

Deno.test("openai_response sends stateless /responses requests with the flat bash tool", async () => {
  await withModel(
    [
      { content: "looking", reasoning_content: "think first", commands: ["ls", "pwd"], cost: 0.5 },
      { commands: ["echo done"] },
    ],
    "openai_response",
    async (model, server) => {
      const messages: Message[] = [
        model.formatMessage!("system", "sys"),
        model.formatMessage!("user", "task"),
      ];
      const first = await model.query(messages);
      assertEquals(first.extra?.actions, [{ command: "ls", tool_call_id: "call_0_0" }, {
        command: "pwd",
        tool_call_id: "call_0_1",
      }]);
      assertEquals(first.extra?.cost, 0.5);
      assertEquals(server.requests[0]!.path, "/v1/responses");
      const body = server.requests[0]!.body as Record<string, Json>;
      assertEquals(Object.keys(body), ["model", "input", "tools"]);
      assertEquals((body.tools as Json[])[0], {
        type: "function",
        name: "bash",
        description: "Execute a bash command",
        parameters: {
          type: "object",
          properties: { command: { type: "string", description: "The bash command to execute" } },
          required: ["command"],
        },
      });
      const outputs = model.formatObservations(
        first,
        [{ output: "a\n", returncode: 0, exception_info: "" }],
        {},
      );
      assertEquals(outputs.map((o) => [o.type, o.call_id]), [["function_call_output", "call_0_0"], [
        "function_call_output",
        "call_0_1",
      ]]);
      assertEquals(outputs[1]!.extra?.exception_info, "action was not executed");
      await model.query([...messages, first, ...outputs]);
      // The earlier response comes back as its output items, the reasoning item first; no `extra`.
      const second = input(server, 1);
      assertEquals(second.map((i) => (i as Record<string, Json>).type ?? (i as Record<string, Json>).role), [
        "system",
        "user",
        "reasoning",
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
      ]);
      assert(!JSON.stringify(second).includes('"extra"'));
    },
  );
});

Deno.test("openrouter_response types its first messages and names a truncation finish_reason length", async () => {
  await withModel(
    [{ content: "cut off", finish_reason: "length" }],
    "openrouter_response",
    async (model, server) => {
      const system = model.formatMessage!("system", "sys");
      assertEquals(system as unknown, {
        type: "message",
        role: "system",
        content: [{ type: "input_text", text: "sys" }],
      });
      const error = await assertRejects(() => model.query([system]), FormatError);
      const message = error.messages[0]!;
      assertEquals(
        (message.content as unknown as { text: string }[])[0]!.text,
        "No tool calls found in the " +
          "response. Every response MUST include at least one tool call. (length)",
      );
      assertEquals(message.extra?.interrupt_type, "FormatError");
      assertEquals((message.extra?.response as Record<string, Json>).status, "incomplete");
      // Upstream's OpenRouter Responses payload: no `usage.include` field, the name without its prefix.
      const body = server.requests[0]!.body as Record<string, Json>;
      assertEquals([Object.keys(body), body.model], [["model", "input", "tools"], "my-model"]);
    },
  );
});

Deno.test("litellm_response retries /responses faults as chat does, and fails fast on 401", async () => {
  await withModel(
    [
      { fault: "status", status: 429, retry_after: 0 },
      { fault: "drop" },
      { fault: "garbage" },
      { fault: "truncate" },
      { fault: "status", status: 503 },
      { commands: ["ls"] },
      { fault: "status", status: 401 },
    ],
    "litellm_response",
    async (model, server, logs) => {
      const m = await model.query([{ role: "user", content: "go" }]);
      assertEquals(m.extra?.actions, [{ command: "ls", tool_call_id: "call_5_0" }]);
      assertEquals(server.requests.length, 6);
      assertEquals(logs.filter((l) => l.startsWith("Retrying")).length, 5);
      await assertRejects(() => model.query([{ role: "user", content: "go" }]), ApiError, "HTTP 401");
    },
  );
});

Deno.test("openai_response: a 200 whose status is failed is one paid format error, not retried, as upstream through litellm", async () => {
  const failed = {
    id: "resp_1",
    object: "response",
    created_at: 1,
    model: "my-model",
    status: "failed",
    error: { code: "server_error", message: "The model failed to answer" },
    output: [],
    usage: { input_tokens: 100, output_tokens: 0, total_tokens: 100 },
  };
  await withModel(
    [{ fault: "status", status: 200, body: JSON.stringify(failed) }, { commands: ["echo never"] }],
    "openai_response",
    async (model, server) => {
      const messages: Message[] = [
        model.formatMessage!("system", "sys"),
        model.formatMessage!("user", "task"),
      ];
      // litellm returns the response as it is (no exception for its status); upstream's parse of its
      // output finds no bash call: a format error, its usage paid.
      const err = await assertRejects(() => model.query(messages), FormatError);
      assertEquals(server.requests.length, 1);
      const extra = err.messages[0]?.extra ?? {};
      assertEquals((extra.response as { status?: string }).status, "failed");
      assert("cost" in extra, JSON.stringify(extra));
    },
    { input_cost_per_token: 1e-6, output_cost_per_token: 1e-6, cost_tracking: "default" },
  );
});
