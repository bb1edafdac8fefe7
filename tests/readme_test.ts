/**
 * The README stays true: its config reference is exactly the one generated from the key definitions,
 * and every CLI flag of the help text is documented.
 */
import { assert, assertEquals } from "./_assert.ts";
import { HELP } from "../src/cli.ts";
import { expectedBlock, readmeBlock } from "./readme_reference.ts";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));

Deno.test("README's config reference is the one generated from the key definitions (deno task docs)", async () => {
  const block = readmeBlock(README);
  assert(block !== undefined, "README.md lacks the config-reference markers");
  assertEquals(
    block,
    await expectedBlock(),
    "run `deno task docs` to regenerate README.md's config reference",
  );
});

Deno.test("README documents every flag of the help text", () => {
  const flags = [...new Set(HELP.match(/--[a-z][a-z-]+/g) ?? [])];
  const missing = flags.filter((f) => !README.includes(f));
  assert(missing.length === 0, `undocumented flags: ${missing.join(", ")}`);
});
