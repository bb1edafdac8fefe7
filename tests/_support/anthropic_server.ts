/**
 * A loopback server speaking Anthropic's Messages API as documented (`POST /v1/messages`, headers
 * `x-api-key` and `anthropic-version`, error objects `{"type": "error", "error": {"type", "message"}}`,
 * server-sent events `message_start`, `content_block_start`/`_delta`/`_stop`, `message_delta`,
 * `message_stop`, `ping`), playing a script (see `src/core/models/extra/_script.ts`), faults included. It is
 * strict where the API is: unknown fields are refused (so a litellm-only parameter sent on the wire
 * fails), the first turn is the user's, every `tool_use` needs its `tool_result` right after, at most four
 * cache breakpoints, a thinking budget below `max_tokens`, thinking blocks first in a tool-using turn
 * while thinking is on. Prompt caching works as the documentation describes it: a `cache_control`
 * breakpoint writes the prefix up to its block; a later request reads the longest prefix written
 * before that ends at a block boundary within the 20 blocks before one of its breakpoints. Tokens are
 * the canonical JSON's bytes / 4, rounded up, per block.
 *
 * @module
 */
import {
  isFault,
  loadScript,
  type ScriptFault,
  type ScriptMessageReply,
  type ScriptReply,
} from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";
import { concat, type RecordedRequest, RequestReader, response, write } from "./fake_server.ts";
import { anthropicErrorBody, type CacheUsage, invalidRequest, PromptCache } from "./anthropic_api.ts";

export { anthropicErrorBody, type CacheUsage } from "./anthropic_api.ts";

/** A running Anthropic loopback server. */
export interface AnthropicServer {
  /** Base URL without `/v1` (as Anthropic's own `https://api.anthropic.com`). */
  url: string;
  requests: RecordedRequest[];
  /** Per answered request: what the cache did. */
  cache: CacheUsage[];
  /** `performance.now()` when each request's answer was written (index of `requests`). */
  responseSentAt: number[];
  close(): Promise<void>;
}

/** Options of {@link startAnthropicServer}. */
export interface AnthropicServerOptions {
  /** The `x-api-key` to require (absent: any key, but one must be sent). */
  key?: string;
  /** Streamed replies: pause this long between events (ms). */
  streamDelayMs?: number;
  /** Keep each request's body in `requests` (default true; a long benchmark drops them). */
  keepBodies?: boolean;
  /**
   * Answer without checking the request or simulating the cache (usage then counts no cache): a
   * benchmark measures the client, not this server's work and garbage, which share its thread.
   */
  lean?: boolean;
  /**
   * `GET /v1/models` lists these, as the API documents it (`{data: [{type, id, display_name,
   * created_at}], has_more, first_id, last_id}`, the key and version checked); without, a 404.
   */
  models?: readonly string[];
}

type Obj = { [key: string]: Json };
const encoder = new TextEncoder();
const LEAN_USAGE: CacheUsage = {
  input_tokens: 10,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  breakpoints: [],
  blocks: 0,
};

