import { assertEquals, assertThrows } from "./_assert.ts";
import { pythonRegex } from "../src/model.ts";
import { ConfigError } from "../src/errors.ts";

const findAll = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => m[1]);

Deno.test("pythonRegex() reads Python syntax: DOTALL, named groups, leading inline flags", () => {
  const text = "x\n```mswea_bash_command\nls\npwd\n```\n```Bash\nid\n```";
  assertEquals(findAll(pythonRegex("```mswea_bash_command\\s*\\n(.*?)\\n```"), text), ["ls\npwd"]);
  assertEquals(findAll(pythonRegex("(?i)```bash\\s*\\n(?P<cmd>.*?)\\n```"), text), ["id"]);
  assertThrows(() => pythonRegex("(unclosed"), ConfigError, "model.action_regex");
});
