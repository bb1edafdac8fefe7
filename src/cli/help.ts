/**
 * `claudius help [COMMAND | TOPIC]`: the commands, one command's help, or a topic (keys, providers, exit
 * codes).
 *
 * @module
 */
import { type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";
import { HELP_WIDTH, renderHelp, wrap } from "../lib/help.ts";
import { RUN_SPEC } from "./run_flags.ts";
import { nearestKey } from "../lib/spelling.ts";
import type { Host } from "../core/host.ts";
import type { CommandTable } from "./command.ts";
import { TOPICS } from "./help_topics.ts";

/** The flags of `claudius help`. */
export const HELP_FLAGS = { help: flag({ type: "boolean", short: "h", doc: "print this help" }) } as const;

/** `claudius help`. */
export const SPEC: CommandSpec<typeof HELP_FLAGS> = {
  name: "claudius help",
  summary: "help on a command or a topic",
  usage: ["[COMMAND | TOPIC]"],
  examples: [
    ["claudius help batch", "the flags of claudius batch"],
    ["claudius help keys model", "the model section's config keys"],
    ["claudius help", "a run's flags, the commands and the topics"],
  ],
  flags: HELP_FLAGS,
  positionals: { min: 0, max: 2, name: "" },
  sections: [["Topics", Object.entries(TOPICS).map(([name, t]) => `${name}: ${t.summary}`).join("\n")]],
};

/** `claudius --help`: a run's help, then the commands. */
export function topHelp(commands: CommandTable): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  const list = Object.entries(commands).flatMap(([name, c]) =>
    wrap(c.summary, HELP_WIDTH, width + 4).map((l, i) => (i ? l : `  ${name.padEnd(width)}  ${l}`))
  );
  const topics = `Topics (claudius help TOPIC): ${Object.keys(TOPICS).join(", ")}`;
  return `${renderHelp(RUN_SPEC)}\n\nCommands (claudius help COMMAND):\n${list.join("\n")}\n\n${topics}`;
}

/**
 * `claudius help [COMMAND]`.
 * @returns 0
 * @throws {UsageError} for an unknown command (naming the nearest one)
 */
export async function main(argv: string[], host: Host, commands: CommandTable): Promise<number> {
  const { values, positionals } = parseCommandLine(HELP_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(SPEC) + "\n"), 0);
  const [topic, arg] = positionals;
  if (arg !== undefined && topic !== "keys") throw new UsageError(`unexpected argument '${arg}'`);
  if (topic === undefined || topic === "run") {
    host.out(topHelp(commands) + "\n");
    return 0;
  }
  if (Object.hasOwn(TOPICS, topic)) {
    host.out(await TOPICS[topic]!.render(arg) + "\n");
    return 0;
  }
  const command = Object.hasOwn(commands, topic) ? commands[topic] : undefined;
  if (!command) {
    const hint = nearestKey(topic, ["run", ...Object.keys(commands), ...Object.keys(TOPICS)]);
    throw new UsageError(
      `no help on '${topic}'${hint ? ` (did you mean '${hint}'?)` : ""}; claudius help lists the commands ` +
        "and topics",
    );
  }
  host.out(renderHelp((await command.load()).SPEC) + "\n");
  return 0;
}
