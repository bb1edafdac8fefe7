/**
 * The README stays true: every config key of the schema and every CLI flag is documented.
 */
import { assert } from "./_assert.ts";
import { SCHEMA } from "../src/config_schema.ts";
import { HELP } from "../src/cli.ts";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));

Deno.test("README documents every config key", () => {
  const missing = Object.entries(SCHEMA).flatMap(([section, keys]) =>
    Object.keys(keys).filter((k) => !README.includes(`\`${k}\``)).map((k) => `${section}.${k}`)
  );
  assert(missing.length === 0, `undocumented config keys: ${missing.join(", ")}`);
});

Deno.test("README documents every flag of the help text", () => {
  const flags = [...new Set(HELP.match(/--[a-z][a-z-]+/g) ?? [])];
  const missing = flags.filter((f) => !README.includes(f));
  assert(missing.length === 0, `undocumented flags: ${missing.join(", ")}`);
});
