/**
 * `claudius report PATH... -o report.html`: the command line of the HTML report.
 *
 * @module
 */
import { checkPositionals, type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import type { Host } from "../core/host.ts";
import { VERSION } from "../core/version.ts";
import { REFERENCE_FLAG, toolIO } from "./tools.ts";
import { sameFile, writeOutput } from "../lib/files.ts";
import { collectReport } from "../tools/report/collect_report.ts";
import { MAP_WORKER } from "../tools/trajectories/map_trajectories.ts";
import { renderReport } from "../tools/report/render_report.ts";

/** The flags of `claudius report`. */
export const REPORT_FLAGS = {
  output: flag({
    type: "string",
    short: "o",
    value: "FILE",
    complete: "file",
    doc: "where to write the page (default report.html; '-': standard output)",
  }),
  title: flag({ type: "string", value: "TEXT", doc: "the page's title (default: claudius report)" }),
  reference: REFERENCE_FLAG,
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** `claudius report`. */
export const SPEC: CommandSpec<typeof REPORT_FLAGS> = {
  name: "claudius report",
  summary: "an HTML report of trajectories",
  usage: ["PATH... [-o FILE] [--title TEXT] [--reference NAME]..."],
  examples: [
    ["claudius report runs/ -o report.html", "one page about every run under runs/"],
    ["claudius report ablation/control ablation/daemon", "two sets side by side"],
  ],
  description: "One self-contained HTML page about the trajectories under each PATH (a trajectory file, " +
    "or a directory searched for *.traj.json and runs/*.json); several PATHs are several sets of runs, " +
    "shown side by side (a directory of trial-<k>/ directories is a set of trials). It shows a summary " +
    "per set, each set's success rate with its 95 % interval as an error bar (resolved by each trial's " +
    "results.json, else submitted) and pass@k and pass^k over trials, exit statuses, action-type shares and how they " +
    "change over a run, steps and cost distributions, and a table of every trajectory (sortable, " +
    "filterable) with its shape. The page loads nothing from the network. Files that cannot be read " +
    "are listed on the page and on stderr, and make the exit code 1.",
  flags: REPORT_FLAGS,
  positionals: { min: 1, max: Infinity, name: "at least one PATH (a trajectory or a directory)" },
};

/**
 * Run `claudius report` with its arguments.
 *
 * @param argv the arguments after `report`
 * @param io standard output and error
 * @returns the exit code: 0, or 1 when some file could not be read
 * @throws {UsageError} for bad flags or no PATH
 * @throws {Error} when no trajectory was found at all
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const io = toolIO(host);
  const { values, positionals } = parseCommandLine(REPORT_FLAGS, argv);
  if (values.help) return (io.write(renderHelp(SPEC) + "\n"), 0);
  checkPositionals(SPEC, positionals);
  const output = values.output ?? "report.html";
  const cannot = (why: string) => new UsageError(`Cannot write the report to '${output}': it ${why}`);
  const existing = output === "-" ? undefined : await Deno.stat(output).catch(() => undefined);
  if (existing?.isDirectory) throw cannot("is a directory; give a file path (e.g. -o report.html)");
  const reference = values.reference?.length ? values.reference : undefined;
  const data = await collectReport(positionals, reference ? { reference } : {}, {
    worker: host.programFile(MAP_WORKER),
  });
  if (existing) {
    for (const set of data.sets) {
      for (const { path } of [...set.trajectories, ...set.failures]) {
        if (await sameFile(output, path)) {
          throw cannot(`is one of the trajectories being reported (${path}); give another file`);
        }
      }
    }
  }
  const count = data.sets.reduce((n, s) => n + s.trajectories.length, 0);
  const failures = data.sets.flatMap((s) => s.failures);
  for (const f of failures) io.error(`claudius report: ${f.message}`);
  if (count === 0) {
    throw new Error(`Cannot make a report: no readable trajectory under ${positionals.join(", ")}`);
  }
  const title = values.title;
  const html = await renderReport(data, {
    ...(title !== undefined ? { title } : {}),
    generatedAt: new Date(),
    version: VERSION,
  });
  await writeOutput(output, html, io.write);
  io.error(
    `claudius report: ${count} trajector${count === 1 ? "y" : "ies"} in ${data.sets.length} set(s) -> ${
      output === "-" ? "standard output" : output
    } ` +
      `(${(new TextEncoder().encode(html).length / 1e6).toFixed(1)} MB)`,
  );
  return failures.length ? 1 : 0;
}
