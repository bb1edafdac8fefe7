/**
 * Every help fits an 80-column terminal with its examples first, `claudius help X` is `claudius X
 * --help`, and the topics (keys, providers, exit codes) fit too and cover their tables.
 */
import { assert, assertEquals, assertMatch } from "../_support/assert.ts";
import { COMMANDS, RUN_COMMAND } from "../../src/cli/commands.ts";
import { renderHelp } from "../../src/lib/help.ts";
import type { CommandSpec } from "../../src/lib/flags.ts";
import { topHelp } from "../../src/cli/help.ts";
import { EXIT_MEANINGS, TOPICS } from "../../src/cli/help_topics.ts";
import { EXIT_CODES } from "../../src/core/host.ts";
import { PROVIDERS } from "../../src/core/models/providers.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

async function claudius(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", MAIN, ...args], stdin: "null" })
    .output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

const over80 = (text: string) => text.split("\n").filter((l) => [...l].length > 80);

Deno.test("every command's help fits 80 columns and shows its examples before its options", async () => {
  const specs: [string, CommandSpec][] = [["claudius", (await RUN_COMMAND()).SPEC]];
  for (const [name, c] of Object.entries(COMMANDS)) specs.push([name, (await c.load()).SPEC]);
  for (const [name, spec] of specs) {
    const help = renderHelp(spec);
    assertEquals(over80(help), [], `${name}: lines over 80 columns`);
    const examples = help.indexOf("\nExamples:\n");
    assert(examples > 0 && examples < help.indexOf("\nOptions:\n"), `${name}: examples first`);
  }
  assertEquals(over80(topHelp(COMMANDS)), []);
  assertMatch(topHelp(COMMANDS), /\nTopics \(claudius help TOPIC\): keys, providers, exit-codes$/);
});

Deno.test("claudius help COMMAND is the command's --help; help TOPIC renders keys, providers and exit codes at 80 columns", async () => {
  const [viaHelp, viaFlag] = await Promise.all([claudius("help", "stats"), claudius("stats", "--help")]);
  assertEquals(viaHelp.stdout, viaFlag.stdout);
  for (const [topic, arg] of [["keys"], ["keys", "model"], ["providers"], ["exit-codes"]]) {
    const r = await claudius("help", topic!, ...(arg ? [arg] : []));
    assertEquals(r.code, 0, r.stderr);
    assertEquals(over80(r.stdout), [], `${topic} ${arg ?? ""}`);
  }
  const keys = await claudius("help", "keys", "model");
  assertMatch(keys.stdout, /^model:\n/);
  assertMatch(
    keys.stdout,
    /\n {2}retry_attempts \(default 10 \(or \$MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT\)\): /,
  );
  const providers = await TOPICS.providers!.render();
  for (const prefix of Object.keys(PROVIDERS)) assertMatch(providers, new RegExp(`\\n  ${prefix}/ +http`));
  const codes = await TOPICS["exit-codes"]!.render();
  for (const [status, code] of Object.entries(EXIT_CODES)) {
    assert(EXIT_MEANINGS[status], `no meaning for ${status}`);
    assertMatch(codes, new RegExp(`\\n  ${code} +${status} +\\S`));
  }
  const typo = await claudius("help", "kyes");
  assertEquals(typo.code, 2);
  assertMatch(typo.stderr, /^error: no help on 'kyes' \(did you mean 'keys'\?\)/);
  const section = await claudius("help", "keys", "modle");
  assertMatch(section.stderr, /^error: no config section 'modle' \(sections: agent, environment, model, run/);
});
