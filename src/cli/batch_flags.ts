/**
 * Command line of `claudius batch` (pure: argv in, flags out or a UsageError).
 *
 * @module
 */
import { EPISODE_FLAGS, type RunFlags, runFlags } from "./run_flags.ts";
import { checkPositionals, type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";
import type { DockerHostSpec } from "../batch/run_batch.ts";
import type { BatchMode } from "../batch/modes.ts";
import { compileFilter, parseSlice } from "../batch/select.ts";
import { parseShardFlag, type ShardSpec } from "../batch/shard.ts";
import { MAX_TRIALS } from "../batch/run_batch.ts";

/** Options of `claudius batch`: the single-run flags plus the batch's own. */
export interface BatchFlags extends RunFlags {
  /** Instances file (JSON array or JSONL) or directory of task files. */
  instances: string;
  /** Concurrent episodes. */
  workers: number;
  slice?: string;
  filter?: string;
  /** Shuffle seed when `--shuffle` is given. */
  shuffleSeed?: number;
  shard?: ShardSpec;
  redoExisting: boolean;
  dockerHosts: DockerHostSpec[];
  /** `--mode`: a benchmark run as upstream's runner runs it. */
  mode: BatchMode;
  /** `--instance ID|N`: run this one instance. */
  instance?: string;
  /** Ablation arms (`--arm NAME=SPEC`), in the order first named; empty for a plain batch. */
  arms: ArmFlags[];
  /** `--trials K`: every instance K times, trial k into `<out>/trial-<k>/`. */
  trials: number;
}

/** One arm of an ablation: its name and the `-c` specs it adds after the shared ones. */
export interface ArmFlags {
  name: string;
  specs: string[];
}

/** Most concurrent episodes (`-w`, a `--docker-host` share): each holds processes, a container, a connection. */
export const MAX_WORKERS = 1024;

/** The flags of `claudius batch`: the episode flags of a run, and the batch's own. */
export const BATCH_FLAGS = {
  output: flag({
    type: "string",
    short: "o",
    value: "DIR",
    complete: "dir",
    doc: "the output directory (default batch_results; see --mode)",
  }),
  workers: flag({
    type: "int",
    short: "w",
    value: "N",
    min: 1,
    max: MAX_WORKERS,
    doc: "episodes at a time (default 1)",
  }),
  mode: flag({
    type: "string",
    value: "MODE",
    choices: ["plain", "programbench", "swebench"],
    doc: "run as upstream's benchmark runner does (programbench: task folders, image " +
      "<image_name>:task_cleanroom_v6, submission.tar.gz per finished instance; swebench: an exported " +
      "dataset, done = in preds.json)",
  }),
  instance: flag({
    type: "string",
    value: "ID|N",
    doc: "run this one instance (an id, or an index into the sorted ids)",
  }),
  ...EPISODE_FLAGS,
  slice: flag({
    type: "string",
    value: "A:B",
    doc: "a Python slice of the selection (after --shuffle and --filter)",
  }),
  filter: flag({ type: "string", value: "REGEX", doc: "keep the instance ids REGEX matches at their start" }),
  shuffle: flag({ type: "boolean", doc: "sort by id, then shuffle as Python's random.shuffle" }),
  seed: flag({ type: "int", value: "N", doc: "the shuffle's seed (default 42)" }),
  shard: flag({
    type: "string",
    value: "I/N",
    doc: "run the I-th of N disjoint shards (positions I-1, I-1+N, ... of the selection); auto: I/N " +
      "from CLAUDIUS_SHARD, a Slurm array task or a Kubernetes Indexed Job",
  }),
  "redo-existing": flag({ type: "boolean", doc: "redo finished instances too" }),
  "docker-host": flag({
    type: "string",
    multiple: true,
    value: "H[=N]",
    doc: "an engine for containers (repeatable; N its worker slots, else the hosts share -w)",
  }),
  arm: flag({
    type: "string",
    multiple: true,
    value: "NAME=SPEC",
    doc: "an ablation arm: every instance also runs with the shared config plus SPEC (a -c spec; repeat " +
      "NAME for more, NAME= for none) into DIR/NAME/",
  }),
  trials: flag({
    type: "int",
    value: "K",
    min: 1,
    max: MAX_TRIALS,
    doc:
      "run every instance K times (default 1), trial k into DIR/trial-<k>/ (with --arm DIR/NAME/trial-<k>/), " +
      "each an upstream batch layout; trial by trial, a rerun finishing what is left",
  }),
} as const;

/** `claudius batch`. */
export const BATCH_SPEC: CommandSpec<typeof BATCH_FLAGS> = {
  name: "claudius batch",
  summary: "run many episodes in parallel in one process; a rerun skips finished instances",
  usage: ["INSTANCES [options]"],
  examples: [
    [
      "claudius batch tasks/ -c model.model_name=openai/gpt-5-mini -w 8 -o out/",
      "every task file in tasks/, 8 at a time",
    ],
    ["claudius batch swe.jsonl --mode swebench -w 4", "SWE-bench as upstream's runner does it"],
    ["claudius batch tasks/ --arm control= --arm daemon=daemon -o ablation/", "the control and the rich arm"],
  ],
  description:
    "INSTANCES is a JSON array, JSONL or parquet file of records {instance_id, problem_statement " +
    "| task, [image_name], ...}, or a directory of task files (id = file name without extension). " +
    "environment.image, environment.cwd, run.env_startup_command and model.script are templates over " +
    "the record. Outputs: <out>/<id>/<id>.traj.json, <out>/preds.json, <out>/exit_statuses_<time>.yaml " +
    "(with arms: under <out>/<arm>/; with --trials under .../trial-<k>/). Processes sharing -o split the " +
    "instances between them.",
  flags: BATCH_FLAGS,
  positionals: { min: 1, max: 1, name: "INSTANCES (a file or directory)" },
  sections: [[
    "Exit codes",
    "0 every selected instance finished (or runs in another process), 1 some did not (rerun to retry) or " +
    "every instance run ended with one error, 2 " +
    "usage or config error, 129 / 130 / 131 / 143 stopped by SIGHUP / SIGINT / SIGQUIT / SIGTERM (a " +
    "second signal stops at once).",
  ]],
};

/**
 * Parse `--docker-host H` or `H=N` (N >= 1 worker slots).
 * @throws {UsageError} for an empty host or a bad N
 */
export function parseDockerHost(spec: string): DockerHostSpec {
  const m = /^(.*)=(\d+)$/.exec(spec);
  const slots = /^(.+)=([^=/:@]*)$/.exec(spec);
  if (!m && slots) {
    throw new UsageError(
      `--docker-host ${slots[1]}=N: N (worker slots) must be a whole number >= 1, got '${slots[2]}'`,
    );
  }
  const host = m ? m[1]! : spec;
  if (host.trim() === "") throw new UsageError(`--docker-host needs an address, got '${spec}'`);
  if (!m) return { host };
  const capacity = Number(m[2]);
  if (capacity < 1 || capacity > MAX_WORKERS) {
    throw new UsageError(
      `--docker-host ${host}: worker slots must be from 1 to ${MAX_WORKERS}, got ${capacity}`,
    );
  }
  return { host, capacity };
}

/**
 * Group `--arm NAME=SPEC` values by name (in the order names first appear; a repeated name adds a
 * spec, `NAME=` adds none). One spec per flag, because a `key=value` spec may itself hold commas.
 * @throws {UsageError} a missing `=` or a name that cannot be a directory name
 */
export function parseArms(values: string[]): ArmFlags[] {
  const arms = new Map<string, string[]>();
  for (const value of values) {
    const eq = value.indexOf("=");
    const name = eq < 0 ? value : value.slice(0, eq);
    if (eq < 0 || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
      throw new UsageError(
        `--arm needs NAME=SPEC, NAME of letters, digits, '.', '_' and '-' (its output directory), got '${value}'`,
      );
    }
    const specs = arms.get(name) ?? [];
    if (eq < value.length - 1) specs.push(value.slice(eq + 1));
    arms.set(name, specs);
  }
  return [...arms].map(([name, specs]) => ({ name, specs }));
}

/**
 * Parse the arguments after `batch`.
 * @returns the flags, or "help"
 * @throws {UsageError} unknown flags, missing INSTANCES, bad numbers, slices, shards or regexes
 */
export function parseBatchArgs(argv: string[]): BatchFlags | "help" {
  const { values, positionals } = parseCommandLine(BATCH_FLAGS, argv);
  if (values.help) return "help";
  checkPositionals(BATCH_SPEC, positionals);
  if (values.slice !== undefined) parseSlice(values.slice);
  if (values.filter !== undefined) compileFilter(values.filter);
  if (values.seed !== undefined && !values.shuffle) throw new UsageError("--seed needs --shuffle");
  const flags: BatchFlags = {
    ...runFlags(values, BATCH_FLAGS),
    instances: positionals[0] ?? "",
    workers: values.workers ?? 1,
    redoExisting: values["redo-existing"] === true,
    dockerHosts: (values["docker-host"] ?? []).map(parseDockerHost),
    mode: values.mode === "programbench" || values.mode === "swebench" ? values.mode : "plain",
    arms: parseArms(values.arm ?? []),
    trials: values.trials ?? 1,
  };
  if (values.slice !== undefined) flags.slice = values.slice;
  if (values.filter !== undefined) flags.filter = values.filter;
  if (values.instance !== undefined) flags.instance = values.instance;
  if (values.shuffle) flags.shuffleSeed = values.seed ?? 42;
  if (values.shard !== undefined) flags.shard = parseShardFlag(values.shard);
  return flags;
}
