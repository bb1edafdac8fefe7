/**
 * `mini-extra swebench`, `swebench-single` and `programbench`: upstream's benchmark runners' command
 * lines mapped onto claudius's own (`claudius batch --mode swebench|programbench`, and a single run
 * of one SWE-bench instance in its container). Datasets come from files: upstream's subset names are
 * Hugging Face datasets, which claudius does not download (the error says how to export one).
 *
 * @module
 */
import {
  checkPositionals,
  type CommandSpec,
  flag,
  type FlagDef,
  flagsConfig,
  parseCommandLine,
} from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import { UsageError } from "../lib/flags.ts";
import type { Host } from "../core/host.ts";
import type { BatchFlags } from "./batch_flags.ts";
import { batchCommand } from "./batch.ts";
import { exportHint, MODES, SWEBENCH_SUBSETS } from "../batch/modes.ts";
import { loadInstances } from "../batch/instances.ts";
import { pickInstance } from "../batch/select.ts";
import { instanceConfig } from "../batch/instance_config.ts";
import { compileFilter, parseSlice } from "../batch/select.ts";
import { refuseUnasked, resolveFlagsConfig } from "./_shared.ts";
import { runWithSignals } from "./run.ts";
import { openTerminal } from "./terminal.ts";
import { globalConfigDir } from "./mini_global.ts";
import { classNames, MINI_FLAGS, miniExitCode, upstreamDefaults, upstreamSpecs } from "./mini.ts";

const SELECTION = {
  slice: flag({ type: "string", value: "A:B", doc: "a Python slice of the instances, e.g. 0:5" }),
  filter: flag({ type: "string", value: "REGEX", doc: "keep the instance ids this regex matches" }),
  shuffle: flag({ type: "boolean", doc: "shuffle the instances (seed 42, as upstream)" }),
  "redo-existing": flag({ type: "boolean", doc: "run finished instances again" }),
} as const;

const BATCH = {
  output: flag({ type: "string", short: "o", value: "DIR", complete: "dir", doc: "the output directory" }),
  workers: flag({ type: "int", short: "w", value: "N", min: 1, doc: "instances at a time (default 1)" }),
  model: MINI_FLAGS.model,
  "model-class": MINI_FLAGS["model-class"],
  config: flag({
    ...MINI_FLAGS.config,
    doc: "config files, built-in names or key=value (default: the benchmark's)",
  }),
  "environment-class": flag({
    ...MINI_FLAGS["environment-class"],
    doc: "where commands run: docker (the benchmark's default), singularity, ... or upstream's dotted path",
  }),
  help: MINI_FLAGS.help,
} as const;

const SUBSET = {
  subset: flag({
    type: "string",
    value: "PATH",
    doc: "the dataset: a JSON, JSONL or parquet file exported from SWE-bench (upstream's subset names " +
      "are Hugging Face datasets: the error shows the one-line export)",
  }),
  split: flag({ type: "string", value: "SPLIT", doc: "the split the export was made from (default dev)" }),
} as const;

/** `mini-extra swebench`'s options. */
export const SWEBENCH_FLAGS = { ...SUBSET, ...SELECTION, ...BATCH } as const;
/** `mini-extra programbench`'s options. */
export const PROGRAMBENCH_FLAGS = { ...SELECTION, ...BATCH } as const;
/** `mini`'s options but the task, which the instance gives (upstream's `swebench-single` has no `-t`). */
const { task: _task, ...SINGLE_MINI_FLAGS } = MINI_FLAGS;
/** `mini-extra swebench-single`'s options. */
export const SINGLE_FLAGS = {
  ...SUBSET,
  instance: flag({
    type: "string",
    short: "i",
    value: "ID|N",
    doc: "the instance: an id, or an index (default 0)",
  }),
  ...SINGLE_MINI_FLAGS,
  "environment-class": BATCH["environment-class"],
  "cost-limit": flag({
    ...MINI_FLAGS["cost-limit"],
    doc: "stop once the run cost X dollars; 0 for no limit (swebench's: 3)",
  }),
  config: flag({
    ...MINI_FLAGS.config,
    doc: "config files, built-in names or key=value (default: swebench)",
  }),
  output: flag({
    ...MINI_FLAGS.output,
    doc: "the trajectory (default <global config dir>/last_swebench_single_run.traj.json)",
  }),
} as const;

const spec = <T extends Record<string, FlagDef>>(
  name: string,
  summary: string,
  usage: string,
  flags: T,
  examples: [string, string][],
): CommandSpec<T> => ({ name: `mini-extra ${name}`, summary, usage: [usage], examples, flags });

/** The specs of the three runners. */
export const SPECS = {
  swebench: spec(
    "swebench",
    "SWE-bench in batch mode (claudius batch --mode swebench)",
    "--subset FILE [options]",
    SWEBENCH_FLAGS,
    [
      [
        "mini-extra swebench --subset lite_dev.jsonl -w 4 -o out/",
        "four at a time; a rerun skips what preds.json holds",
      ],
    ],
  ),
  programbench: {
    ...spec(
      "programbench",
      "ProgramBench in batch mode (claudius batch --mode programbench)",
      "TASKS [options]",
      PROGRAMBENCH_FLAGS,
      [
        ["mini-extra programbench programbench/tasks/ -w 8", "every task folder, eight at a time"],
      ],
    ),
    description:
      "TASKS (claudius's addition) is ProgramBench's task folders or a list of ids: upstream reads " +
      "them from its programbench package, which claudius does not have.",
    positionals: { min: 1, max: 1, name: "TASKS (ProgramBench's task folders, or a file of instance ids)" },
  },
  "swebench-single": spec(
    "swebench-single",
    "one SWE-bench instance, interactively (in its container)",
    "--subset FILE [-i ID|N] [options]",
    SINGLE_FLAGS,
    [
      ["mini-extra swebench-single --subset lite_dev.jsonl -i 3", "asks before each command, at a terminal"],
    ],
  ),
};

