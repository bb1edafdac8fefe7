/**
 * The flags of a single run (`claudius [flags]`), defined once each: `run`, `resume` and `batch`
 * take the ones they share from here, so each flag's name, type, config key and help live in one
 * place.
 *
 * @module
 */
import { type CommandSpec, flag, flagsConfig, type FlagValues, UsageError } from "../lib/flags.ts";
import { MODEL_CLASSES } from "../core/models/classes.ts";
import { ENVIRONMENT_CLASSES } from "../core/environments/classes.ts";
import { EXIT_CODES } from "../core/host.ts";

export { UsageError };

/** Every `model.model_class` name. */
const MODEL_CLASS_NAMES: readonly string[] = Object.keys(MODEL_CLASSES);

/** The environment classes claudius has (upstream's stand-ins and missing classes are config-only). */
const ENV_CLASS_NAMES: readonly string[] = Object.entries(ENVIRONMENT_CLASSES).flatMap(([name, row]) =>
  row.standIn || row.missing ? [] : [name]
);

/** Where a run saves its trajectory when no `-o` or config says: `runs/<run time>.traj.json`. */
export const RUNS_DIR = "runs";

/** Where a local or bubblewrap run works when no `--cwd` or config says: `workspace/<run time>/`. */
export const WORKSPACE_DIR = "workspace";

