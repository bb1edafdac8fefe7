/**
 * The `mini-extra` (`mini-e`) face: upstream's utilities that users script, each mapped onto claudius's
 * own command: `config` (the global `.env`), `inspect` / `i` / `inspector` (`claudius inspect`),
 * `swebench`, `swebench-single` and `programbench` (`claudius batch` in the benchmark's mode, or one
 * instance's run).
 *
 * @module
 */
import { asSubcommand, type CommandSpec, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import { nearestKey } from "../lib/spelling.ts";
import type { Host } from "../core/host.ts";
import type { CommandTable } from "./command.ts";
import { runBenchmark } from "./mini_bench.ts";

/** One of upstream's `mini-extra` subcommands: its names (the first is its own) and what it does. */
interface Subcommand {
  names: readonly string[];
  summary: string;
  run(argv: string[], host: Host, commands: CommandTable): Promise<number>;
}

const INSPECT_FLAGS = {
  reasoning: { type: "boolean", doc: "show reasoning text (the default)" },
  "no-reasoning": { type: "boolean", doc: "start with reasoning text hidden (r toggles it)" },
  help: { type: "boolean", short: "h", doc: "print this help" },
} as const;

/** `mini-extra inspect`. */
export const INSPECT_SPEC: CommandSpec<typeof INSPECT_FLAGS> = {
  name: "mini-extra inspect",
  summary: "browse trajectories in the terminal (claudius inspect)",
  usage: ["[PATH] [--reasoning | --no-reasoning]"],
  examples: [["mini-extra inspect runs/", "every trajectory under runs/: an index, then a screen per step"]],
  flags: INSPECT_FLAGS,
  positionals: { min: 0, max: 1, name: "" },
};

/** `mini-extra inspect [PATH]`: claudius's inspector on PATH (default: the current directory). */
async function inspect(argv: string[], host: Host): Promise<number> {
  const { values, positionals } = parseCommandLine(INSPECT_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(INSPECT_SPEC) + "\n"), 0);
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
  const args = [...(values["no-reasoning"] ? ["--no-reasoning"] : []), positionals[0] ?? "."];
  return await (await import("./inspect.ts")).main(args, host);
}

/** Upstream's subcommands, in upstream's order. */
export const SUBCOMMANDS: readonly Subcommand[] = [
  {
    names: ["config"],
    summary: "manage the global config file",
    run: async (argv, host) => await (await import("./mini_config.ts")).main(argv, host),
  },
  { names: ["inspect", "i", "inspector"], summary: "browse trajectories (claudius inspect)", run: inspect },
  {
    names: ["swebench"],
    summary: "evaluate on SWE-bench, batch mode (claudius batch --mode swebench)",
    run: (argv, host) => runBenchmark("swebench", argv, host),
  },
  {
    names: ["swebench-single"],
    summary: "evaluate on one SWE-bench instance",
    run: (argv, host) => runBenchmark("swebench-single", argv, host),
  },
  {
    names: ["programbench"],
    summary: "run on ProgramBench, batch mode (claudius batch --mode programbench)",
    run: (argv, host) => runBenchmark("programbench", argv, host),
  },
];

/** `mini-extra` with no subcommand: the list. */
function overview(): string {
  const rows = SUBCOMMANDS.map((s) => `  ${s.names.join(" or ")}: ${s.summary}`);
  return [
    "mini-extra: mini-swe-agent's extra commands, run by claudius.",
    "",
    "Subcommands (mini-extra SUBCOMMAND --help):",
    ...rows,
  ].join("\n");
}

/**
 * `mini-extra SUBCOMMAND [args]`.
 * @returns the subcommand's exit code (0 for the list)
 * @throws {UsageError} for an unknown subcommand (naming the nearest one)
 */
export async function main(argv: string[], host: Host, commands: CommandTable): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || ((first === "-h" || first === "--help") && rest.length === 0)) {
    return (host.out(overview() + "\n"), 0);
  }
  const sub = SUBCOMMANDS.find((s) => s.names.includes(first));
  if (!sub) {
    const hint = nearestKey(first, SUBCOMMANDS.flatMap((s) => s.names));
    throw new UsageError(
      `mini-extra: unknown subcommand '${first}'${hint ? ` (did you mean '${hint}'?)` : ""}; ` +
        `one of ${SUBCOMMANDS.map((s) => s.names[0]).join(", ")}`,
    );
  }
  return await asSubcommand(first, () => sub.run(rest, host, commands));
}
