import { assertEquals } from "./_assert.ts";
import { parseDotEnv } from "../src/dotenv.ts";

Deno.test("parseDotEnv() reads assignments the way dotenv does", () => {
  const text = [
    "# a comment",
    "A=1",
    "export B = spaced value  ",
    "C='single # not a comment'",
    'D="double\\nline \\"quoted\\""',
    "E=bare # trailing comment",
    "F=`back tick`",
    "not an assignment",
    "G=",
    "A=2\r",
  ].join("\n");
  assertEquals(parseDotEnv(text), {
    A: "2",
    B: "spaced value",
    C: "single # not a comment",
    D: 'double\nline "quoted"',
    E: "bare",
    F: "back tick",
    G: "",
  });
});
