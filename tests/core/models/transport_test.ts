/**
 * One HTTP exchange and its retries (src/core/models/_transport.ts, extra/_retry.ts), through the client against
 * the loopback server with injected faults.
 */
import { assert, assertEquals, assertRejects } from "../../_support/assert.ts";
import { ApiError } from "../../../src/core/errors.ts";
import type { OpenAIClientConfig } from "../../../src/core/models/_keys.ts";
import { abortableSleep } from "../../../src/core/models/extra/_retry.ts";
import { type ScriptReply, toCompletionBody } from "../../../src/core/models/extra/_script.ts";
import type { ChatRequest, Json } from "../../../src/core/types.ts";
import { startFakeServer } from "../../_support/fake_server.ts";
import { assertIncludes, field, KEY, REQUEST, setup, withServer } from "./_client.ts";

Deno.test("OpenAIClient.complete() fails at once on 401, naming the variable to set", async () => {
  await withServer([{ fault: "status", status: 401 }, { content: "never" }], async (server) => {
    const { client, sleeps } = setup(server, { model_name: "openai/gpt-x" });
    const error = await assertRejects(() => client.complete(REQUEST), ApiError);
    assertEquals(
      error.message,
      `Cannot query model: HTTP 401 from ${server.url} (set OPENAI_API_KEY): scripted HTTP 401`,
    );
    assertEquals(server.requests.length, 1);
    assertEquals(sleeps, []);
  });
});

Deno.test("OpenAIClient.complete() fails at once on 400 with the provider's message", async () => {
  const body = JSON.stringify({
    error: { message: "This model's maximum context length is 8192 tokens.\nReduce it." },
  });
  await withServer([{ fault: "status", status: 400, body }, { content: "never" }], async (server) => {
    const { client } = setup(server);
    const error = await assertRejects(() => client.complete(REQUEST), ApiError);
    assertEquals(error.status, 400);
    assertIncludes(error.message, "HTTP 400");
    assertIncludes(error.message, "maximum context length is 8192 tokens. Reduce it.");
    assertEquals(server.requests.length, 1);
  });
});

Deno.test("OpenAIClient.complete() honours Retry-After on 429 (seconds, capped, or an HTTP date)", async () => {
  const date = new Date(Date.now() + 30_000).toUTCString();
  const replies: ScriptReply[] = [
    { fault: "status", status: 429, retry_after: 7 },
    { fault: "status", status: 429, retry_after: 3600 },
    { fault: "status", status: 503, retry_after: date },
    { content: "ok" },
  ];
  await withServer(replies, async (server) => {
    const { client, sleeps, logs } = setup(server);
    assertEquals((await client.complete(REQUEST)).message.content, "ok");
    assertEquals(sleeps.slice(0, 2), [7000, 60_000]);
    assert(sleeps[2]! > 20_000 && sleeps[2]! <= 30_000, String(sleeps[2]));
    assertEquals(logs.length, 3);
    assertIncludes(logs[0] ?? "", "Retry-After");
    assertIncludes(logs[0] ?? "", "attempt 2/10");
  });
});

Deno.test("OpenAIClient.complete() backs off exponentially with jitter on 500 and 503", async () => {
  await withServer([
    { fault: "status", status: 500 },
    { fault: "status", status: 503 },
    { fault: "status", status: 502 },
    { content: "ok" },
  ], async (server) => {
    const { client, sleeps } = setup(server, { retry_base_delay: 2, retry_max_delay: 3 });
    assertEquals((await client.complete(REQUEST)).message.content, "ok");
    assertEquals(sleeps, [1000, 1500, 1500]); // random() = 0.5 of min(3 s, 2 s * 2^(n-1))
    assertEquals(server.requests.length, 4);
  });
});

for (
  const [name, fault] of [
    ["a dropped connection", { fault: "drop" }],
    ["a non-JSON body", { fault: "garbage" }],
    ["a truncated body", { fault: "truncate" }],
    ["a request stalled past request_timeout", { fault: "stall", seconds: 5 }],
    ["a body without choices", { fault: "status", status: 200, body: '{"error": {"message": "upstream"}}' }],
  ] as [string, ScriptReply][]
) {
  Deno.test(`OpenAIClient.complete() retries after ${name}`, async () => {
    await withServer([fault, { content: "ok" }], async (server) => {
      const { client, logs } = setup(server, { request_timeout: 0.3 });
      const started = performance.now();
      assertEquals((await client.complete(REQUEST)).message.content, "ok");
      assert(performance.now() - started < 3000);
      assertEquals(server.requests.length, 2);
      assertEquals(logs.length, 1, logs.join("\n"));
    });
  });
}

