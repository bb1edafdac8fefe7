/**
 * The command table: every subcommand's name, one line about it, and its module, loaded only when it
 * runs (a plain run loads none of the others). `main.ts` hands argv and the {@link Host} to
 * {@link dispatch}.
 *
 * @module
 */
import type { Host } from "../core/host.ts";
import { asSubcommand, UsageError } from "../lib/flags.ts";
import type { CommandModule, CommandTable } from "./command.ts";

export type { Command, CommandModule, CommandTable } from "./command.ts";
import { nearestKey } from "../lib/spelling.ts";
import type { Face } from "./face_names.ts";

/** Every subcommand (a run is `claudius` with no subcommand). */
export const COMMANDS: CommandTable = {
  batch: {
    summary: "run many instances in parallel; a rerun finishes what is left",
    load: () => import("./batch.ts"),
  },
  resume: { summary: "go on with an interrupted, killed or limited run", load: () => import("./resume.ts") },
  stats: { summary: "one row per trajectory and a total", load: () => import("./stats.ts") },
  compare: { summary: "two sets of runs side by side", load: () => import("./compare.ts") },
  report: { summary: "an HTML report of trajectories", load: () => import("./report.ts") },
  inspect: { summary: "browse trajectories in the terminal", load: () => import("./inspect.ts") },
  export: { summary: "a trajectory as ATIF v1.7", load: () => import("./export.ts") },
  replay: {
    summary: "play a trajectory back through the loop; exit 0 only if every message is the same",
    load: () => import("./replay.ts"),
  },
  reap: { summary: "remove containers left by this machine's dead runs", load: () => import("./reap.ts") },
  config: { summary: "check a config, or list the built-in ones", load: () => import("./config.ts") },
  completion: { summary: "shell completion for bash, zsh or fish", load: () => import("./completion.ts") },
  help: { summary: "help on a command or a topic (claudius help COMMAND)", load: () => import("./help.ts") },
};

/** The module of a single run. */
export const RUN_COMMAND = (): Promise<CommandModule> => import("./run.ts");

/**
 * Run the command argv names (a subcommand, else a single run) against the host; under one of
 * upstream's console-script names (`face`), that script's command line instead.
 * @returns the exit code
 * @throws {UsageError} for an unknown subcommand (naming the nearest one) and bad flags
 */
export async function dispatch(argv: string[], host: Host, face: Face = "claudius"): Promise<number> {
  if (face !== "claudius") {
    return await (await import("./faces.ts")).runFace(face, argv, host, COMMANDS);
  }
  const [first = "", ...rest] = argv;
  const command = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (command) {
    return await asSubcommand(first, async () => (await command.load()).main(rest, host, COMMANDS));
  }
  if (first && !first.startsWith("-")) {
    const hint = nearestKey(first, Object.keys(COMMANDS));
    throw new UsageError(
      `unknown command '${first}'${hint ? ` (did you mean '${hint}'?)` : ""}; claudius help lists them ` +
        "(a task is given with -t)",
    );
  }
  return await (await RUN_COMMAND()).main(argv, host, COMMANDS);
}
