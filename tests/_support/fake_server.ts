/**
 * A loopback OpenAI-compatible server that plays a script (see `src/core/models/extra/_script.ts`), faults
 * included. It speaks HTTP/1.1 over a raw TCP listener rather than `Deno.serve` because faults such as
 * "close without answering" and "send half a body" need control below the HTTP layer.
 *
 * Run standalone: `deno run -A tests/_support/fake_server.ts SCRIPT.yaml` prints the base URL (with `/v1`) on
 * the first line of stdout and serves until killed.
 *
 * @module
 */
import {
  isFault,
  loadScript,
  type ScriptMessageReply,
  type ScriptReply,
  toCompletionBody,
  toResponsesBody,
} from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The parsed JSON body (null when it was not JSON). */
  body: Json;
  /** The body's bytes as text, exactly as sent (chunked bodies joined). */
  raw: string;
  /** `performance.now()` when the whole request had arrived. */
  receivedAt: number;
}

/** A running fake server. */
export interface FakeServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Requests to `/v1/chat/completions` and `/v1/responses`, in arrival order. */
  requests: RecordedRequest[];
  /** `performance.now()` when each response was written (or the connection dropped), per request. */
  responseSentAt: number[];
  /** Stop listening and close every open connection. */
  close(): Promise<void>;
}

