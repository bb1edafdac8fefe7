/**
 * `mini-extra config setup | set [KEY [VALUE]] | unset [KEY] | edit`: upstream's global config file
 * (`<global config dir>/.env`), edited as upstream edits it. A missing KEY or VALUE is asked for
 * (at a terminal, or read line by line from stdin).
 *
 * @module
 */
import { type CommandSpec, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import type { Host } from "../core/host.ts";
import { openTerminal } from "./terminal.ts";
import {
  type Ask,
  editGlobalConfig,
  globalConfigFile,
  setGlobalKey,
  setup,
  unsetGlobalKey,
} from "./mini_global.ts";

const FLAGS = { help: { type: "boolean", short: "h", doc: "print this help" } } as const;

/** `mini-extra config`. */
export const CONFIG_SPEC: CommandSpec<typeof FLAGS> = {
  name: "mini-extra config",
  summary: "manage the global config file (upstream's .env of keys and defaults)",
  usage: ["setup", "set [KEY [VALUE]]", "unset [KEY]", "edit", "import-upstream [SOURCE] [--version V]"],
  examples: [
    ["mini-extra config set MSWEA_MODEL_NAME openai/gpt-5-mini", "the default model of every run"],
    ["mini-extra config setup", "the first-run questions again"],
  ],
  description: "The file is $MSWEA_GLOBAL_CONFIG_DIR/.env, else ~/.config/mini-swe-agent/.env; claudius " +
    "reads it at start-up, after the process environment (which wins). Values are written as " +
    "python-dotenv writes them (KEY='value').",
  flags: FLAGS,
  positionals: { min: 0, max: 3, name: "" },
};

/** Questions answered at a terminal, else by the lines of stdin (null once they run out). */
async function asker(host: Host): Promise<Ask> {
  if (host.terminal.stdin) {
    const session = await openTerminal(host, true);
    return (q) => session.ask(q);
  }
  const lines = host.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let ended = false;
  return async (question) => {
    host.err(question);
    while (!buffered.includes("\n") && !ended) {
      const { value, done } = await lines.read();
      if (done) ended = true;
      else buffered += value;
    }
    if (buffered === "" && ended) return null;
    const cut = buffered.includes("\n") ? buffered.indexOf("\n") : buffered.length;
    const line = buffered.slice(0, cut);
    buffered = buffered.slice(cut + 1);
    return line;
  };
}

/** An answer that must be given. */
async function needed(ask: Ask, question: string): Promise<string> {
  const answer = await ask(question);
  if (answer === null) throw new UsageError(`no answer to '${question}': the input ended`);
  return answer;
}

/**
 * `mini-extra config ...`.
 * @returns 0 (also for `unset` of a key the file lacks, which upstream only warns about), or the editor's code
 * @throws {UsageError} for an unknown action or missing answers
 */
export async function main(argv: string[], host: Host): Promise<number> {
  if (argv[0] === "import-upstream") {
    return await (await import("./import_upstream.ts")).main(argv.slice(1), host, "mini-extra config");
  }
  const { values, positionals } = parseCommandLine(FLAGS, argv);
  const [action, key, value, ...more] = positionals;
  if (values.help || action === undefined) return (host.out(renderHelp(CONFIG_SPEC) + "\n"), 0);
  if (more.length) throw new UsageError(`unexpected argument '${more[0]}'`);
  const env = host.env;
  let opened: Promise<Ask> | undefined;
  const ask: Ask = async (question) => await (await (opened ??= asker(host)))(question);
  switch (action) {
    case "setup":
      await setup(env, ask, (text) => host.out(`${text}\n`));
      return 0;
    case "set": {
      const k = key ?? await needed(ask, "Key to set:");
      await setGlobalKey(env, k, value ?? await needed(ask, `Value of ${k}:`));
      return 0;
    }
    case "unset": {
      const k = key ?? await needed(ask, "Key to unset:");
      if (!await unsetGlobalKey(env, k)) {
        host.err(`warning: ${k} is not set in ${globalConfigFile(env)}: nothing removed`);
      }
      return 0;
    }
    case "edit":
      return await editGlobalConfig(env);
    default:
      throw new UsageError(
        `mini-extra config: unknown action '${action}' (setup, set, unset, edit or import-upstream)`,
      );
  }
}