Deno.test("OpenAIClient.complete() gives up with ApiError when attempts run out", async () => {
  await withServer(
    [{ fault: "status", status: 500 }, { fault: "drop" }, { fault: "status", status: 529 }],
    async (server) => {
      const { client, logs } = setup(server, { retry_attempts: 3 });
      const error = await assertRejects(() => client.complete(REQUEST), ApiError);
      assertEquals(error.status, 529);
      assertIncludes(error.message, "giving up after 3 attempts");
      assertEquals(server.requests.length, 3);
      assertEquals(logs.length, 2);
    },
  );
});

Deno.test("OpenAIClient.complete() names the URL and what to check on every retry line and when it gives up", async () => {
  await withServer([{ fault: "status", status: 503 }, { fault: "status", status: 429 }], async (server) => {
    const { client, logs } = setup(server, { retry_attempts: 2 });
    const error = await assertRejects(() => client.complete(REQUEST), ApiError);
    const url = `${server.url}/chat/completions`;
    assertEquals(logs, [
      `Retrying model query to ${url} in 0.50 s, attempt 2/2: HTTP 503 from ${url}: scripted HTTP 503; the ` +
      "server's side: check the provider's status, or retry later",
    ]);
    assertIncludes(error.message, `giving up after 2 attempts to ${url}: HTTP 429 from ${url}`);
    assertIncludes(error.message, "; check the account's rate limits (fewer batch --workers help)");
  });
});

Deno.test("OpenAIClient.complete() stops within 3 attempts when its first request finds no server, and retries in full once one answered", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const base = `http://127.0.0.1:${port}/v1`;
  const fresh = setup({ url: base } as Parameters<typeof setup>[0]);
  const first = await assertRejects(() => fresh.client.complete(REQUEST), ApiError);
  assertEquals(fresh.logs.length, 2);
  assertIncludes(
    fresh.logs[0]!,
    `to ${base}/chat/completions in 0.50 s, attempt 2/3: network error: connection`,
  );
  assertIncludes(
    first.message,
    `giving up after 3 attempts (a first request that finds no server) to ${base}/chat/completions: network ` +
      `error: connection refused; check that a server listens at 127.0.0.1:${port} (from model.base_url or ` +
      "--base-url)",
  );
  // An endpoint that has answered once and then goes away (a restart) gets every attempt.
  const server = await startFakeServer([{ content: "one" }]);
  const { client, logs } = setup(server, { retry_attempts: 5 });
  await client.complete(REQUEST);
  await server.close();
  const later = await assertRejects(() => client.complete(REQUEST), ApiError);
  assertEquals(logs.length, 4);
  assertIncludes(later.message, "giving up after 5 attempts to");
});

Deno.test("OpenAIClient.complete() rejects with the abort reason promptly during a backoff or a request", async () => {
  await withServer([{ fault: "status", status: 500 }, { fault: "stall", seconds: 30 }], async (server) => {
    const { client } = setup(server, { retry_base_delay: 30 }, { sleep: abortableSleep, random: () => 1 });
    for (const delay of [100, 100]) {
      const reason = new Error("stop");
      const started = performance.now();
      const error = await assertRejects(() => client.complete(REQUEST, AbortSignal.abort(reason)), Error);
      assert(error === reason);
      const controller = new AbortController();
      setTimeout(() => controller.abort(reason), delay);
      const caught = await assertRejects(() => client.complete(REQUEST, controller.signal), Error);
      assert(caught === reason, String(caught));
      assert(performance.now() - started < 1000);
    }
    assertEquals(server.requests.length, 2); // the first attempt, then the stalled one
  });
});

Deno.test("OpenAIClient sends every body with a Content-Length, which a server reading nothing else reads whole", async () => {
  // A history past the 64 KiB at which older messages are sealed into shared parts, multi-byte text included.
  const steps = 40;
  const server = await startFakeServer(Array.from({ length: steps }, () => ({ content: "ok" })), {
    lengthOnly: true,
  });
  try {
    const { client } = setup(server);
    const messages: ChatRequest["messages"] = [...REQUEST.messages];
    for (let i = 0; i < steps; i++) {
      assertEquals((await client.complete({ ...REQUEST, messages })).message.content, "ok");
      messages.push({ role: "assistant", content: "ok" }, {
        role: "user",
        content: `é 中 ${i} `.repeat(600),
      });
    }
    assertEquals(server.requests.length, steps);
    server.requests.forEach((r, i) => {
      assertEquals(r.headers["transfer-encoding"], undefined);
      assertEquals(r.headers["content-length"], String(new TextEncoder().encode(r.raw).length));
      assertEquals(field(r.body, "messages"), messages.slice(0, 2 + 2 * i), `request ${i}`);
    });
    assert(server.requests.at(-1)!.raw.length > 128 * 1024, "the history never grew past two sealed parts");
  } finally {
    await server.close();
  }
});

