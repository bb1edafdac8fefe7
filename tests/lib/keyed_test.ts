import { assertEquals } from "../_support/assert.ts";
import { keyed } from "../../src/lib/keyed.ts";

Deno.test("keyed() makes one entry per key, in the keys' order, from the key", () => {
  const r = keyed(["b", "a", "c"] as const, (k) => k.toUpperCase());
  assertEquals(r, { b: "B", a: "A", c: "C" });
  assertEquals(Object.keys(r), ["b", "a", "c"]);
  assertEquals(keyed([], () => 0), {});
});
