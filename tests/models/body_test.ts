import { assertEquals } from "../_assert.ts";
import { RequestBodies } from "../../src/models/_body.ts";

const text = (b: string | Uint8Array) => (typeof b === "string" ? b : new TextDecoder().decode(b));

Deno.test("RequestBodies.serialise() is byte for byte JSON.stringify, call after call", () => {
  const bodies = new RequestBodies();
  const messages: object[] = [];
  const tools = [{ type: "function", function: { name: "bash" } }];
  const contents = ["hi", 'quotes " and \\ and \n', "é 中 😀", "\ud800 lone surrogate", "", "x".repeat(5000)];
  for (const content of contents) {
    messages.push({ role: "user", content, extra_field: null });
    const data = { model: "m/ü", messages, tools, temperature: 0.5 };
    assertEquals(text(bodies.serialise(data, messages)), JSON.stringify(data));
    // An earlier, longer body left in the reused buffer must not leak into a shorter one.
    const short = { model: "m", messages: messages.slice(0, 1) };
    assertEquals(text(bodies.serialise(short, short.messages)), JSON.stringify(short));
  }
  const replaced = { model: "m", messages: [{ role: "user", content: "other" }] };
  assertEquals(text(bodies.serialise(replaced, messages)), JSON.stringify(replaced));
});
