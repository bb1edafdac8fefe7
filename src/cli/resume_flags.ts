/**
 * Command line of `claudius resume` (pure: argv in, flags out or a UsageError).
 *
 * @module
 */
import { EPISODE_FLAGS, GO_ON_FLAGS, type RunFlags, runFlags } from "./run_flags.ts";
import { checkPositionals, type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";

/** Options of `claudius resume`: a single run's flags (those that make sense mid-run) plus its own. */
export interface ResumeFlags extends RunFlags {
  /** The trajectory to continue ("" with {@link last}). */
  trajectory: string;
  /** `--last`: the newest trajectory under `./runs/`. */
  last: boolean;
  /** Re-run the recorded commands in a new container before going on. */
  replay: boolean;
  /** Flags only a torn trajectory (which lost its config) takes. */
  torn: { env?: string };
}

/** The flags of `claudius resume`: those of a run that make sense mid-run, and its own. */
export const RESUME_FLAGS = {
  ...GO_ON_FLAGS,
  output: flag({
    ...GO_ON_FLAGS.output,
    doc: "the new trajectory (default: beside the old one, <stem>.resumeN.traj.json)",
  }),
  ...EPISODE_FLAGS,
  env: flag({
    ...EPISODE_FLAGS.env,
    doc: "where commands run (only for a torn trajectory, which lost its config)",
  }),
  replay: flag({
    type: "boolean",
    doc: "docker: run the recorded commands again in the new container first",
  }),
  last: flag({
    type: "boolean",
    doc: "the newest trajectory under ./runs/ (where a run saves by default), instead of TRAJECTORY",
  }),
} as const;

/** `claudius resume`. */
export const RESUME_SPEC: CommandSpec<typeof RESUME_FLAGS> = {
  name: "claudius resume",
  summary: "continue a run that was interrupted, killed or stopped at a limit, from its trajectory",
  usage: ["TRAJECTORY [options]", "--last [options]"],
  examples: [
    ["claudius resume --last", "go on with the newest run under ./runs/"],
    ["claudius resume runs/2026-12-01T10-00-00.traj.json", "go on where it stopped"],
    ["claudius resume runs/x.traj.json --step-limit 200", "go on with a raised limit"],
  ],
  description: "The recorded config, then -c specs and flags on top; the same messages, model calls, " +
    "cost and format-error streak. Local and bubblewrap go on in the same working directory, docker in " +
    "a new container (the model is told). A step cut short runs its commands again first. The new " +
    "trajectory links to the old one (info.resumed_from), which is never changed. Values saved redacted " +
    "must be given again (-c KEY=VALUE).",
  flags: RESUME_FLAGS,
  positionals: { min: 0, max: 1, name: "TRAJECTORY (a trajectory file)" },
  sections: [[
    "Exit codes",
    "as for a run; 2 also for a submitted trajectory or a redacted value not given again.",
  ]],
};

/**
 * Parse the arguments after `resume`.
 * @returns the flags, or "help"
 * @throws {UsageError} unknown flags, a missing or second TRAJECTORY, bad numbers
 */
export function parseResumeArgs(argv: string[]): ResumeFlags | "help" {
  const { values, positionals } = parseCommandLine(RESUME_FLAGS, argv);
  if (values.help) return "help";
  checkPositionals(RESUME_SPEC, positionals);
  const last = values.last === true;
  if (last && positionals.length) {
    throw new UsageError(`--last and a TRAJECTORY ('${positionals[0]}') cannot be used together`);
  }
  if (!last && !positionals.length) {
    throw new UsageError(
      "resume needs a TRAJECTORY (a trajectory file), or --last for the newest in ./runs/",
    );
  }
  return {
    ...runFlags(values, RESUME_FLAGS),
    trajectory: positionals[0] ?? "",
    last,
    replay: values.replay === true,
    torn: { ...(values.env !== undefined ? { env: values.env } : {}) },
  };
}

/**
 * Where a resumed trajectory goes by default: next to its predecessor, `<stem>.resume<N>` with the
 * predecessor's extension (`.traj.json` or `.json`) and the first N whose file does not exist yet.
 *
 * @example
 * ```ts
 * await resumedPath("runs/x.traj.json"); // "runs/x.resume1.traj.json" (or resume2, ... when taken)
 * await resumedPath("runs/x.resume1.traj.json"); // "runs/x.resume2.traj.json"
 * ```
 */
export async function resumedPath(predecessor: string): Promise<string> {
  const m = /^(.*?)(\.resume\d+)?((?:\.traj)?\.json)?$/.exec(predecessor)!;
  const [stem, ext] = [m[1]!, m[3] ?? ".json"];
  for (let n = 1;; n++) {
    const path = `${stem}.resume${n}${ext}`;
    try {
      await Deno.lstat(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return path;
      throw e;
    }
  }
}