Deno.test("OpenAIClient.complete() retries a provider error sent with 200 only when its code is transient", async () => {
  const error = (code: number) => ({
    fault: "status" as const,
    status: 200,
    body: JSON.stringify({ error: { message: `upstream said ${code}`, code } }),
  });
  await withServer([error(503), { content: "ok" }], async (server) => {
    const { client } = setup(server);
    assertEquals((await client.complete(REQUEST)).message.content, "ok");
    assertEquals(server.requests.length, 2);
  });
  await withServer([error(400), { content: "never" }], async (server) => {
    const { client } = setup(server);
    const e = await assertRejects(() => client.complete(REQUEST), ApiError);
    assertEquals([e.status, e.message], [
      400,
      "Cannot query model: provider error in a 200 body: upstream said 400 (code 400)",
    ]);
    assertEquals(server.requests.length, 1);
  });
});

Deno.test("OpenAIClient.complete() never retries a served completion, whatever its shape", async () => {
  const served = (message: unknown): ScriptReply => ({
    fault: "status",
    status: 200,
    body: JSON.stringify({ choices: [{ message, finish_reason: "stop" }], usage: { cost: 0.5 } }),
  });
  await withServer(
    [served({ role: "assistant", content: { a: 1 } }), { content: "never" }],
    async (server) => {
      const { client } = setup(server);
      const c = await client.complete(REQUEST);
      assertEquals([c.cost, c.problem], [
        0.5,
        "The response's message content is neither text nor a list of text parts.",
      ]);
      assertEquals(server.requests.length, 1);
    },
  );
});

Deno.test("OpenAIClient reads NaN and Infinity in a served body as Python's json does, never buying it twice", async () => {
  const message = '{"role": "assistant", "content": "ok"}';
  const logprobs = '{"content": [{"token": "ok", "logprob": -Infinity, "top": [NaN, Infinity]}]}';
  const chat = `{"choices": [{"message": ${message}, "finish_reason": "stop", "logprobs": ${logprobs}}], ` +
    `"usage": {"prompt_tokens": 3, "completion_tokens": 1, "cost": NaN}}`;
  const events = [
    `{"choices": [{"index": 0, "delta": ${message}, "finish_reason": null, "logprobs": ${logprobs}}]}`,
    `{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}`,
    "[DONE]",
  ];
  const sse = events.map((e) => `data: ${e}\n\n`).join("");
  const responses = '{"object": "response", "status": "completed", "output": [], ' +
    '"usage": {"input_tokens": 3, "output_tokens": NaN}}';
  await withServer([
    { fault: "status", status: 200, body: chat },
    { fault: "status", status: 200, body: sse, headers: { "content-type": "text/event-stream" } },
    { fault: "status", status: 200, body: responses },
    { content: "never" },
  ], async (server) => {
    const { client, logs } = setup(server, { input_cost_per_token: 0.25, output_cost_per_token: 0.5 });
    const completion = await client.complete(REQUEST);
    assertEquals(completion.message.content, "ok");
    const choice = field(completion.response, "choices") as Json[];
    assertEquals(field(field(choice[0], "logprobs"), "content"), [{
      token: "ok",
      logprob: -Infinity,
      top: [NaN, Infinity],
    }]);
    assertEquals(completion.cost, 1.25); // usage.cost NaN is no cost: the prices price the tokens
    const streamed = setup(server, { stream: true }).client;
    assertEquals((await streamed.complete(REQUEST)).message.content, "ok");
    const response = await client.respond({ input: [], tools: [] });
    assertEquals([response.body.status, response.cost], ["completed", 0]);
    assertEquals(server.requests.length, 3);
    assertEquals(logs, []);
  });
});