/** The Messages API answer to a scripted reply. */
export function toAnthropicMessage(reply: ScriptMessageReply, index: number, model: string, usage: Obj): Obj {
  const content: Obj[] = [];
  if (typeof reply.reasoning_content === "string") {
    content.push({ type: "thinking", thinking: reply.reasoning_content, signature: `sig-${index}` });
  }
  if (typeof reply.content === "string" && reply.content !== "") {
    content.push({ type: "text", text: reply.content });
  }
  (reply.commands ?? []).forEach((command, j) => {
    content.push({ type: "tool_use", id: `toolu_${index}_${j}`, name: "bash", input: { command } });
  });
  for (const call of reply.tool_calls ?? []) {
    const fn = isObj(call) && isObj(call.function) ? call.function : {};
    content.push({
      type: "tool_use",
      id: isObj(call) ? call.id ?? `toolu_${index}` : `toolu_${index}`,
      name: fn.name ?? "bash",
      input: JSON.parse(String(fn.arguments ?? "{}")),
    });
  }
  const stop = reply.finish_reason === "length"
    ? "max_tokens"
    : content.some((b) => b.type === "tool_use")
    ? "tool_use"
    : "end_turn";
  const output = reply.usage?.completion_tokens ?? 5;
  return {
    id: `msg_scripted_${index}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { ...usage, output_tokens: output },
  };
}

/** The events a streamed answer is made of, as `event:`/`data:` pairs. */
export function toAnthropicEvents(message: Obj): [string, Obj][] {
  const pieces = (text: string, size: number) => {
    const chars = [...text];
    const out: string[] = [];
    for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
    return out;
  };
  const usage = isObj(message.usage) ? message.usage : {};
  const events: [string, Obj][] = [[
    "message_start",
    {
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    },
  ]];
  const blocks = Array.isArray(message.content) ? message.content.filter(isObj) : [];
  blocks.forEach((block, index) => {
    const start = block.type === "tool_use"
      ? { ...block, input: {} }
      : block.type === "thinking"
      ? { type: "thinking", thinking: "", signature: "" }
      : { type: "text", text: "" };
    events.push(["content_block_start", { type: "content_block_start", index, content_block: start }]);
    if (index === 0) events.push(["ping", { type: "ping" }]);
    const delta = (d: Obj) =>
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: d }]);
    if (block.type === "text") {
      for (const p of pieces(String(block.text), 8)) delta({ type: "text_delta", text: p });
    }
    if (block.type === "thinking") {
      for (const p of pieces(String(block.thinking), 8)) delta({ type: "thinking_delta", thinking: p });
      delta({ type: "signature_delta", signature: String(block.signature) });
    }
    if (block.type === "tool_use") {
      for (const p of pieces(JSON.stringify(block.input), 16)) {
        delta({ type: "input_json_delta", partial_json: p });
      }
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason ?? null, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens ?? 5 },
    },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events;
}

/**
 * Start the server on 127.0.0.1. `POST /v1/messages` plays the script in order (faults included);
 * after its end, requests get an `api_error` 500. Invalid requests get Anthropic's 400 and do not use
 * up a reply.
 */
export function startAnthropicServer(
  replies: readonly ScriptReply[],
  opts: AnthropicServerOptions = {},
): Promise<AnthropicServer> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const requests: RecordedRequest[] = [];
  const cacheLog: CacheUsage[] = [];
  const responseSentAt: number[] = [];
  const cache = new PromptCache();
  const handlers: Promise<void>[] = [];
  let served = 0;
  let closed = false;
  const stops = new Set<() => void>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => (stops.delete(done), clearTimeout(id), resolve());
      const id = setTimeout(done, ms);
      stops.add(done);
    });

  async function answer(conn: Deno.Conn, request: RecordedRequest): Promise<boolean> {
    // A client resends a request whose reused connection closed before any answer, which would hide a
    // scripted drop: the answer before one closes its connection, so the drop meets a fresh one.
    const next = replies[served + 1];
    const keep = next === undefined || !isFault(next) || next.fault !== "drop";
    const send = async (status: number, body: string, headers: Record<string, string> = {}) => {
      await write(conn, response(status, body, keep ? headers : { ...headers, connection: "close" }));
      responseSentAt[requests.length - 1] = performance.now();
      return keep;
    };
    const path = new URL(request.path, "http://x").pathname;
    if (request.method === "GET" && path === "/v1/models" && opts.models) {
      const key = request.headers["x-api-key"];
      if (key === undefined || (opts.key !== undefined && key !== opts.key)) {
        return await send(401, anthropicErrorBody(401, "invalid x-api-key"));
      }
      if (request.headers["anthropic-version"] === undefined) {
        return await send(400, anthropicErrorBody(400, "anthropic-version: header is required"));
      }
      const data = opts.models.map((id) => ({
        type: "model",
        id,
        display_name: id,
        created_at: "2025-01-01T00:00:00Z",
      }));
      const body = {
        data,
        has_more: false,
        first_id: opts.models[0] ?? null,
        last_id: opts.models.at(-1) ?? null,
      };
      return await send(200, JSON.stringify(body));
    }
    if (request.method !== "POST" || path !== "/v1/messages") {
      return await send(404, anthropicErrorBody(404, `no route ${request.path}`));
    }
    requests.push(request);
    const key = request.headers["x-api-key"];
    if (key === undefined || (opts.key !== undefined && key !== opts.key)) {
      return await send(401, anthropicErrorBody(401, "invalid x-api-key"));
    }
    if (request.headers["anthropic-version"] === undefined) {
      return await send(400, anthropicErrorBody(400, "anthropic-version: header is required"));
    }
    const problem = opts.lean ? undefined : invalidRequest(request.body);
    if (problem !== undefined) return await send(400, anthropicErrorBody(400, problem));
    const body = request.body as Obj;
    if (opts.keepBodies === false) requests[requests.length - 1] = { ...request, body: null, raw: "" };
    const index = served++;
    const reply = replies[index];
    if (reply === undefined) {
      return await send(500, anthropicErrorBody(500, `script has ${replies.length} replies`));
    }
    if (isFault(reply)) return await fault(conn, reply, send);
    const usage = opts.lean ? LEAN_USAGE : cache.use(body);
    cacheLog.push(usage);
    const { breakpoints: _, blocks: __, ...counts } = usage;
    const message = toAnthropicMessage(reply, index, String(body.model), counts);
    if (body.stream !== true) return await send(200, JSON.stringify(message));
    const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n" +
      (keep ? "" : "connection: close\r\n") + "\r\n";
    await write(conn, encoder.encode(head));
    for (const [event, data] of toAnthropicEvents(message)) {
      const bytes = encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      await write(
        conn,
        concat(encoder.encode(`${bytes.length.toString(16)}\r\n`), bytes, encoder.encode("\r\n")),
      );
      if (opts.streamDelayMs) await wait(opts.streamDelayMs);
    }
    await write(conn, encoder.encode("0\r\n\r\n"));
    responseSentAt[requests.length - 1] = performance.now();
    return keep;
  }

  async function fault(
    conn: Deno.Conn,
    reply: ScriptFault,
    send: (status: number, body: string, headers?: Record<string, string>) => Promise<boolean>,
  ): Promise<boolean> {
    switch (reply.fault) {
      case "status": {
        const retryAfter = reply.retry_after === undefined
          ? {}
          : { "retry-after": String(reply.retry_after) };
        const body = reply.body ?? anthropicErrorBody(reply.status, `scripted HTTP ${reply.status}`);
        return await send(reply.status, body, { ...retryAfter, ...reply.headers });
      }
      case "garbage":
        return await send(200, "<html>502 Bad Gateway</html>");
      case "truncate": {
        const body = encoder.encode(
          JSON.stringify(toAnthropicMessage({ content: "x".repeat(200) }, 0, "m", {})),
        );
        const head =
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
        await write(conn, concat(encoder.encode(head), body.subarray(0, body.length >> 1)));
        return false;
      }
      case "stall":
        await wait(reply.seconds * 1000);
        return false;
      case "drop":
        return false;
    }
  }

  async function serve(conn: Deno.Conn): Promise<void> {
    conns.add(conn);
    const reader = new RequestReader(conn, true, false);
    try {
      while (!closed) {
        const request = await reader.next();
        if (request === undefined || !await answer(conn, request)) break;
      }
    } catch {
      // The client went away.
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* closed */ }
    }
  }

  const accepting = (async () => {
    try {
      for await (const conn of listener) handlers.push(serve(conn));
    } catch { /* listener closed */ }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return Promise.resolve({
    url: `http://127.0.0.1:${port}`,
    requests,
    cache: cacheLog,
    responseSentAt,
    async close() {
      if (closed) return;
      closed = true;
      listener.close();
      for (const stop of stops) stop();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      await accepting;
      await Promise.allSettled(handlers);
    },
  });
}

function isObj(value: Json | undefined): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

if (import.meta.main) {
  const [path, ...flags] = Deno.args;
  if (path === undefined) {
    console.error("usage: deno run -A tests/_support/anthropic_server.ts SCRIPT.yaml [--lean] [--no-bodies]");
    Deno.exit(2);
  }
  const server = await startAnthropicServer(await loadScript(path), {
    lean: flags.includes("--lean"),
    keepBodies: !flags.includes("--no-bodies"),
  });
  console.log(server.url);
  const stop = () => server.close().then(() => Deno.exit(0));
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
