/**
 * Prompt-cache markers against upstream's own `set_cache_control` (golden made by
 * tests/testdata/conformance/gen_conformance.py), and when upstream turns them on.
 */
import { assertEquals, assertThrows } from "../../_support/assert.ts";
import { cacheControlMode } from "../../../src/core/models/model.ts";
import { markLast, withoutMarker } from "../../../src/core/models/extra/_cache_control.ts";
import { ConfigError } from "../../../src/core/errors.ts";
import type { Json, Message, WireMessage } from "../../../src/core/types.ts";
import { makeModel } from "../../../src/core/models/classes.ts";
import { episodeDeps } from "../../_support/episode.ts";
import { startFakeServer } from "../../_support/fake_server.ts";

interface Case {
  messages: WireMessage[];
  default_end: WireMessage[];
  none: WireMessage[];
}

const golden: Case[] = JSON.parse(
  await Deno.readTextFile(new URL("../../testdata/conformance/cache_control_golden.json", import.meta.url)),
);

Deno.test("markLast() and withoutMarker() mark requests exactly as upstream's set_cache_control", () => {
  for (const c of golden) {
    const sent = c.messages.map(withoutMarker);
    sent[sent.length - 1] = markLast(sent.at(-1)!);
    // Compared as text: key order is part of the request bytes.
    assertEquals(JSON.stringify(sent), JSON.stringify(c.default_end));
    assertEquals(JSON.stringify(c.none), JSON.stringify(c.messages));
  }
});

Deno.test("cacheControlMode() follows upstream's get_model: Claude-looking names unless configured", () => {
  for (
    const name of ["anthropic/claude-sonnet-4-5", "openrouter/anthropic/x", "Claude-3", "my-SONNET", "opus-x"]
  ) {
    assertEquals(cacheControlMode(name, undefined), "default_end");
  }
  assertEquals(cacheControlMode("openai/gpt-5-mini", undefined), null);
  assertEquals(cacheControlMode("anthropic/claude-sonnet-4-5", null), null);
  assertEquals(cacheControlMode("gpt-5", "default_end"), "default_end");
  assertThrows(() => cacheControlMode("gpt-5", "always"), ConfigError, "model.set_cache_control");
});

Deno.test("makeModel() marks requests for Claude names, and not when set_cache_control is null", async () => {
  const server = await startFakeServer([{ commands: ["ls"], cost: 0.01 }, { commands: ["ls"], cost: 0.01 }]);
  try {
    const base = {
      model_class: "openai",
      // Chat completions (an anthropic/ name speaks Anthropic's own API, see anthropic_test.ts).
      model_name: "openrouter/anthropic/claude-sonnet-4-5",
      base_url: server.url,
    };
    const deps = episodeDeps({ cwd: "/" });
    const messages: Message[] = [{ role: "system", content: "s" }, { role: "user", content: "u" }];
    const marked = await makeModel(base, 0, deps);
    assertEquals(marked.config.set_cache_control, "default_end");
    await marked.query(messages);
    await (await makeModel({ ...base, set_cache_control: null }, 0, deps)).query(messages);
    const last = (i: number) =>
      JSON.stringify((server.requests[i]!.body as { messages: Json[] }).messages.at(-1));
    assertEquals(
      last(0),
      JSON.stringify({
        role: "user",
        content: [{ type: "text", text: "u", cache_control: { type: "ephemeral" } }],
      }),
    );
    assertEquals(last(1), JSON.stringify({ role: "user", content: "u" }));
  } finally {
    await server.close();
  }
});
