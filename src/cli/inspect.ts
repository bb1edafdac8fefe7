/**
 * `claudius inspect [PATH...]`: browse trajectories in the terminal.
 *
 * @module
 */
import { type CommandSpec, flag, parseCommandLine } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import type { Host } from "../core/host.ts";
import { REFERENCE_FLAG } from "./tools.ts";
import { cachedStepClassifier } from "../tools/trajectories/action_types.ts";
import { findTrajectories } from "../tools/trajectories/find_trajectories.ts";
import { loadTrajectory } from "../tools/trajectories/load_trajectory.ts";
import type { Trajectory } from "../tools/trajectories/types.ts";
import { parseTrajectory } from "../tools/trajectories/parse_trajectory.ts";
import { parseTrajectoryText } from "../core/trajectory.ts";
import { Inspector } from "../tools/inspect/inspector.ts";
import { runInspector } from "../tools/inspect/run_inspector.ts";
import { hostSignals, hostTerminal, runPager } from "../tools/inspect/terminal.ts";

/** The flags of `claudius inspect`. */
export const INSPECT_FLAGS = {
  follow: flag({
    type: "boolean",
    short: "f",
    doc: "watch for changes: new steps of a running trajectory appear (at the last step the view moves " +
      "on with them), new files join the index",
  }),
  "no-reasoning": flag({ type: "boolean", doc: "start with reasoning text hidden (r toggles it)" }),
  reference: REFERENCE_FLAG,
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** `claudius inspect`. */
export const SPEC: CommandSpec<typeof INSPECT_FLAGS> = {
  name: "claudius inspect",
  summary: "browse trajectories in the terminal",
  usage: ["[PATH...] [--follow] [--no-reasoning] [--reference NAME]..."],
  examples: [
    ["claudius inspect runs/x.traj.json", "one run, a screen per step"],
    ["claudius inspect out/ --follow", "a batch as it runs: an index, then any run"],
  ],
  description: "One screen per step (step 0 is the task; format-error turns are steps of their own, so " +
    "numbers match the model calls). PATH is a trajectory file or a directory searched for *.traj.json " +
    "and runs/*.json (default: the current directory); several files open an index first (status, " +
    "steps, cost, submitted; sort and filter).\n" +
    "Keys (? shows them all): l/h next/previous step, 0/$ first/last, j/k scroll, L/H next/previous " +
    "trajectory, / search (n/N next/previous match), r reasoning, e/E the step / the file in $PAGER " +
    "(default less), R reload, i index, q quit. In the index: j/k move, enter open, s/S sort, f filter.\n" +
    "Text from trajectories is shown safe: terminal control sequences appear escaped (\\x1b[31m), " +
    "never run. Colour only when NO_COLOR is unset.",
  flags: INSPECT_FLAGS,
  positionals: { min: 0, max: Infinity, name: "" },
};

/** Files larger than this show their first screen from their beginning, before the whole is read. */
const HEAD_BYTES = 256 * 1024;

/** The first {@link HEAD_BYTES} of a large file, as a trajectory (a torn file's repair keeps its whole messages). */
async function loadHead(path: string): Promise<Trajectory | undefined> {
  const file = await Deno.open(path);
  try {
    if ((await file.stat()).size <= 2 * HEAD_BYTES) return undefined;
    const buffer = new Uint8Array(HEAD_BYTES);
    let n = 0;
    while (n < HEAD_BYTES) {
      const got = await file.read(buffer.subarray(n));
      if (got === null) break;
      n += got;
    }
    const { data } = parseTrajectoryText(new TextDecoder().decode(buffer.subarray(0, n)), path);
    return parseTrajectory(data, { path });
  } finally {
    file.close();
  }
}

/**
 * Run `claudius inspect` on the host's terminal.
 *
 * @param argv the arguments after `inspect`
 * @param host the process (its terminal, `NO_COLOR` and `PAGER`)
 * @returns the exit code (0 on q, 130 ctrl-c or SIGINT, 143 SIGTERM, 129 SIGHUP)
 * @throws {UsageError} for bad flags
 * @throws {Error} when standard input or output is not a terminal, or no trajectory was found
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const { values, positionals } = parseCommandLine(INSPECT_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(SPEC) + "\n"), 0);
  const env = host.env;
  if (!host.terminal.stdin || !host.terminal.stdout) {
    throw new Error("Cannot inspect: standard input and output must be a terminal (inspect is interactive)");
  }
  const roots = positionals.length ? positionals : ["."];
  const files = await findTrajectories(roots);
  if (!files.length) throw new Error(`Cannot inspect: no trajectory files under ${roots.join(", ")}`);
  const reference = values.reference?.length ? values.reference : undefined;
  const inspector = new Inspector(roots, files, {
    load: loadTrajectory,
    stamp: async (path) => {
      const s = await Deno.stat(path);
      return `${s.mtime?.getTime()}:${s.size}`;
    },
    find: findTrajectories,
    classify: cachedStepClassifier(reference ? { reference } : {}),
    loadHead,
  }, { reasoning: !values["no-reasoning"], follow: Boolean(values.follow) });
  await inspector.start();
  return await runInspector(inspector, {
    terminal: hostTerminal(host, env),
    signals: (handler) => hostSignals(host, handler),
    pager: (path) => runPager(path, env),
    tempFile: async (text, name) => {
      const path = await Deno.makeTempFile({ prefix: "claudius-inspect-", suffix: `-${name}` });
      await Deno.writeTextFile(path, text);
      return path;
    },
    removeFile: (path) => Deno.remove(path),
  });
}
