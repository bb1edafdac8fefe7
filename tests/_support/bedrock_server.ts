/**
 * A loopback Bedrock Runtime that checks what the real service checks: every request's SigV4
 * signature (service `bedrock`, its region, its clock; see `sigv4_verifier.ts`) or a Bedrock API key,
 * and the Converse request as the API documents it (known top-level fields only, alternating roles
 * beginning with the user's, no blank text block, each `toolUse` answered by a `toolResult` in the next
 * turn, `toolConfig` present whenever tool blocks are, at most four cache points). It answers a
 * scripted reply (see `src/core/models/extra/_script.ts`) as Converse does (`output.message`, `stopReason`,
 * `usage` with cache reads and writes: a cache point writes the prefix before it, a later request that
 * begins with that prefix reads it; tokens are the JSON's bytes / 4, rounded up), and a refusal as AWS
 * does (status, `x-amzn-ErrorType`, `{"message"}`). `GET /foundation-models` lists the models.
 *
 * @module
 */
import { isFault, type ScriptMessageReply, type ScriptReply } from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";
import { type KnownKey, type SigV4Refusal, verifySigV4 } from "./sigv4_verifier.ts";

type Obj = { [key: string]: Json };

/** One request the server received. */
export interface BedrockRequest {
  method: string;
  /** The path and query as sent (percent-encoded). */
  target: string;
  /** The model id, decoded. */
  modelId: string;
  headers: Record<string, string>;
  body: Json;
}

/** Options of {@link startBedrockServer}. */
export interface BedrockServerOptions {
  /** Access keys the service knows. */
  keys?: Readonly<Record<string, KnownKey>>;
  /** Bedrock API keys the service knows (sent as `Authorization: Bearer`). */
  bearer?: readonly string[];
  /** The region requests must be signed for (default us-east-1). */
  region?: string;
  /** The service's clock (default the real one). */
  now?: () => Date;
  /** Model ids served (default any). */
  models?: readonly string[];
}

/** A running loopback Bedrock Runtime. */
export interface BedrockServer {
  /** Its origin, e.g. `http://127.0.0.1:41234` (what `AWS_BEDROCK_RUNTIME_ENDPOINT` names). */
  url: string;
  /** Converse requests that passed authentication, in order. */
  requests: BedrockRequest[];
  /** Refusals sent, in order. */
  refusals: SigV4Refusal[];
  close(): Promise<void>;
}

const TOP_LEVEL = new Set([
  "messages",
  "system",
  "inferenceConfig",
  "toolConfig",
  "guardrailConfig",
  "additionalModelRequestFields",
  "additionalModelResponseFieldPaths",
  "promptVariables",
  "requestMetadata",
  "performanceConfig",
]);
const BLOCK_KINDS = [
  "text",
  "image",
  "document",
  "video",
  "toolUse",
  "toolResult",
  "guardContent",
  "cachePoint",
  "reasoningContent",
];
const INFERENCE = new Set(["maxTokens", "temperature", "topP", "stopSequences"]);

