/**
 * The `mini` and `mini-swe-agent` faces: claudius as upstream's console script `mini` (both names
 * are the same script upstream): its flags, the built-in `mini` config (or
 * `$MSWEA_MINI_CONFIG_PATH`) unless a `-c` names a file, the interactive agent (confirm mode at a
 * terminal, as `mini.yaml` asks), the current directory as the local working directory, the trajectory
 * at `<global config dir>/last_mini_run.traj.json`, exit 0 for every ending of the agent, and the
 * first-run setup at a terminal unless `MSWEA_CONFIGURED` is set.
 *
 * @module
 */
import { resolvePath } from "../lib/paths.ts";
import { type CommandSpec, flag, flagsConfig, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import { EXIT_CODES, type Host } from "../core/host.ts";
import { resolveKeys } from "../core/config/keys.ts";
import type { ConfigSource, ResolvedConfig } from "../core/config/load.ts";
import { INTERACTIVE_AGENT_KEYS } from "../features/interactive/keys.ts";
import { upstreamModelClass } from "../core/models/upstream_classes.ts";
import { runsOnHost, upstreamEnvironmentClass } from "../core/environments/classes.ts";
import type { RunFlags } from "./run_flags.ts";
import { refuseUnasked, resolveFlagsConfig } from "./_shared.ts";
import { runWithSignals } from "./run.ts";
import { openTerminal } from "./terminal.ts";
import { globalConfigDir, setup } from "./mini_global.ts";
import { isPlainObject } from "../lib/json.ts";

/** Upstream's `mini` options, each once (the run's own flag table, not claudius's). */
export const MINI_FLAGS = {
  model: flag({
    type: "string",
    short: "m",
    value: "NAME",
    key: "model.model_name",
    doc: "the model (else model.model_name, else $MSWEA_MODEL_NAME)",
  }),
  "model-class": flag({
    type: "string",
    value: "CLASS",
    key: "model.model_class",
    doc: "the model class: a name (litellm, litellm_response, openrouter, ...) or upstream's dotted path",
  }),
  "agent-class": flag({
    type: "string",
    value: "CLASS",
    key: "agent.agent_class",
    doc: "interactive (the default) or default, or upstream's dotted path",
  }),
  "environment-class": flag({
    type: "string",
    value: "CLASS",
    key: "environment.environment_class",
    doc:
      "where commands run: local (the default: the current directory), docker, ... or upstream's dotted path",
  }),
  task: flag({
    type: "string",
    short: "t",
    value: "TEXT",
    key: "run.task",
    doc: "the task (else asked for)",
  }),
  yolo: flag({
    type: "boolean",
    short: "y",
    key: "agent.mode",
    sets: "yolo",
    doc: "run the model's commands without asking",
  }),
  "cost-limit": flag({
    type: "number",
    short: "l",
    value: "X",
    key: "agent.cost_limit",
    doc: "stop once the run cost X dollars; 0 for no limit (mini.yaml: 3)",
  }),
  config: flag({
    type: "string",
    short: "c",
    multiple: true,
    value: "SPEC",
    complete: "file",
    doc: "a config file, a built-in config's name (mini, swebench, ...), or key=value; repeatable, merged " +
      "left to right. A file or built-in replaces mini.yaml: give -c mini first to keep it (key=value specs " +
      "alone add to it)",
  }),
  output: flag({
    type: "string",
    short: "o",
    value: "FILE",
    complete: "file",
    doc: "the trajectory (default <global config dir>/last_mini_run.traj.json)",
  }),
  "exit-immediately": flag({
    type: "boolean",
    key: "agent.confirm_exit",
    sets: false,
    doc: "end at the submission instead of asking for a new task",
  }),
  help: flag({ type: "boolean", short: "h", doc: "print this help" }),
} as const;

/** `mini` and `mini-swe-agent`: the same script under two names. */
export function miniSpec(name: string): CommandSpec<typeof MINI_FLAGS> {
  return {
    name,
    summary:
      "mini-swe-agent's `mini`, run by claudius: a coding agent whose only tool is bash, in the current " +
      "directory",
    usage: ["[-t TASK] [-m MODEL] [-c SPEC]... [options]"],
    examples: [
      [`${name} -m openai/gpt-5-mini`, "asks for the task, then before each command (confirm mode)"],
      [
        `${name} -y -t 'fix the failing test' --exit-immediately`,
        "headless: no questions, ends at the submission",
      ],
      [`${name} -c mini -c agent.step_limit=50 -t 'add a test'`, "mini.yaml with a step limit"],
    ],
    description: "Behaves as upstream's mini (mini-swe-agent 2.4): its flags, mini.yaml's settings, " +
      "the interactive agent, the global .env ($MSWEA_GLOBAL_CONFIG_DIR/.env, else " +
      "~/.config/mini-swe-agent/.env) and, at a terminal, the first-run setup unless MSWEA_CONFIGURED is set.",
    flags: MINI_FLAGS,
    sections: [
      [
        "Exit codes",
        "0 whatever the agent's ending (Submitted, LimitsExceeded, ...); 1 an error; 2 a bad " +
        "command line; 128+N stopped by signal N.",
      ],
    ],
  };
}

/** Upstream's agent classes by their dotted path. */
const AGENT_PATHS: Record<string, string> = {
  "minisweagent.agents.default.DefaultAgent": "default",
  "minisweagent.agents.interactive.InteractiveAgent": "interactive",
};

/** A class flag's value as claudius names it (upstream's dotted paths mapped; others as given). */
export function classNames(values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...values };
  const map = (name: string, to: (v: string) => string | undefined) => {
    const v = out[name];
    if (typeof v === "string") out[name] = to(v) ?? v;
  };
  map("model-class", (v) => upstreamModelClass(v));
  map("environment-class", (v) => upstreamEnvironmentClass(v));
  map("agent-class", (v) => AGENT_PATHS[v]);
  return out;
}