/** Options of {@link startFakeServer}. */
export interface FakeServerOptions {
  /** Called with each chat request before it is answered (may delay the answer). */
  onRequest?: (request: RecordedRequest, index: number) => void | Promise<void>;
  /** Echoed as the response's `model`. Default: the request's `model`. */
  model?: string;
  /** Streamed replies (`"stream": true` requests): pause this long between events. Default 0. */
  streamDelayMs?: number;
  /**
   * The reply to a request, instead of the script's next one (the benchmark's batch answers each
   * conversation by its own length). Default: `replies[index]`.
   */
  reply?: (request: RecordedRequest, index: number) => ScriptReply | undefined;
  /**
   * `false`: bodies are read and dropped, neither decoded nor parsed (`raw` is "", `body` null), so the
   * server's own cost stays out of the benchmark's per-step figures. Default true.
   */
  keepBodies?: boolean;
  /**
   * Read a request body by its `Content-Length` alone, as servers that do not implement chunked
   * uploads do: a chunked body reads as empty (and its chunks as a garbled next request).
   */
  lengthOnly?: boolean;
  /**
   * `GET /v1/models` lists these (OpenAI's `{object: "list", data: [{id}]}`); without, it is a 404 as
   * any route the server lacks. Model lists are not counted in `requests`.
   */
  models?: readonly string[];
  /** `GET /v1/models` answers 401 unless the request carries `Authorization: Bearer <key>`. */
  key?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Start the server on 127.0.0.1 (a free port). POST `/v1/chat/completions` (chat completion bodies) and
 * POST `/v1/responses` (Responses API bodies) play the script in order, faults included;
 * after its end, requests get HTTP 500 with a body saying so.
 *
 * @example
 * ```ts ignore
 * const server = await startFakeServer([{ commands: ["ls"] }]);
 * try { ... fetch(`${server.url}/chat/completions`, ...) ... } finally { await server.close(); }
 * ```
 */
export function startFakeServer(
  replies: readonly ScriptReply[],
  opts: FakeServerOptions = {},
): Promise<FakeServer> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const timers = new Map<ReturnType<typeof setTimeout>, () => void>();
  const requests: RecordedRequest[] = [];
  const responseSentAt: number[] = [];
  const handlers: Promise<void>[] = [];
  let closed = false;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const id = setTimeout(() => {
        timers.delete(id);
        resolve();
      }, ms);
      timers.set(id, resolve);
    });

  async function answer(conn: Deno.Conn, request: RecordedRequest): Promise<boolean> {
    const route = new URL(request.path, "http://fake").pathname.replace(/\/+$/, "");
    if (request.method === "GET" && route === "/v1/models" && opts.models) {
      if (opts.key !== undefined && request.headers.authorization !== `Bearer ${opts.key}`) {
        await write(
          conn,
          response(401, JSON.stringify({ error: { message: "Incorrect API key provided" } })),
        );
        return true;
      }
      const data = opts.models.map((id) => ({ id, object: "model", owned_by: "fake" }));
      await write(conn, response(200, JSON.stringify({ object: "list", data })));
      return true;
    }
    if (request.method !== "POST" || (route !== "/v1/chat/completions" && route !== "/v1/responses")) {
      await write(conn, response(404, JSON.stringify({ error: { message: `no route ${request.path}` } })));
      return true;
    }
    const toBody = (r: ScriptMessageReply, i: number, model: string) =>
      route === "/v1/responses" ? toResponsesBody(r, i, model) : toCompletionBody(r, i, model);
    const index = requests.length;
    requests.push(request);
    await opts.onRequest?.(request, index);
    const reply = opts.reply ? opts.reply(request, index) : replies[index];
    const sent = () => responseSentAt[index] = performance.now();
    // HTTP clients transparently resend a request whose reused connection closed before any answer,
    // which would hide a scripted drop: close the connection ahead of one so it hits a fresh connection.
    const next = replies[index + 1];
    const keep = next === undefined || !isFault(next) || next.fault !== "drop";
    const send = async (status: number, body: string, headers: Record<string, string> = {}) => {
      await write(conn, response(status, body, keep ? headers : { ...headers, connection: "close" }));
      sent();
      return keep;
    };
    if (reply === undefined) {
      const message = `fake server: script has ${replies.length} replies, request ${index + 1} was made`;
      return await send(500, JSON.stringify({ error: { message } }));
    }
    const model = opts.model ??
      (isRecord(request.body) && typeof request.body.model === "string" ? request.body.model : "fake");
    const streamed = isRecord(request.body) && request.body.stream === true;
    if (!isFault(reply)) {
      const body = toBody(reply, index, model);
      if (!streamed) return await send(200, JSON.stringify(body));
      await writeStream(conn, toStreamEvents(body), opts.streamDelayMs ?? 0, wait, keep);
      sent();
      return keep;
    }
    switch (reply.fault) {
      case "status": {
        const body = reply.body ?? JSON.stringify({ error: { message: `scripted HTTP ${reply.status}` } });
        const retryAfter = reply.retry_after === undefined
          ? {}
          : { "retry-after": String(reply.retry_after) };
        const headers = Object.entries(reply.headers ?? {}).map((
          [name, value],
        ) => [name.toLowerCase(), value]);
        return await send(reply.status, body, { ...retryAfter, ...Object.fromEntries(headers) });
      }
      case "garbage":
        return await send(200, "<html>502 Bad Gateway: upstream hiccup</html>");
      case "truncate": {
        if (streamed) {
          const events = toStreamEvents(toCompletionBody({ content: "x".repeat(200) }, index, "fake"));
          await writeStream(conn, events.slice(0, events.length >> 1), 0, wait, false, true);
          sent();
          return false;
        }
        const body = encoder.encode(JSON.stringify(toBody({ content: "x".repeat(200) }, index, "fake")));
        const head =
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
        await write(conn, concat(encoder.encode(head), body.subarray(0, body.length >> 1)));
        sent();
        return false;
      }
      case "stall":
        await wait(reply.seconds * 1000);
        sent();
        return false;
      case "drop":
        sent();
        return false;
    }
  }

  async function serve(conn: Deno.Conn): Promise<void> {
    conns.add(conn);
    const reader = new RequestReader(conn, opts.keepBodies ?? true, opts.lengthOnly ?? false);
    try {
      while (!closed) {
        const request = await reader.next();
        if (request === undefined) break;
        if (!await answer(conn, request)) break;
      }
    } catch {
      // The client went away or sent garbage: drop the connection.
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* already closed */ }
    }
  }

  const accepting = (async () => {
    try {
      for await (const conn of listener) handlers.push(serve(conn));
    } catch {
      // Listener closed.
    }
  })();

  const { port } = listener.addr as Deno.NetAddr;
  return Promise.resolve({
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    responseSentAt,
    async close() {
      if (closed) return;
      closed = true;
      listener.close();
      for (const [id, resolve] of timers) {
        clearTimeout(id);
        resolve();
      }
      timers.clear();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
      await accepting;
      await Promise.allSettled(handlers);
    },
  });
}