/** The dataset file a `--subset` names; an upstream subset name with no such file is refused. */
async function subsetFile(subset: string, split: string): Promise<string> {
  const exists = await Deno.stat(subset).then(() => true, () => false);
  if (!exists && Object.hasOwn(SWEBENCH_SUBSETS, subset)) {
    throw new UsageError(
      `--subset ${subset} is upstream's name of ${SWEBENCH_SUBSETS[subset]}, which claudius does not ` +
        `download: export it once (${exportHint(subset, split)}) and pass --subset ${subset}_${split}.jsonl`,
    );
  }
  return subset;
}

type BatchValues = ReturnType<typeof parseCommandLine<typeof PROGRAMBENCH_FLAGS>>["values"];

/** A claudius batch of upstream's runner `mode`; exit 0 unless the command line or config is bad. */
async function batch(
  mode: "swebench" | "programbench",
  values: BatchValues,
  instances: string,
  host: Host,
): Promise<number> {
  if (values.slice !== undefined) parseSlice(values.slice);
  if (values.filter !== undefined) compileFilter(values.filter);
  const flags: BatchFlags = {
    config: await upstreamSpecs(values.config ?? [], host),
    verbose: false,
    overrides: flagsConfig(PROGRAMBENCH_FLAGS, classNames(values)),
    instances,
    workers: values.workers ?? 1,
    redoExisting: values["redo-existing"] === true,
    dockerHosts: [],
    mode,
    arms: [],
    trials: 1,
    // Upstream writes SWE-bench's results into the current directory when -o is not given.
    output: values.output || (mode === "swebench" ? "." : MODES.programbench.defaultOutput(Date.now())),
    ...(values.slice ? { slice: values.slice } : {}),
    ...(values.filter ? { filter: values.filter } : {}),
    ...(values.shuffle ? { shuffleSeed: 42 } : {}),
  };
  // Upstream's runners record each instance's failure and exit 0 (but when all failed alike); a
  // signal still stops with 128+N.
  return await batchCommand(flags, host, true);
}

/** `mini-extra swebench [options]`. */
async function swebench(argv: string[], host: Host): Promise<number> {
  const { values, positionals } = parseCommandLine(SWEBENCH_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(SPECS.swebench) + "\n"), 0);
  checkPositionals(SPECS.swebench, positionals);
  return await batch(
    "swebench",
    values,
    await subsetFile(values.subset ?? "lite", values.split ?? "dev"),
    host,
  );
}

/** `mini-extra programbench TASKS [options]`. */
async function programbench(argv: string[], host: Host): Promise<number> {
  const { values, positionals } = parseCommandLine(PROGRAMBENCH_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(SPECS.programbench) + "\n"), 0);
  checkPositionals(SPECS.programbench, positionals);
  return await batch("programbench", values, positionals[0] ?? "", host);
}

/** `mini-extra swebench-single`: one instance in its container, as a single (interactive) run. */
async function single(argv: string[], host: Host): Promise<number> {
  const { values, positionals } = parseCommandLine(SINGLE_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(SPECS["swebench-single"]) + "\n"), 0);
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const file = await subsetFile(values.subset ?? "lite", values.split ?? "dev");
  const instance = pickInstance(await loadInstances(file), values.instance ?? "0");
  const output = values.output ?? `${globalConfigDir(host.env)}/last_swebench_single_run.traj.json`;
  const overrides = flagsConfig(SINGLE_FLAGS, classNames(values));
  (overrides.agent ??= {}).output_path = output;
  const canAsk = host.terminal.stdin;
  const resolved = await resolveFlagsConfig(
    { config: await upstreamSpecs(values.config ?? [], host), verbose: false, overrides },
    host,
    "benchmarks/swebench",
  );
  upstreamDefaults(resolved.config, resolved.sources, host.cwd);
  refuseUnasked(resolved.config, resolved.sources, canAsk);
  const config = instanceConfig(resolved.config, instance, output.slice(0, output.lastIndexOf("/")) || ".");
  const task = String(instance.problem_statement ?? instance.task ?? "");
  if (!task.trim()) throw new UsageError(`instance ${instance.instance_id} has no problem_statement`);
  const session = await openTerminal(host, canAsk);
  const code = await runWithSignals(
    config,
    { task, outputPath: output, prompts: resolved.prompts },
    { verbose: false, quiet: true },
    host,
    session,
  );
  host.out(`Saved trajectory to '${output}'\n`);
  return miniExitCode(code);
}

/** Run one of the three runners. */
export function runBenchmark(name: keyof typeof SPECS, argv: string[], host: Host): Promise<number> {
  if (name === "swebench") return swebench(argv, host);
  return name === "programbench" ? programbench(argv, host) : single(argv, host);
}
