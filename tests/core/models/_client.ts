/**
 * What the HTTP client's tests share: a request, a key, a client against the loopback server that
 * records its logs and sleeps, and small assertions.
 *
 * @module
 */
import { assert } from "../../_support/assert.ts";
import { OpenAIClient, type OpenAIClientDeps } from "../../../src/core/models/openai.ts";
import type { OpenAIClientConfig } from "../../../src/core/models/_keys.ts";
import type { ScriptReply } from "../../../src/core/models/extra/_script.ts";
import type { ChatRequest, Json } from "../../../src/core/types.ts";
import { type FakeServer, startFakeServer } from "../../_support/fake_server.ts";

export const REQUEST: ChatRequest = {
  messages: [{ role: "system", content: "You are a test." }, { role: "user", content: "List files." }],
  tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }],
};
export const KEY = "sk-test-SECRET-0123456789";

/** A client against `server` that records its logs and sleeps instead of waiting. */
export function setup(
  server: FakeServer,
  config: Partial<OpenAIClientConfig> = {},
  deps: Partial<OpenAIClientDeps> = {},
) {
  const logs: string[] = [];
  const sleeps: number[] = [];
  const client = new OpenAIClient(
    { model_name: "hosted_vllm/test-model", base_url: server.url, cost_tracking: "ignore_errors", ...config },
    {
      env: {},
      costLimit: 0,
      log: (line) => logs.push(line),
      sleep: (ms) => (sleeps.push(ms), Promise.resolve()),
      random: () => 0.5,
      ...deps,
    },
  );
  return { client, logs, sleeps };
}

/** Run `fn` against a fake server playing `replies`, closing it afterwards. */
export async function withServer(
  replies: ScriptReply[],
  fn: (server: FakeServer) => Promise<void> | void,
): Promise<void> {
  const server = await startFakeServer(replies);
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** Assert that `text` contains `part`. */
export function assertIncludes(text: string, part: string): void {
  assert(text.includes(part), `${JSON.stringify(text)} lacks ${JSON.stringify(part)}`);
}

/** `value[key]` when `value` is an object. */
export function field(value: Json | undefined, key: string): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value[key] : undefined;
}