/**
 * Reads HTTP/1.1 requests (Content-Length or chunked bodies) from one connection, in time linear in
 * their size (what has arrived is kept as a list of reads, joined once per head or body).
 */
export class RequestReader {
  #conn: Deno.Conn;
  #keep: boolean;
  #lengthOnly: boolean;
  /** Bytes read and not yet consumed: `#parts`, the first of which starts at `#skip`. */
  #parts: Uint8Array[] = [];
  #skip = 0;
  #size = 0;

  constructor(conn: Deno.Conn, keep: boolean, lengthOnly: boolean) {
    this.#conn = conn;
    this.#keep = keep;
    this.#lengthOnly = lengthOnly;
  }

  async next(): Promise<RecordedRequest | undefined> {
    const head = await this.#line("\r\n\r\n");
    if (head === undefined) return undefined;
    const [start = "", ...lines] = decoder.decode(head).split("\r\n");
    const [method = "", path = ""] = start.split(" ");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body: Uint8Array[];
    if (!this.#lengthOnly && headers["transfer-encoding"]?.toLowerCase().includes("chunked")) {
      body = await this.#chunked();
    } else {
      body = await this.#take(Number(headers["content-length"] ?? "0"));
    }
    if (!this.#keep) return { method, path, headers, body: null, raw: "", receivedAt: performance.now() };
    const raw = decoder.decode(concat(...body));
    let json: Json = null;
    try {
      json = JSON.parse(raw);
    } catch { /* not JSON: recorded as null */ }
    return { method, path, headers, body: json, raw, receivedAt: performance.now() };
  }

  async #chunked(): Promise<Uint8Array[]> {
    const parts: Uint8Array[] = [];
    for (;;) {
      const line = await this.#line("\r\n");
      if (line === undefined) throw new Error("connection closed inside a chunked body");
      const size = parseInt(decoder.decode(line), 16);
      const chunk = await this.#take(size + 2);
      if (size === 0) return parts;
      parts.push(...chunk);
      // Drop the chunk's trailing CRLF.
      let extra = 2;
      while (extra > 0) {
        const last = parts.at(-1)!;
        const cut = Math.min(extra, last.length);
        parts[parts.length - 1] = last.subarray(0, last.length - cut);
        if (cut === last.length) parts.pop();
        extra -= cut;
      }
    }
  }

  /** The next `n` bytes, as the pieces they arrived in. */
  async #take(n: number): Promise<Uint8Array[]> {
    while (this.#size < n) {
      if (!await this.#read()) throw new Error("connection closed inside a body");
    }
    const out: Uint8Array[] = [];
    let left = n;
    while (left > 0) {
      const first = this.#parts[0]!.subarray(this.#skip);
      if (first.length <= left) {
        out.push(first);
        this.#parts.shift();
        this.#skip = 0;
        left -= first.length;
      } else {
        out.push(first.subarray(0, left));
        this.#skip += left;
        left = 0;
      }
    }
    this.#size -= n;
    return out;
  }

  /** The bytes before the next `end` (consumed with it); undefined at end of stream. */
  async #line(end: string): Promise<Uint8Array | undefined> {
    for (let k = 1;; k++) {
      while (this.#parts.length < k) if (!await this.#read()) return undefined;
      const pending = this.#parts.slice(0, k).map((p, i) => (i === 0 ? p.subarray(this.#skip) : p));
      const all = k === 1 ? pending[0]! : concat(...pending);
      const at = indexOf(all, end);
      if (at >= 0) {
        await this.#take(at + end.length);
        return all.subarray(0, at);
      }
    }
  }

  async #read(): Promise<boolean> {
    const chunk = new Uint8Array(256 * 1024);
    const n = await this.#conn.read(chunk);
    if (n === null) return false;
    this.#parts.push(chunk.subarray(0, n));
    this.#size += n;
    return true;
  }
}

/**
 * The server-sent events a provider streams for a completion body: a first chunk with the role, the
 * content in pieces, each tool call (id and name, then its arguments in pieces), other message
 * fields, a last chunk with the finish reason, a usage chunk, then `[DONE]`.
 */
