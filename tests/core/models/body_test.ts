import { assertEquals } from "../../_support/assert.ts";
import { RequestBodies } from "../../../src/core/models/_body.ts";

const text = (b: string | Uint8Array<ArrayBuffer> | Blob) => new Response(b).text();

Deno.test("RequestBodies.serialise() is byte for byte JSON.stringify, call after call", async () => {
  const bodies = new RequestBodies();
  const messages: object[] = [];
  const tools = [{ type: "function", function: { name: "bash" } }];
  const contents = [
    "hi",
    'quotes " and \\ and \n',
    "é 中 😀",
    "\ud800 lone surrogate",
    "",
    "x".repeat(5000),
    ..."w".repeat(20).split("").map((c, i) => c.repeat(3000 + i)), // one buffer while under 256 KiB
    "中".repeat(400_000), // past 256 KiB: sealed parts from here, this one bigger than a part
    ..."y".repeat(40).split("").map((c, i) => c.repeat(3000 + i)), // many small ones, sealed together
  ];
  for (const content of contents) {
    messages.push({ role: "user", content, extra_field: null });
    const data = { model: "m/ü", messages, tools, temperature: 0.5 };
    assertEquals(await text(bodies.serialise(data, messages)), JSON.stringify(data));
    // A later, shorter body must not carry anything of an earlier, longer one.
    const short = { model: "m", messages: messages.slice(0, 1) };
    assertEquals(await text(bodies.serialise(short, short.messages)), JSON.stringify(short));
  }
  const replaced = { model: "m", messages: [{ role: "user", content: "other" }] };
  assertEquals(await text(bodies.serialise(replaced, messages)), JSON.stringify(replaced));
  // A list that shares only the first messages (a mechanism's context): the parts that no longer match go.
  const other = [...messages.slice(0, 7), { role: "user", content: "new" }, ...messages.slice(8)];
  const data = { model: "m", messages: other };
  assertEquals(await text(bodies.serialise(data, other)), JSON.stringify(data));
  const back = { model: "m", messages };
  assertEquals(await text(bodies.serialise(back, messages)), JSON.stringify(back));
});

Deno.test("RequestBodies.serialise() keeps JSON.stringify's bytes over a long history, its length known", async () => {
  const bodies = new RequestBodies();
  const messages: object[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < 700; i++) {
    messages.push({ role: "user", content: "z".repeat(2000 + (i % 7)) });
    const body = bodies.serialise({ model: "m", messages }, messages);
    if (typeof body === "string") throw new Error("expected bytes");
    // One buffer (one write) until the body reaches 256 KiB, a Blob of shared parts from there.
    assertEquals(body instanceof Blob, (body instanceof Blob ? body.size : body.length) >= 256 * 1024);
    sizes.push(body instanceof Blob ? body.size : body.length);
    if (i % 100 === 99) assertEquals(await text(body), JSON.stringify({ model: "m", messages }));
  }
  assertEquals(sizes.at(-1), new TextEncoder().encode(JSON.stringify({ model: "m", messages })).length);
});