function isObj(v: Json | undefined): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What the Converse API refuses in a request body (its ValidationException message), or undefined. */
export function converseProblem(body: Json): string | undefined {
  if (!isObj(body)) return "Malformed input request, please reformat your input and try again.";
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL.has(key)) return `Malformed input request: extraneous key [${key}] is not permitted`;
  }
  if (body.inferenceConfig !== undefined) {
    if (!isObj(body.inferenceConfig)) return "inferenceConfig must be an object";
    for (const key of Object.keys(body.inferenceConfig)) {
      if (!INFERENCE.has(key)) return `Malformed input request: extraneous key [${key}] is not permitted`;
    }
  }
  const thinking = isObj(body.additionalModelRequestFields)
    ? body.additionalModelRequestFields.thinking
    : undefined;
  if (isObj(thinking) && thinking.type === "enabled") {
    // Claude's extended thinking, as Anthropic documents its limits (Bedrock passes the field on).
    const budget = typeof thinking.budget_tokens === "number" ? thinking.budget_tokens : 0;
    if (budget < 1024) return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
    const max = isObj(body.inferenceConfig) ? body.inferenceConfig.maxTokens : undefined;
    if (typeof max === "number" && max <= budget) {
      return "`max_tokens` must be greater than `thinking.budget_tokens`";
    }
    const choice = isObj(body.toolConfig) ? body.toolConfig.toolChoice : undefined;
    if (isObj(choice) && ("any" in choice || "tool" in choice)) {
      return "Thinking may not be enabled when tool_choice forces tool use.";
    }
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return "A conversation must start with a user message.";
  }
  let cachePoints = 0;
  let toolBlocks = false;
  const check = (blocks: Json | undefined, where: string, system = false): string | undefined => {
    if (!Array.isArray(blocks)) return `${where} must be a list`;
    for (const [j, b] of blocks.entries()) {
      const kinds = isObj(b) ? Object.keys(b).filter((k) => BLOCK_KINDS.includes(k)) : [];
      if (!isObj(b) || kinds.length !== 1 || Object.keys(b).length !== 1) {
        return `${where}.${j} must have exactly one of ${BLOCK_KINDS.join(", ")}`;
      }
      if (kinds[0] === "cachePoint") cachePoints++;
      if (kinds[0] === "toolUse" || kinds[0] === "toolResult") toolBlocks = true;
      if (kinds[0] === "text" && (typeof b.text !== "string" || b.text.trim() === "")) {
        return `The text field in the ContentBlock object at ${where}.${j} is blank. Add text to the text field, and try again.`;
      }
      if (system && !["text", "cachePoint", "guardContent"].includes(kinds[0]!)) {
        return `${where}.${j}: a system block is text, guardContent or cachePoint`;
      }
    }
    return undefined;
  };
  if (body.system !== undefined) {
    const p = check(body.system, "system", true);
    if (p) return p;
  }
  let pending: string[] = [];
  for (const [i, m] of messages.entries()) {
    if (!isObj(m) || (m.role !== "user" && m.role !== "assistant")) {
      return `messages.${i}.role must be user or assistant`;
    }
    const expected = i % 2 === 0 ? "user" : "assistant";
    if (m.role !== expected) {
      return i === 0
        ? "A conversation must start with a user message. Try again with a conversation that starts with a user message."
        : "A conversation must alternate between user and assistant roles. Make sure the conversation alternates " +
          "between user and assistant roles and try again.";
    }
    const p = check(m.content, `messages.${i}.content`);
    if (p) return p;
    const blocks = (m.content as Json[]).filter(isObj);
    if (pending.length > 0) {
      const answered = blocks.flatMap((b) => (isObj(b.toolResult) ? [String(b.toolResult.toolUseId)] : []));
      const missing = pending.filter((id) => !answered.includes(id));
      if (missing.length > 0) {
        return `Expected toolResult blocks at messages.${i}.content for the following Ids: ${
          missing.join(", ")
        }`;
      }
    }
    pending = m.role === "assistant"
      ? blocks.flatMap((b) => (isObj(b.toolUse) ? [String(b.toolUse.toolUseId)] : []))
      : [];
  }
  if (cachePoints > 4) {
    return `The number of cache points in the request (${cachePoints}) exceeds the maximum of 4.`;
  }
  if (toolBlocks && !isObj(body.toolConfig)) {
    return "The toolConfig field must be defined when using toolUse and toolResult content blocks.";
  }
  return undefined;
}

const tokens = (v: Json) => Math.ceil(new TextEncoder().encode(JSON.stringify(v)).length / 4);

/**
 * Prompt caching as Bedrock describes it: a cache point writes the prefix before it; a later request
 * reads the longest prefix written before that ends at a block boundary within the 20 blocks before
 * one of its cache points.
 */
class PrefixCache {
  readonly #written = new Set<string>();

  /** The request's input, cache reads and cache writes. */
  use(body: Obj): { inputTokens: number; cacheReadInputTokens: number; cacheWriteInputTokens: number } {
    const blocks: Json[] = [...(Array.isArray(body.system) ? body.system : [])];
    for (const m of Array.isArray(body.messages) ? body.messages.filter(isObj) : []) {
      blocks.push({ role: m.role ?? null }, ...(Array.isArray(m.content) ? m.content : []));
    }
    const seen: Json[] = [];
    const sizes = [0];
    const points: number[] = [];
    for (const b of blocks) {
      if (isObj(b) && "cachePoint" in b) points.push(seen.length);
      else {
        seen.push(b);
        sizes.push(sizes.at(-1)! + tokens(b));
      }
    }
    const total = sizes.at(-1)!;
    const last = points.at(-1);
    if (last === undefined) return { inputTokens: total, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 };
    const key = (k: number) => JSON.stringify(seen.slice(0, k));
    let readAt = 0;
    for (const p of points) {
      for (let k = p; k >= Math.max(1, p - 20); k--) {
        if (this.#written.has(key(k))) {
          readAt = Math.max(readAt, k);
          break;
        }
      }
    }
    for (const p of points) this.#written.add(key(p));
    const read = sizes[readAt]!;
    return {
      inputTokens: total - sizes[last]!,
      cacheReadInputTokens: read,
      cacheWriteInputTokens: sizes[last]! - read,
    };
  }
}

