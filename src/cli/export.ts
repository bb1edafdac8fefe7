/**
 * `claudius export --atif TRAJ [-o OUT]`: a trajectory as ATIF v1.7.
 *
 * @module
 */
import { type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import type { Host } from "../core/host.ts";
import { loadTrajectory } from "../tools/trajectories/load_trajectory.ts";
import { toAtif } from "../tools/trajectories/to_atif.ts";
import { validateAtif } from "../tools/trajectories/validate_atif.ts";
import { toolIO } from "./tools.ts";
import { readFailure } from "../tools/trajectories/map_trajectories.ts";
import { sameFile, writeOutput } from "../lib/files.ts";

/** The flags of `claudius export`. */
export const EXPORT_FLAGS = {
  atif: flag({ type: "boolean", doc: "the format (the only one so far)" }),
  output: flag({
    type: "string",
    short: "o",
    value: "FILE",
    complete: "file",
    doc: "where to write (default and '-': standard output)",
  }),
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** `claudius export`. */
export const SPEC: CommandSpec<typeof EXPORT_FLAGS> = {
  name: "claudius export",
  summary: "a trajectory as ATIF v1.7",
  usage: ["--atif TRAJ [-o OUT]"],
  examples: [["claudius export --atif runs/x.traj.json -o x.atif.json", "for Harbor and other ATIF readers"]],
  description: "A trajectory (claudius's or upstream mini-swe-agent's, torn files repaired) as ATIF v1.7, " +
    "the Agent Trajectory Interchange Format Harbor reads: one agent step per model call with its tool " +
    "calls, the observations linked to them, tokens and exact cost; format-error turns as agent steps " +
    "of their own; exit status and submission in the root 'extra'. The document is checked against the " +
    "ATIF rules before it is written.",
  flags: EXPORT_FLAGS,
  positionals: { min: 1, max: 1, name: "one trajectory file" },
};

/**
 * Run `claudius export` with its arguments.
 * @returns 0; 1 when the trajectory holds no messages yet, or when the document broke an ATIF rule (a
 *   bug: the problems are printed)
 * @throws {UsageError} for bad flags or a missing TRAJ
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const io = toolIO(host);
  const { values, positionals } = parseCommandLine(EXPORT_FLAGS, argv);
  if (values.help) return (io.write(renderHelp(SPEC) + "\n"), 0);
  if (!values.atif) throw new UsageError("export needs a format: --atif");
  if (positionals.length !== 1) {
    throw new UsageError(`export needs one trajectory file, got ${positionals.length}`);
  }
  const path = positionals[0] ?? "";
  const out = values.output;
  if (out !== undefined && await sameFile(out, path)) {
    throw new UsageError(`export -o names the trajectory being exported (${path}); give another file`);
  }
  const t = await loadTrajectory(path).catch((e) => {
    throw e instanceof SyntaxError ? e : new Error(readFailure(path, e).message, { cause: e });
  });
  if (t.repaired) io.error(`warning: ${t.path} was torn; exported its whole messages`);
  const atif = toAtif(t);
  if (atif.steps.length === 0) {
    io.error(
      `error: Cannot export ${path}: it holds no messages yet (a run in its first step, or one that ended ` +
        "before its first model call)",
    );
    return 1;
  }
  const problems = validateAtif(atif);
  for (const p of problems) io.error(`error: ATIF rule broken: ${p}`);
  if (problems.length) return 1;
  const text = JSON.stringify(atif, null, 2) + "\n";
  await writeOutput(out ?? "-", text, io.write);
  return 0;
}