export function toStreamEvents(body: Json): string[] {
  if (!isRecord(body) || !Array.isArray(body.choices) || !isRecord(body.choices[0])) return [];
  const choice = body.choices[0];
  const message = isRecord(choice.message) ? choice.message : {};
  const base = {
    id: body.id ?? null,
    object: "chat.completion.chunk",
    created: body.created ?? null,
    model: body.model ?? null,
  };
  const chunk = (delta: { [key: string]: Json }, finish: Json = null) =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const pieces = (text: string, size: number) => {
    const chars = [...text];
    const out: string[] = [];
    for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
    return out;
  };
  const content = typeof message.content === "string" ? message.content : null;
  const events = [chunk({ role: "assistant", content: content === null ? null : "" })];
  if (content !== null) { for (const piece of pieces(content, 8)) events.push(chunk({ content: piece })); }
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  calls.forEach((call, index) => {
    if (!isRecord(call) || !isRecord(call.function)) return;
    const fn = call.function;
    events.push(
      chunk({
        tool_calls: [{
          index,
          id: call.id ?? null,
          type: "function",
          function: { name: fn.name ?? null, arguments: "" },
        }],
      }),
    );
    for (const piece of pieces(String(fn.arguments ?? ""), 16)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  for (const [key, value] of Object.entries(message)) {
    if (!["role", "content", "tool_calls"].includes(key)) events.push(chunk({ [key]: value }));
  }
  events.push(chunk({}, choice.finish_reason ?? null));
  if (body.usage !== undefined) events.push(JSON.stringify({ ...base, choices: [], usage: body.usage }));
  events.push("[DONE]");
  return events;
}

/** Write SSE events as a chunked `text/event-stream` response (`cut`: stop without the last chunk). */
async function writeStream(
  conn: Deno.Conn,
  events: string[],
  delayMs: number,
  wait: (ms: number) => Promise<void>,
  keep: boolean,
  cut = false,
): Promise<void> {
  const head = ["HTTP/1.1 200 OK", "content-type: text/event-stream", "transfer-encoding: chunked"];
  if (!keep) head.push("connection: close");
  await write(conn, encoder.encode(head.join("\r\n") + "\r\n\r\n"));
  for (const event of events) {
    const data = encoder.encode(`data: ${event}\n\n`);
    await write(
      conn,
      concat(encoder.encode(`${data.length.toString(16)}\r\n`), data, encoder.encode("\r\n")),
    );
    if (delayMs > 0) await wait(delayMs);
  }
  if (!cut) await write(conn, encoder.encode("0\r\n\r\n"));
}

/** A whole response; with a `transfer-encoding: chunked` header the body goes as one chunk, no length. */
export function response(status: number, body: string, headers: Record<string, string> = {}): Uint8Array {
  const bytes = encoder.encode(body);
  const lines = [`HTTP/1.1 ${status} ${status === 200 ? "OK" : "Scripted"}`];
  const chunked = headers["transfer-encoding"] === "chunked";
  const length = chunked ? {} : { "content-length": String(bytes.length) };
  const all = { "content-type": "application/json", ...length, ...headers };
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value}`);
  const head = encoder.encode(lines.join("\r\n") + "\r\n\r\n");
  if (!chunked) return concat(head, bytes);
  return concat(
    head,
    encoder.encode(`${bytes.length.toString(16)}\r\n`),
    bytes,
    encoder.encode("\r\n0\r\n\r\n"),
  );
}

/** Write all of `bytes` to the connection. */
export async function write(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

/** The parts as one buffer. */
export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const part of parts) {
    out.set(part, off);
    off += part.length;
  }
  return out;
}

function indexOf(buf: Uint8Array, needle: string): number {
  const n = encoder.encode(needle);
  outer: for (let i = 0; i + n.length <= buf.length; i++) {
    for (let j = 0; j < n.length; j++) if (buf[i + j] !== n[j]) continue outer;
    return i;
  }
  return -1;
}

function isRecord(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

if (import.meta.main) {
  const [path] = Deno.args;
  if (path === undefined) {
    console.error("usage: deno run -A tests/_support/fake_server.ts SCRIPT.yaml");
    Deno.exit(2);
  }
  const server = await startFakeServer(await loadScript(path));
  console.log(server.url);
  const stop = () => server.close().then(() => Deno.exit(0));
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