Deno.test("OpenAIClient: request_timeout 0 is no deadline, and long durations are capped instead of firing at once", async () => {
  const slow = { onRequest: () => new Promise<void>((r) => setTimeout(r, 150)) };
  for (const config of [{ request_timeout: 0 }, { model_kwargs: { timeout: 0 } }, { request_timeout: 1e8 }]) {
    const server = await startFakeServer([{ content: "ok" }], slow);
    try {
      const { client, logs } = setup(server, config);
      assertEquals((await client.complete(REQUEST)).message.content, "ok", JSON.stringify(config));
      assertEquals([server.requests.length, logs], [1, []]);
    } finally {
      await server.close();
    }
  }
  // A backoff of ~35 days (over 2^31-1 ms) waits (until aborted) rather than retrying at once.
  await withServer([{ fault: "status", status: 500 }, { content: "too early" }], async (server) => {
    const { client } = setup(server, { retry_base_delay: 3e6, retry_max_delay: 3e6 }, {
      sleep: abortableSleep,
      random: () => 1,
    });
    const error = await assertRejects(() => client.complete(REQUEST, AbortSignal.timeout(300)), Error);
    assertEquals([error.name, server.requests.length], ["TimeoutError", 1]);
  });
});

Deno.test("OpenAIClient resends a request once, whole, to a same-origin 307/308 location, and never loops", async () => {
  const redirect = (status: number, location: string): ScriptReply => ({
    fault: "status",
    status,
    headers: { location },
  });
  await withServer([
    redirect(307, "/v1/chat/completions/"),
    { content: "one" },
    redirect(308, "/v1/chat/completions/"),
    redirect(308, "/v1/chat/completions/"),
    { content: "never" },
  ], async (server) => {
    const { client, logs, sleeps } = setup(server, { api_key_env: "TEST_KEY" }, { env: { TEST_KEY: KEY } });
    assertEquals((await client.complete(REQUEST)).message.content, "one");
    const [first, second] = server.requests;
    assertEquals([first?.path, second?.path], ["/v1/chat/completions", "/v1/chat/completions/"]);
    assertEquals([second?.method, second?.raw, second?.headers.authorization], [
      "POST",
      first?.raw,
      `Bearer ${KEY}`,
    ]);
    const error = await assertRejects(() => client.complete(REQUEST), ApiError);
    assertEquals(error.status, 308);
    assertIncludes(error.message, "redirected again");
    assertEquals([server.requests.length, logs, sleeps], [4, [], []]);
  });
});

Deno.test("OpenAIClient refuses 301/302/303 and other-origin redirects at once, naming the new base_url", async () => {
  const elsewhere = await startFakeServer([{ content: "never" }]);
  try {
    for (const status of [301, 302, 303]) {
      await withServer([
        { fault: "status", status, headers: { location: "/v2/chat/completions?api-version=2" } },
        { content: "never" },
      ], async (server) => {
        const { client, sleeps } = setup(server);
        const error = await assertRejects(() => client.complete(REQUEST), ApiError);
        const base = `${new URL(server.url).origin}/v2?api-version=2`;
        assertEquals(error.status, status);
        assertIncludes(error.message, `HTTP ${status} from ${server.url}/chat/completions redirects to`);
        assertIncludes(error.message, `set model.base_url to ${base}`);
        assertEquals([server.requests.length, sleeps], [1, []]);
      });
    }
    const location = `${elsewhere.url}/chat/completions`;
    await withServer([{ fault: "status", status: 307, headers: { location } }], async (server) => {
      const { client } = setup(server, { api_key_env: "TEST_KEY" }, { env: { TEST_KEY: KEY } });
      const error = await assertRejects(() => client.complete(REQUEST), ApiError);
      assertIncludes(error.message, `set model.base_url to ${elsewhere.url}`);
      assertEquals([server.requests.length, elsewhere.requests.length], [1, 0]);
    });
  } finally {
    await elsewhere.close();
  }
});

Deno.test("OpenAIClient.complete() honours retry-after-ms before Retry-After, capped like it", async () => {
  const replies: ScriptReply[] = [
    { fault: "status", status: 429, retry_after: 30, headers: { "retry-after-ms": "250" } },
    { fault: "status", status: 503, headers: { "retry-after-ms": "7200000" } },
    { fault: "status", status: 429, retry_after: 4, headers: { "retry-after-ms": "soon" } },
    { content: "ok" },
  ];
  await withServer(replies, async (server) => {
    const { client, sleeps, logs } = setup(server);
    assertEquals((await client.complete(REQUEST)).message.content, "ok");
    assertEquals(sleeps, [250, 60_000, 4000]);
    assertIncludes(logs[0] ?? "", "server asked for 0.25 s via retry-after-ms");
    assertIncludes(logs[2] ?? "", "via Retry-After");
  });
});

