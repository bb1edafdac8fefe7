import { assertEquals, assertThrows } from "./_assert.ts";
import { type FlagSpec, parseFlags, UsageError } from "../src/flags.ts";

const SPECS: Record<string, FlagSpec> = {
  config: { type: "string", short: "c", multiple: true },
  task: { type: "string", short: "t" },
  verbose: { type: "boolean", short: "v" },
};

Deno.test("parseFlags() reads long, short, inline and repeated flags and positionals", () => {
  assertEquals(
    parseFlags(["-c", "a", "--config=b=c", "-cd", "--task", "--not-a-flag", "-v", "x", "--", "-v"], SPECS),
    {
      values: { config: ["a", "b=c", "d"], task: "--not-a-flag", verbose: true },
      positionals: ["x", "-v"],
    },
  );
  assertEquals(parseFlags(["-t=", "-"], SPECS), { values: { task: "" }, positionals: ["-"] });
});

Deno.test("parseFlags() names the flag in every error", () => {
  assertThrows(() => parseFlags(["--bogus"], SPECS), UsageError, "unknown option '--bogus'");
  assertThrows(() => parseFlags(["-x"], SPECS), UsageError, "unknown option '-x'");
  assertThrows(() => parseFlags(["--task"], SPECS), UsageError, "option '--task <value>' needs a value");
  assertThrows(() => parseFlags(["--verbose=yes"], SPECS), UsageError, "option '--verbose' takes no value");
  assertThrows(
    () => parseFlags(["-t", "a", "-t", "b"], SPECS),
    UsageError,
    "option '-t' given more than once",
  );
});
