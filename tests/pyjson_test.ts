import { assertEquals } from "./_assert.ts";
import { pythonJsonError } from "../src/pyjson.ts";

const golden: { text: string; error: string | null }[] = JSON.parse(
  await Deno.readTextFile(new URL("./testdata/pyjson_golden.json", import.meta.url)),
);

Deno.test("pythonJsonError() says what Python's json.loads says, position included", () => {
  for (const { text, error } of golden) {
    assertEquals(pythonJsonError(text) ?? null, error, JSON.stringify(text));
  }
});