/** The Converse answer to a scripted reply. */
export function toConverseBody(reply: ScriptMessageReply, index: number, usage: Obj): Obj {
  const content: Obj[] = [];
  if (typeof reply.reasoning_content === "string") {
    content.push({
      reasoningContent: { reasoningText: { text: reply.reasoning_content, signature: `sig-${index}` } },
    });
  }
  if (typeof reply.content === "string" && reply.content !== "") content.push({ text: reply.content });
  (reply.commands ?? []).forEach((command, j) => {
    content.push({ toolUse: { toolUseId: `tooluse_${index}_${j}`, name: "bash", input: { command } } });
  });
  const stopReason = reply.finish_reason === "length"
    ? "max_tokens"
    : content.some((b) => "toolUse" in b)
    ? "tool_use"
    : "end_turn";
  const outputTokens = typeof reply.usage?.completion_tokens === "number" ? reply.usage.completion_tokens : 5;
  const input = typeof usage.inputTokens === "number" ? usage.inputTokens : 0;
  const read = typeof usage.cacheReadInputTokens === "number" ? usage.cacheReadInputTokens : 0;
  const write = typeof usage.cacheWriteInputTokens === "number" ? usage.cacheWriteInputTokens : 0;
  return {
    output: { message: { role: "assistant", content } },
    stopReason,
    usage: { ...usage, outputTokens, totalTokens: input + read + write + outputTokens },
    metrics: { latencyMs: 1 },
  };
}

/** Start the server on 127.0.0.1; Converse requests play `replies` in order. */
export function startBedrockServer(
  replies: readonly ScriptReply[],
  opts: BedrockServerOptions = {},
): Promise<BedrockServer> {
  const requests: BedrockRequest[] = [];
  const refusals: SigV4Refusal[] = [];
  const cache = new PrefixCache();
  const region = opts.region ?? "us-east-1";
  let served = 0;
  const refuse = (r: { status: number; type: string; message: string }) => {
    refusals.push(r as SigV4Refusal);
    return new Response(JSON.stringify({ message: r.message }), {
      status: r.status,
      headers: {
        "content-type": "application/json",
        "x-amzn-errortype": `${r.type}:http://internal.amazon.com/coral/`,
      },
    });
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const raw = new Uint8Array(await req.arrayBuffer());
    const target = req.url.slice(url.origin.length);
    const auth = req.headers.get("authorization") ?? "";
    if (auth.startsWith("Bearer ")) {
      if (!(opts.bearer ?? []).includes(auth.slice(7))) {
        return refuse({
          status: 403,
          type: "AccessDeniedException",
          message: "Authentication failed: Please make sure your API Key is valid.",
        });
      }
    } else {
      const refusal = await verifySigV4(
        { method: req.method, target, headers: [...req.headers.entries()], body: raw },
        { keys: opts.keys ?? {}, region, service: "bedrock", now: opts.now?.() ?? new Date() },
      );
      if (refusal) return refuse(refusal);
    }
    if (req.method === "GET" && url.pathname === "/foundation-models") {
      const summaries = (opts.models ?? []).map((modelId) => ({
        modelId,
        modelName: modelId,
        outputModalities: ["TEXT"],
      }));
      return Response.json({ modelSummaries: summaries });
    }
    const m = /^\/model\/([^/]+)\/converse$/.exec(url.pathname);
    if (req.method !== "POST" || m === null) {
      return refuse({ status: 404, type: "UnknownOperationException", message: `no route ${target}` });
    }
    const modelId = decodeURIComponent(m[1]!);
    let body: Json;
    try {
      body = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      return refuse({ status: 400, type: "ValidationException", message: "Malformed input request" });
    }
    requests.push({ method: req.method, target, modelId, headers: Object.fromEntries(req.headers), body });
    if (opts.models && !opts.models.includes(modelId)) {
      return refuse({
        status: 400,
        type: "ValidationException",
        message: "The provided model identifier is invalid.",
      });
    }
    const problem = converseProblem(body);
    if (problem) return refuse({ status: 400, type: "ValidationException", message: problem });
    const index = served++;
    const reply = replies[index];
    if (reply === undefined) {
      return refuse({
        status: 500,
        type: "InternalServerException",
        message: `script has ${replies.length} replies`,
      });
    }
    if (isFault(reply)) {
      if (reply.fault === "status") {
        return new Response(reply.body ?? JSON.stringify({ message: `scripted HTTP ${reply.status}` }), {
          status: reply.status,
          headers: { "content-type": "application/json", ...reply.headers },
        });
      }
      return new Response("<html>502 Bad Gateway</html>", { status: 200 });
    }
    return Response.json(toConverseBody(reply, index, cache.use(body as Obj)));
  });
  return Promise.resolve({
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    refusals,
    async close() {
      await server.shutdown();
    },
  });
}

if (import.meta.main) {
  // deno run -A tests/_support/bedrock_server.ts SCRIPT.yaml AKID:SECRET [REGION]: prints its URL, serves until killed.
  const { loadScript } = await import("../../src/core/models/extra/_script.ts");
  const [path, pair = "", region = "us-east-1"] = Deno.args;
  if (path === undefined || !pair.includes(":")) {
    console.error("usage: deno run -A tests/_support/bedrock_server.ts SCRIPT.yaml AKID:SECRET [REGION]");
    Deno.exit(2);
  }
  const [id = "", secret = ""] = pair.split(/:(.*)/s);
  const server = await startBedrockServer(await loadScript(path), { keys: { [id]: { secret } }, region });
  console.log(server.url);
  Deno.addSignalListener("SIGTERM", () => server.close().then(() => Deno.exit(0)));
}