const isFile = (path: string) => Deno.stat(path).then((s) => s.isFile, () => false);

/**
 * `-c default` on upstream's faces names upstream's default (the built-in `upstream/default`: no limits,
 * fenced commands), unless the current directory or `$MSWEA_CONFIG_DIR` holds a `default.yaml`, which
 * upstream's lookup finds first; claudius's own `default` keeps its name on claudius's face.
 */
export async function upstreamSpecs(specs: readonly string[], host: Host): Promise<string[]> {
  const out: string[] = [];
  for (const spec of specs) {
    const dirs = [host.cwd, ...(host.env.MSWEA_CONFIG_DIR ? [host.env.MSWEA_CONFIG_DIR] : [])];
    const own = spec === "default" || spec === "default.yaml";
    const shadowed = own && (await Promise.all(dirs.map((d) => isFile(`${d}/default.yaml`)))).some(Boolean);
    out.push(own && !shadowed ? `${host.builtinDir}/upstream/default.yaml` : spec);
  }
  return out;
}

const sets = (sources: ConfigSource[], section: string, key: string) =>
  sources.some((s) => isPlainObject(s.data[section]) && s.data[section][key] !== undefined);

/**
 * Upstream's defaults of this face where no config says otherwise: the interactive agent (upstream's
 * `default_type="interactive"`, with its `mode: confirm` and `confirm_exit` defaults), and for the local
 * environments the current directory (upstream's `cwd: ""` is `os.getcwd()`).
 */
export function upstreamDefaults(config: ResolvedConfig, sources: ConfigSource[], cwd: string): void {
  if (!sets(sources, "agent", "agent_class")) {
    const { agent_class: _, ...given } = config.agent;
    config.agent = {
      ...resolveKeys(INTERACTIVE_AGENT_KEYS, given, "agent", { partial: true }),
      agent_class: "interactive",
    };
  }
  const local = runsOnHost(config.environment.environment_class);
  if (local && !config.environment.cwd) config.environment.cwd = cwd;
}

/** The exit code of an ending, as upstream's `mini` exits: 0 for every ending the agent records. */
export function miniExitCode(code: number): number {
  const status = Object.keys(EXIT_CODES).find((s) => EXIT_CODES[s] === code);
  if (status === "EnvironmentLost") return 1; // upstream: an exception (its container vanished)
  return code >= 128 ? code : status !== undefined ? 0 : code;
}

/**
 * The default config: `$MSWEA_MINI_CONFIG_PATH` when set, the user's choice (a file of the current
 * directory it names is taken, by its absolute path), else claudius's own `mini`, which is never a file
 * of the current directory (a cloned repository's `./mini.yaml`).
 */
async function defaultSpec(host: Host): Promise<string> {
  const named = host.env.MSWEA_MINI_CONFIG_PATH;
  if (!named) return "mini";
  for (const name of /\.ya?ml$/.test(named) ? [named] : [`${named}.yaml`, `${named}.yml`, named]) {
    const path = resolvePath(name, host.cwd);
    if (await Deno.stat(path).then((s) => s.isFile, () => false)) return path;
  }
  return named;
}

/**
 * `mini [flags]` / `mini-swe-agent [flags]`: one run as upstream's `mini` runs it.
 * @returns its exit code
 * @throws {UsageError} for bad flags, a mode that would ask where no one answers, or no task
 */
export async function main(argv: string[], host: Host, name: string): Promise<number> {
  const { values, positionals } = parseCommandLine(MINI_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(miniSpec(name)) + "\n"), 0);
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const canAsk = host.terminal.stdin;
  const output = values.output ?? `${globalConfigDir(host.env)}/last_mini_run.traj.json`;
  const overrides = flagsConfig(MINI_FLAGS, classNames(values));
  (overrides.agent ??= {}).output_path = output;
  const flags: RunFlags = {
    config: await upstreamSpecs(values.config ?? [], host),
    verbose: false,
    overrides,
  };
  const session = await openTerminal(host, canAsk);
  if (!host.env.MSWEA_CONFIGURED && canAsk && host.terminal.stdout) {
    await setup(host.env, (q) => session.ask(q), (text) => host.out(`${text}\n`));
  }
  const { config, sources, prompts } = await resolveFlagsConfig(flags, host, await defaultSpec(host));
  upstreamDefaults(config, sources, host.cwd);
  refuseUnasked(config, sources, canAsk);
  let task = typeof config.run.task === "string" ? config.run.task : undefined;
  if (task === undefined) {
    if (!canAsk) {
      throw new UsageError("no task: pass -t TEXT (or set run.task); stdin is not a terminal to ask");
    }
    try {
      task = await session.askTask();
    } catch (e) {
      if (e instanceof Error && e.name === "KeyboardInterrupt") return EXIT_CODES.Interrupted!;
      if (e instanceof Error && e.name === "EndOfInput") throw new UsageError("no task: the input ended");
      throw e;
    }
  }
  if (!task.trim()) throw new UsageError("The task is empty: nothing to ask the model");
  const code = await runWithSignals(
    config,
    { task, outputPath: output, prompts },
    { verbose: false, quiet: true },
    host,
    session,
  );
  host.out(`Saved trajectory to '${output}'\n`);
  return miniExitCode(code);
}