Deno.test("OpenAIClient.complete() backs off normally when Retry-After asks for no wait (-1, 0, garbage, a past date)", async () => {
  const past = new Date(Date.now() - 60_000).toUTCString();
  const replies: ScriptReply[] = [
    { fault: "status", status: 429, retry_after: -1 },
    { fault: "status", status: 429, retry_after: 0, headers: { "retry-after-ms": "0" } },
    { fault: "status", status: 503, retry_after: "soon" },
    { fault: "status", status: 529, retry_after: past },
    { fault: "status", status: 429, retry_after: "7" },
    { content: "ok" },
  ];
  await withServer(replies, async (server) => {
    const { client, sleeps, logs } = setup(server);
    assertEquals((await client.complete(REQUEST)).message.content, "ok");
    // random() = 0.5 of 1 s * 2^(n-1); only the last, a real delay, is the server's.
    assertEquals(sleeps, [500, 1000, 2000, 4000, 7000]);
    assertEquals(logs.filter((l) => l.includes("server asked")).length, 1);
  });
});

Deno.test("OpenAIClient fails at once, never buying it again, on a response body over 64 MiB", async () => {
  const content = "x".repeat(64 * 1024 * 1024);
  const message = { role: "assistant", content };
  const chat = JSON.stringify({ choices: [{ message, finish_reason: "stop" }] });
  const sse = `data: ${
    JSON.stringify({ choices: [{ index: 0, delta: message, finish_reason: "stop" }] })
  }\n\n`;
  const chunked = { "transfer-encoding": "chunked" };
  const cases: [string, ScriptReply, Partial<OpenAIClientConfig>, string][] = [
    ["with a length", { fault: "status", status: 200, body: chat }, {}, `is ${chat.length} bytes`],
    ["chunked", { fault: "status", status: 200, body: chat, headers: chunked }, {}, "is at least"],
    [
      "streamed",
      {
        fault: "status",
        status: 200,
        body: sse,
        headers: { ...chunked, "content-type": "text/event-stream" },
      },
      { stream: true },
      "is at least",
    ],
  ];
  for (const [name, reply, config, size] of cases) {
    await withServer([reply, { content: "never" }], async (server) => {
      const { client, sleeps } = setup(server, config);
      const error = await assertRejects(() => client.complete(REQUEST), ApiError);
      assertIncludes(error.message, `response body from ${server.url}/chat/completions ${size}`);
      assertIncludes(error.message, "64 MiB");
      assertEquals([server.requests.length, sleeps], [1, []], name);
    });
  }
});

Deno.test("OpenAIClient reads deflate bodies (zlib and raw), and names the encoding when a body cannot be decoded", async () => {
  const completion = JSON.stringify(toCompletionBody({ content: "inflated", commands: ["ls"] }, 0, "m"));
  const compress = async (format: CompressionFormat) =>
    new Uint8Array(
      await new Response(new Blob([completion]).stream().pipeThrough(new CompressionStream(format)))
        .arrayBuffer(),
    );
  const answers: [string, Uint8Array<ArrayBuffer> | string][] = [
    ["deflate", await compress("deflate")],
    ["deflate", await compress("deflate-raw")],
    ["gzip", "this is not gzip"],
    ["deflate", "nor is this deflate"],
    ["zstd", completion],
  ];
  let served = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    await request.text();
    const [encoding, body] = answers[served++] ?? ["identity", "{}"];
    return new Response(body, {
      headers: { "content-encoding": encoding, "content-type": "application/json" },
    });
  });
  try {
    const base = `http://127.0.0.1:${server.addr.port}/v1`;
    const { client, logs } = setup({
      url: base,
      requests: [],
      responseSentAt: [],
      close: () => Promise.resolve(),
    }, {
      retry_attempts: 1,
    });
    assertEquals((await client.complete(REQUEST)).message.content, "inflated");
    assertEquals((await client.complete(REQUEST)).message.content, "inflated");
    for (const encoding of ["gzip", "deflate"]) {
      const error = await assertRejects(() => client.complete(REQUEST), ApiError);
      assertIncludes(error.message, `Cannot decode the ${encoding}-encoded response body from ${base}`);
      assertIncludes(error.message, "giving up after 1 attempt"); // a transient failure, retried
    }
    const zstd = await assertRejects(() => client.complete(REQUEST), ApiError);
    assertIncludes(zstd.message, "it is zstd-encoded, which claudius does not decode");
    assert(!zstd.message.includes("giving up"), zstd.message);
    assertEquals(logs, []);
  } finally {
    await server.shutdown();
  }
});
