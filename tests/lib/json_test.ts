import { assert, assertEquals } from "../_support/assert.ts";
import { isJson, isJsonObject } from "../../src/lib/json.ts";
import { parsePythonJson } from "../../src/lib/python/pyjson.ts";

Deno.test("isJson() holds for what the parsers return, NaN and the infinities included", () => {
  assert(isJson(JSON.parse('{"a": [1, "x", null, true, {"b": {}}], "__proto__": 1}')));
  assert(isJson(parsePythonJson('{"n": NaN, "m": [Infinity, -Infinity]}')));
  for (const v of [null, false, 0, "", []]) assert(isJson(v));
});

Deno.test("isJson() is false for anything JSON cannot hold, at any depth", () => {
  const bad = [undefined, () => 1, new Date(0), new Map(), 1n, Symbol("s"), { a: [{ b: undefined }] }, [[
    new Set(),
  ]]];
  assertEquals(bad.map(isJson), bad.map(() => false));
});

Deno.test("isJson() checks deep and long values without running out of stack", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert(isJson(deep));
  assert(isJson(Array.from({ length: 300_000 }, (_, i) => i)));
});

Deno.test("isJsonObject() holds for plain objects only", () => {
  assert(isJsonObject({ a: 1 }));
  assert(isJsonObject(Object.create(null)));
  assertEquals([[1], "x", null, new Date(0), { a: undefined }].map(isJsonObject), [
    false,
    false,
    false,
    false,
    false,
  ]);
});