/** The flags every command that runs episodes takes: what to run, with which model and where. */
export const EPISODE_FLAGS = {
  config: flag({
    type: "string",
    short: "c",
    multiple: true,
    value: "SPEC",
    complete: "config",
    doc: "a config file, a built-in config's name (claudius config list), or key=value; repeatable, " +
      "merged left to right",
  }),
  model: flag({
    type: "string",
    short: "m",
    value: "NAME",
    key: "model.model_name",
    doc: "the model, e.g. openai/gpt-5-mini",
  }),
  "model-class": flag({
    type: "string",
    value: "CLASS",
    key: "model.model_class",
    choices: MODEL_CLASS_NAMES,
    doc: "how to talk to the model",
  }),
  "base-url": flag({
    type: "string",
    value: "URL",
    key: "model.base_url",
    doc: "the endpoint (OpenAI-compatible)",
  }),
  env: flag({
    type: "string",
    value: "ENV",
    key: "environment.environment_class",
    choices: ENV_CLASS_NAMES,
    aliases: ["environment-class"],
    doc: "where commands run",
  }),
  image: flag({ type: "string", value: "IMAGE", key: "environment.image", doc: "the container image" }),
  cwd: flag({
    type: "string",
    value: "DIR",
    key: "environment.cwd",
    complete: "dir",
    doc: "the working directory, which must exist (local: default a new ./workspace/<run time>/ each " +
      "run, not inside a git repository; --cwd . works here)",
  }),
  "create-cwd": flag({
    type: "boolean",
    key: "run.create_cwd",
    sets: true,
    doc: "create the working directory --cwd names; without --cwd, work in a new ./workspace/<run time>/ " +
      "also inside a git repository",
  }),
  "step-limit": flag({
    type: "int",
    value: "N",
    key: "agent.step_limit",
    doc: "at most N model calls (0 = none)",
  }),
  "cost-limit": flag({
    type: "number",
    short: "l",
    value: "X",
    key: "agent.cost_limit",
    doc: "at most X dollars (0 = none)",
  }),
  "time-limit": flag({
    type: "int",
    value: "S",
    key: "agent.wall_time_limit_seconds",
    doc: "at most S seconds of wall clock (0 = none)",
  }),
  verbose: flag({
    type: "boolean",
    short: "v",
    doc: "show everything: the model's text, commands and whole outputs; stacks on errors",
  }),
  "strict-config": flag({
    type: "boolean",
    key: "run.strict_config",
    sets: true,
    doc: "refuse config keys claudius does not know (default: one warning each, ignored as upstream " +
      "ignores them)",
  }),
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** The flags of a run that a resumed run takes too. */
export const GO_ON_FLAGS = {
  task: flag({ type: "string", short: "t", value: "TEXT", doc: "the task (else run.task from the config)" }),
  "task-file": flag({ type: "string", value: "FILE", complete: "file", doc: "read the task from FILE" }),
  yolo: flag({
    type: "boolean",
    short: "y",
    key: "agent.mode",
    sets: "yolo",
    doc: "run the model's commands without asking (agent.mode=yolo)",
  }),
  "exit-immediately": flag({
    type: "boolean",
    key: "agent.confirm_exit",
    sets: false,
    doc: "end at the submission without asking (agent.confirm_exit=false)",
  }),
  quiet: flag({
    type: "boolean",
    short: "q",
    doc: "show nothing but warnings and errors (default: each step's commands, a result line and the " +
      "cost, then a summary)",
  }),
  output: flag({
    type: "string",
    short: "o",
    value: "FILE",
    complete: "file",
    doc: "the trajectory (default runs/<UTC time>.traj.json)",
  }),
  patch: flag({
    type: "string",
    value: "FILE",
    complete: "file",
    doc: "at the end, whatever the ending: git diff of the working directory vs HEAD (untracked files " +
      "too) to FILE",
  }),
} as const;

/** The flags of `claudius [flags]`. */
export const RUN_FLAGS = {
  ...GO_ON_FLAGS,
  ...EPISODE_FLAGS,
  "agent-class": flag({
    type: "string",
    value: "CLASS",
    key: "agent.agent_class",
    choices: ["default", "interactive"],
    doc: "the agent (default: interactive at a terminal without --task, or when a config asks for " +
      "agent.mode confirm or human)",
  }),
  version: flag({ type: "boolean", short: "V", doc: "print the version" }),
} as const;

/** The exit codes, as every command's help lists them (from {@link EXIT_CODES}). */
export const EXIT_CODES_TEXT = [
  ...Object.entries(EXIT_CODES).map(([status, code]) => `${code} ${status}`),
  "1 error",
  "2 usage or config error",
].join(", ") + "; a second signal ends at once.";

/** `claudius [flags]`. */
export const RUN_SPEC: CommandSpec<typeof RUN_FLAGS> = {
  name: "claudius",
  summary: "a minimal coding agent whose only tool is bash (mini-swe-agent's loop)",
  usage: ["[-t TASK | --task-file FILE] [options]", "COMMAND [options]   (claudius help for the commands)"],
  examples: [
    [
      "claudius -c default -c examples/demo/config.yaml -t 'say hello'",
      "the offline demo: a scripted model, no key needed",
    ],
    [
      "claudius -m openai/gpt-5-mini --cwd . -t 'fix the failing test'",
      "a real run in this directory (OPENAI_API_KEY); without --cwd, in a new ./workspace/<run time>/ " +
      "(outside a git repository)",
    ],
    ["claudius", "at a terminal: asks for the task, confirms each command"],
  ],
  flags: RUN_FLAGS,
  sections: [
    ["Exit codes", EXIT_CODES_TEXT],
    [
      "Environment",
      "API keys come from the variable model.api_key_env names (OPENAI_API_KEY, ...); .env here, then " +
      "~/.config/claudius/.env and upstream's ~/.config/mini-swe-agent/.env fill variables that are not set.",
    ],
  ],
};

/** Options of a single run. */
export interface RunFlags {
  task?: string;
  taskFile?: string;
  config: string[];
  output?: string;
  /** `--patch FILE`: `git diff` of the working directory at the end of the run. */
  patch?: string;
  verbose: boolean;
  /** `-q`: no progress and no summary (default false). */
  quiet?: boolean;
  /** The config layer the flags make (each flag's `key`). */
  overrides: Record<string, Record<string, unknown>>;
}

/**
 * The options of a run from its parsed flags: the task and outputs, and the config layer of the
 * flags that set keys.
 * @throws {UsageError} for flags that contradict each other
 */
export function runFlags(
  values: FlagValues<typeof EPISODE_FLAGS> & Partial<FlagValues<typeof GO_ON_FLAGS>>,
  table: Parameters<typeof flagsConfig>[0],
): RunFlags {
  if (values.task !== undefined && values["task-file"] !== undefined) {
    throw new UsageError("--task and --task-file cannot be used together");
  }
  if (values.patch === "") throw new UsageError("--patch needs a file path");
  if (values.quiet && values.verbose) {
    throw new UsageError("-q (--quiet) and -v (--verbose) cannot be used together");
  }
  const flags: RunFlags = {
    config: values.config ?? [],
    verbose: values.verbose === true,
    quiet: values.quiet === true,
    overrides: flagsConfig(table, values),
  };
  if (values.task !== undefined) flags.task = values.task;
  if (values["task-file"] !== undefined) flags.taskFile = values["task-file"];
  if (values.output !== undefined) flags.output = values.output;
  if (values.patch !== undefined) flags.patch = values.patch;
  return flags;
}
