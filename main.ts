/**
 * claudius: the only impure file. It reads argv, the environment and `.env` files, wires signals,
 * runs the command, maps errors to messages and exit codes, and exits.
 *
 * @module
 */
import { parseDotEnv } from "./src/dotenv.ts";
import { HELP, parseCommand, type RunFlags, UsageError, VERSION } from "./src/cli.ts";
import { flagsToConfig } from "./src/cli.ts";
import {
  type ConfigSource,
  isTree,
  loadConfig,
  namesWholeConfig,
  resolveConfig,
  type ResolvedConfig,
} from "./src/config.ts";
import { refuseSilentYolo } from "./src/agents/_silent_yolo.ts";
import { ConfigError, type EndingSignal, exitMessage, Interrupted, SIGNAL_STATUSES } from "./src/errors.ts";
import { type Episode, resolvePath, runEpisode } from "./src/run.ts";
import type { Environment } from "./src/types.ts";
import { formatForDisplay } from "./src/display.ts";
import type { BatchFlags } from "./src/batch/cli.ts";
import type { Interrupts } from "./src/terminal/user_io.ts";
import type { ResumeFlags } from "./src/resume/cli.ts";

const EXIT_CODES: Record<string, number> = {
  Submitted: 0,
  LimitsExceeded: 3,
  TimeExceeded: 4,
  RepeatedFormatError: 5,
  EnvironmentLost: 6,
  // 128 + the signal's number, as a shell reports a process the signal killed.
  Hangup: 129,
  Interrupted: 130,
  Quit: 131,
  Terminated: 143,
};

/** Write to stdout or stderr, which may be gone (a closed terminal gives EIO): the run goes on without. */
function quietly(write: () => void): void {
  try {
    write();
  } catch {
    // Nowhere left to write.
  }
}
const err = (line: string) => quietly(() => console.error(line));

/** Characters of an error message shown on stderr; the trajectory keeps it whole. */
const SHOWN_CHARS = 1000;

function clip(message: string): string {
  const more = message.length - SHOWN_CHARS;
  return more > 0 ? `${message.slice(0, SHOWN_CHARS)}... [${more} more characters]` : message;
}

/**
 * The process environment, filled (never overridden) from ./.env, then the user config dir, then
 * upstream's global `.env` (`$MSWEA_GLOBAL_CONFIG_DIR/.env`, else `~/.config/mini-swe-agent/.env`),
 * each read as python-dotenv reads it (`${VAR}` expanded from what is set so far).
 */
async function hostEnvironment(): Promise<Record<string, string>> {
  const env = Deno.env.toObject();
  const configHome = env.XDG_CONFIG_HOME || (env.HOME ? `${env.HOME}/.config` : "");
  const fill = async (file: string) => {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) err(`warning: Cannot read ${file}: ${(e as Error).message}`);
      return;
    }
    for (const [k, v] of Object.entries(parseDotEnv(text, env))) if (!(k in env)) env[k] = v;
  };
  for (const file of [".env", ...(configHome ? [`${configHome}/claudius/.env`] : [])]) await fill(file);
  const upstreamDir = env.MSWEA_GLOBAL_CONFIG_DIR || (configHome ? `${configHome}/mini-swe-agent` : "");
  if (upstreamDir) await fill(`${upstreamDir}/.env`);
  return env;
}

/** UTC time to the millisecond plus 4 random hex digits: runs started together get their own names. */
function timestamp(): string {
  const random = crypto.getRandomValues(new Uint16Array(1))[0]!.toString(16).padStart(4, "0");
  return `${new Date().toISOString().replace(/:/g, "-")}-${random}`;
}

/**
 * The merged config of a run or a batch: `-c` specs, then the flags, then docker's isolation defaults.
 * `base` (a built-in) comes first unless some `-c` names a whole config. `atTerminal`: when no config or
 * flag names the agent class, it is `interactive` if stdin and stdout are terminals and either no task
 * flag is given or the config asks for `agent.mode` confirm / human.
 */
async function resolveFlagsConfig(
  flags: RunFlags,
  hostEnv: Record<string, string>,
  base = "default",
  atTerminal = false,
) {
  const implicit = flags.config.some(namesWholeConfig) ? 0 : 1;
  const specs = implicit ? [base, ...flags.config] : flags.config;
  const builtinDir = new URL("./config", import.meta.url).pathname;
  const configDir = hostEnv.MSWEA_CONFIG_DIR;
  let { config, sources } = await loadConfig(
    specs,
    { builtinDir, ...(configDir ? { configDir } : {}), readTextFile: Deno.readTextFile },
    err,
    { hostEnv, overrides: flagsToConfig(flags), implicit },
  );
  const classSet = sources.some((s) => isTree(s.data.agent) && s.data.agent.agent_class !== undefined);
  const asks = config.agent.mode === "confirm" || config.agent.mode === "human";
  if (atTerminal && !classSet && (asks || (flags.task === undefined && flags.taskFile === undefined))) {
    sources = [{ spec: "the terminal", data: { agent: { agent_class: "interactive" } } }, ...sources];
    config = resolveConfig(sources, { hostEnv });
  }
  const envClass = config.environment.environment_class;
  const runArgsSet = sources.some((s) =>
    isTree(s.data.environment) && s.data.environment.run_args !== undefined
  );
  if ((envClass === "docker" || envClass === "podman") && !runArgsSet) {
    const mem = Deno.systemMemoryInfo().total;
    const { defaultIsolationArgs } = await import("./src/environments/docker.ts");
    config.environment.run_args = defaultIsolationArgs(navigator.hardwareConcurrency, mem);
  }
  return { config, sources };
}

/**
 * Two-stage handling of SIGINT, SIGTERM, SIGHUP and SIGQUIT: the first signal calls `first` (end
 * cleanly), any later one `again` (end now), each with the signal's exit status
 * ({@link SIGNAL_STATUSES}). Returns the function that removes the listeners.
 */
function onSignals(
  first: (name: EndingSignal, status: string) => void,
  again: (name: EndingSignal, status: string) => void,
): () => void {
  let count = 0;
  const listeners = (Object.keys(SIGNAL_STATUSES) as EndingSignal[]).map((name) => {
    const listener = () => (++count > 1 ? again : first)(name, SIGNAL_STATUSES[name]);
    Deno.addSignalListener(name, listener);
    return [name, listener] as const;
  });
  return () => listeners.forEach(([name, listener]) => Deno.removeSignalListener(name, listener));
}

async function run(flags: RunFlags): Promise<number> {
  // Deno initialises its fetch machinery lazily (~10 ms on the first request); do it while the
  // config loads and the environment starts, not on the critical path to the first model call.
  fetch("data:,").then((r) => r.body?.cancel(), () => {});
  const hostEnv = await hostEnvironment();
  const canAsk = Deno.stdin.isTerminal();
  const { config, sources } = await resolveFlagsConfig(
    flags,
    hostEnv,
    "default",
    canAsk && Deno.stdout.isTerminal(),
  );
  const interactive = config.agent.agent_class === "interactive";
  refuseUnasked(config, sources, canAsk);

  let task = flags.task;
  if (flags.taskFile !== undefined) {
    task = await Deno.readTextFile(flags.taskFile).catch((e) => {
      throw new UsageError(`Cannot read --task-file '${flags.taskFile}': ${(e as Error).message}`);
    });
  }
  task ??= config.run.task;
  const session = interactive || (task === undefined && canAsk)
    ? await openTerminal(hostEnv, canAsk)
    : undefined;
  if (task === undefined) {
    if (!session) throw new UsageError("no task: pass --task TEXT or --task-file FILE (or set run.task)");
    try {
      task = await session.askTask();
    } catch (e) {
      if (e instanceof Error && e.name === "KeyboardInterrupt") return EXIT_CODES.Interrupted!;
      if (e instanceof Error && e.name === "EndOfInput") throw new UsageError("no task: the input ended");
      throw e;
    }
    if (!task.trim()) throw new UsageError("no task: the entry was empty");
  }
  if (task.trim() === "") {
    const from = flags.taskFile !== undefined
      ? `--task-file '${flags.taskFile}'`
      : flags.task !== undefined
      ? "--task"
      : "run.task";
    throw new UsageError(`The task is empty (${from}): nothing to ask the model`);
  }
  const outputPath = flags.output ??
    config.agent.output_path ?? `runs/${timestamp()}.traj.json`;
  const newFile = flags.output === undefined && typeof config.agent.output_path !== "string";
  return await runWithSignals(config, { task, outputPath, newFile }, flags, hostEnv, session);
}

/** Never a silent yolo: a mode that asks where no one answers is a usage error (see refuseSilentYolo). */
function refuseUnasked(config: ResolvedConfig, sources: ConfigSource[], canAsk: boolean): void {
  if (!canAsk) {
    const ways = "pass -y (agent.mode=yolo) to run without asking, or run claudius at a terminal";
    refuseSilentYolo(config, sources, "stdin is not a terminal", ways);
  } else if (config.agent.agent_class !== "interactive") {
    const ways = "pass -y (agent.mode=yolo), or --agent-class interactive";
    refuseSilentYolo(config, sources, "agent.agent_class 'default' never asks", ways);
  }
}

/** Run one episode (a new one or a resumed one) with two-stage signal handling; its exit code. */
async function runWithSignals(
  config: ResolvedConfig,
  what: Episode,
  flags: RunFlags,
  hostEnv: Record<string, string>,
  session?: Awaited<ReturnType<typeof openTerminal>>,
): Promise<number> {
  const { outputPath } = what;
  const canAsk = Deno.stdin.isTerminal();
  const interactive = config.agent.agent_class === "interactive";
  const controller = new AbortController();
  const force = new AbortController();
  let env: Environment | undefined;
  let episode: Promise<unknown> = Promise.resolve();
  const log = session ? (line: string) => (session.io.screen.aside(), err(line)) : err;
  const end = (name: EndingSignal, status: string) => {
    log(`claudius: ${name} received, ending the run (again to force)`);
    controller.abort(new Interrupted(exitMessage(status)));
  };
  const again = (name: EndingSignal, status: string) => {
    // Forced: the environment goes now (a starting container too), then the run records its
    // ending and exits; within 10 s whatever happens.
    log(`claudius: ${name} again: removing the environment and exiting`);
    force.abort();
    const deadline = new Promise((resolve) => setTimeout(resolve, 10_000));
    Promise.race([Promise.allSettled([env?.close(), episode]), deadline]).finally(() => {
      if (session?.io.input.canAsk) {
        // A prompt may be waiting: leave the terminal as it was found.
        quietly(() => Deno.stdout.writeSync(new TextEncoder().encode("\x1b[?2004l")));
        quietly(() => Deno.stdin.setRaw(false));
      }
      Deno.exit(EXIT_CODES[status] ?? 1);
    });
  };
  const removeSignals = interactive && canAsk
    ? onInteractiveSignals(session!.io.interrupts, controller.signal, end, again)
    : onSignals(end, again);
  const color = Deno.stderr.isTerminal() && !hostEnv.NO_COLOR;
  try {
    const running = runEpisode(config, { ...what, ...(flags.patch ? { patchPath: flags.patch } : {}) }, {
      hostEnv,
      log,
      signal: controller.signal,
      force: force.signal,
      runId: crypto.randomUUID().slice(0, 8),
      cwd: Deno.cwd(),
      onEnvironment: (e) => (env = e),
      ...(flags.verbose && !interactive ? { onMessage: (m) => err(formatForDisplay(m, color)) } : {}),
      ...(interactive && session
        ? { interactive: session.io, onStream: (e) => session.io.screen.stream(e) }
        : {}),
      ...(interactive && session?.io.input.canAsk ? { ask: (question) => session.ask(question) } : {}),
    });
    episode = running;
    const { result } = await running;
    const bestOf = config.mechanisms.reroll.enabled
      ? ` (best-of-${config.mechanisms.reroll.k}: not pass@1)`
      : "";
    log(`claudius: ${result.exit_status}${bestOf}; trajectory saved to ${outputPath}`);
    return EXIT_CODES[result.exit_status] ?? 1;
  } finally {
    removeSignals();
  }
}

/** The terminal session of an interactive run (loaded only then). */
async function openTerminal(hostEnv: Record<string, string>, canAsk: boolean) {
  const { openSession } = await import("./src/terminal/session.ts");
  const { secretValues } = await import("./src/redact.ts");
  const live = Deno.stdout.isTerminal();
  const configHome = hostEnv.XDG_CONFIG_HOME || (hostEnv.HOME ? `${hostEnv.HOME}/.config` : "");
  return openSession({
    stdin: Deno.stdin,
    stdout: Deno.stdout,
    canAsk,
    live,
    color: live && !hostEnv.NO_COLOR,
    columns: () => (live ? Deno.consoleSize().columns : 80),
    ...(configHome ? { historyPath: `${configHome}/claudius/history.jsonl` } : {}),
    secrets: secretValues(hostEnv),
  });
}

/**
 * Signals of an interactive run: Ctrl-C interrupts the step (the agent stops the model call or the
 * command and asks for a comment); another before that question is answered (a double press) ends
 * the run; any signal after the run was ended forces the exit. SIGTERM, SIGHUP and SIGQUIT end the
 * run.
 */
function onInteractiveSignals(
  interrupts: Interrupts,
  ended: AbortSignal,
  end: (name: EndingSignal, status: string) => void,
  again: (name: EndingSignal, status: string) => void,
): () => void {
  const listeners = (Object.keys(SIGNAL_STATUSES) as EndingSignal[]).map((name) => {
    const status = SIGNAL_STATUSES[name];
    const listener = () => {
      if (ended.aborted) return again(name, status);
      if (name === "SIGINT" && !interrupts.pending) return interrupts.fire();
      end(name, status);
      interrupts.fire(); // ending the run also cancels a prompt that is waiting for input
    };
    Deno.addSignalListener(name, listener);
    return [name, listener] as const;
  });
  return () => listeners.forEach(([name, listener]) => Deno.removeSignalListener(name, listener));
}

async function resume(flags: ResumeFlags): Promise<number> {
  fetch("data:,").then((r) => r.body?.cancel(), () => {});
  const { readPredecessor } = await import("./src/resume/predecessor.ts");
  const { resumeConfig } = await import("./src/resume/resume_config.ts");
  const { resumedPath } = await import("./src/resume/cli.ts");
  const hostEnv = await hostEnvironment();
  const path = resolvePath(flags.trajectory, Deno.cwd());
  const predecessor = await readPredecessor(path);
  const builtinDir = new URL("./config", import.meta.url).pathname;
  const { source, unknownClasses } = predecessor;
  if (source && flags.env !== undefined) {
    throw new UsageError(
      `--env is for a torn trajectory only: ${path} recorded its environment, which is kept`,
    );
  }
  if (!source) {
    err(
      `warning: ${path} is torn and its info (the config it ran with) is lost: resuming with the config ` +
        "of this command line (built-in default, -c specs, flags), as a new run would",
    );
  }
  const canAsk = Deno.stdin.isTerminal();
  const { config, sources } = source
    ? await resumeConfig({ source, unknownClasses }, flags.config, flagsToConfig(flags), {
      builtinDir,
      ...(hostEnv.MSWEA_CONFIG_DIR ? { configDir: hostEnv.MSWEA_CONFIG_DIR } : {}),
      readTextFile: Deno.readTextFile,
      hostEnv,
      warn: err,
    })
    : await resolveFlagsConfig(flags, hostEnv);
  refuseUnasked(config, sources, canAsk);
  const restarted = ["docker", "podman"].includes(config.environment.environment_class);
  if (flags.replay && !restarted) {
    throw new UsageError(
      `--replay runs the recorded commands again in a new container; a ${config.environment.environment_class} ` +
        "environment keeps its working directory as it was",
    );
  }
  let task = flags.task;
  if (flags.taskFile !== undefined) {
    task = await Deno.readTextFile(flags.taskFile).catch((e) => {
      throw new UsageError(`Cannot read --task-file '${flags.taskFile}': ${(e as Error).message}`);
    });
  }
  const outputPath = flags.output ?? await resumedPath(path);
  const { state, top } = predecessor;
  err(
    `claudius: resuming ${path} (${
      state.link.exit_status || "no ending recorded"
    }; ${state.messages.length} ` +
      `messages, ${state.nCalls} model calls${state.pending ? ", its last step cut short: run again" : ""}` +
      `${predecessor.state.link.repaired ? ", torn file repaired" : ""})`,
  );
  const session = config.agent.agent_class === "interactive"
    ? await openTerminal(hostEnv, canAsk)
    : undefined;
  return await runWithSignals(
    config,
    {
      task: task ?? "",
      outputPath,
      newFile: flags.output === undefined,
      ...(task !== undefined ? { vars: { task } } : {}),
      top,
      resume: { ...state, restarted, replay: flags.replay },
    },
    flags,
    hostEnv,
    session,
  );
}

async function batch(flags: BatchFlags): Promise<number> {
  const { runArms, runBatch } = await import("./src/batch/run_batch.ts");
  const { summaryLines } = await import("./src/batch/progress.ts");
  const { MODES, SWEBENCH_SUBSETS, exportHint } = await import("./src/batch/modes.ts");
  const rules = MODES[flags.mode];
  if (flags.mode === "swebench" && Object.hasOwn(SWEBENCH_SUBSETS, flags.instances)) {
    const exists = await Deno.stat(flags.instances).then(() => true, () => false);
    if (!exists) {
      throw new UsageError(
        `'${flags.instances}' is upstream's subset name (${
          SWEBENCH_SUBSETS[flags.instances]
        }); claudius reads ` +
          `an exported dataset file, e.g.: ${exportHint(flags.instances)}`,
      );
    }
  }
  const hostEnv = await hostEnvironment();
  /** The config of the batch (or of one arm), refused when someone would have to answer. */
  const batchConfig = async (f: BatchFlags) => {
    const { config, sources } = await resolveFlagsConfig(f, hostEnv, rules.baseConfig);
    if (config.agent.agent_class === "interactive") {
      throw new UsageError(
        "claudius batch never asks: agent.agent_class 'interactive' cannot be used in a batch",
      );
    }
    refuseSilentYolo(config, sources, "claudius batch never asks", "pass -c agent.mode=yolo");
    return config;
  };
  // Each arm: the shared -c specs, then its own, then the flags.
  const arms = [];
  for (const { name, specs } of flags.arms) {
    try {
      arms.push({ name, config: await batchConfig({ ...flags, config: [...flags.config, ...specs] }) });
    } catch (e) {
      if (e instanceof ConfigError) throw new ConfigError(`arm ${name}: ${e.message}`, { cause: e });
      if (e instanceof UsageError) throw new UsageError(`arm ${name}: ${e.message}`);
      throw e;
    }
  }
  const config = arms.length ? undefined : await batchConfig(flags);
  const graceful = new AbortController();
  const force = new AbortController();
  let signalStatus = "";
  const removeSignals = onSignals(
    (name, status) => {
      signalStatus = status;
      err(
        `claudius batch: ${name} received: starting no more instances, ending running ones (again to force)`,
      );
      graceful.abort(new Interrupted(exitMessage(status)));
    },
    (name) => {
      err(`claudius batch: ${name} again: stopping now, removing environments`);
      force.abort();
    },
  );
  const encoder = new TextEncoder();
  const live = Deno.stdout.isTerminal();
  try {
    const options = {
      instancesPath: flags.instances,
      outDir: flags.output ?? rules.defaultOutput(Date.now()),
      workers: flags.workers,
      selection: {
        ...(flags.shuffleSeed !== undefined ? { shuffleSeed: flags.shuffleSeed } : {}),
        ...(flags.filter !== undefined ? { filter: flags.filter } : {}),
        ...(flags.slice !== undefined ? { slice: flags.slice } : {}),
        ...(flags.shard ? { shard: flags.shard } : {}),
        ...(flags.instance !== undefined ? { instance: flags.instance } : {}),
      },
      mode: flags.mode,
      redoExisting: flags.redoExisting,
      dockerHosts: flags.dockerHosts,
      verbose: flags.verbose,
    };
    const deps = {
      hostEnv,
      cwd: Deno.cwd(),
      write: (text: string) => quietly(() => Deno.stdout.writeSync(encoder.encode(text))),
      live,
      rows: () => Deno.consoleSize().rows,
      log: err,
      signal: graceful.signal,
      force: force.signal,
    };
    const done = config
      ? { arms: [{ name: "", summary: await runBatch({ ...options, config }, deps) }] }
      : await runArms({ ...options, arms }, deps);
    const lines = done.arms.flatMap(({ name, summary }) =>
      name ? [`arm ${name}:`, ...summaryLines(summary).map((l) => `  ${l}`)] : summaryLines(summary)
    );
    quietly(() => console.log(lines.join("\n")));
    const summaries = done.arms.map((a) => a.summary);
    if (summaries.some((s) => s.interrupted)) return EXIT_CODES[signalStatus || "Interrupted"]!;
    return summaries.some((s) => s.unfinished.length || s.notStarted.length) ? 1 : 0;
  } finally {
    removeSignals();
  }
}

async function main(argv: string[]): Promise<number> {
  const command = parseCommand(argv);
  switch (command.kind) {
    case "help":
      console.log(HELP);
      return 0;
    case "version":
      console.log(`claudius ${VERSION}`);
      return 0;
    case "reap": {
      const { reapContainers } = await import("./src/environments/reap.ts");
      const hostEnv = await hostEnvironment();
      const hosts = command.dockerHost.length ? command.dockerHost : [undefined];
      for (const host of hosts) {
        const { removed, otherHosts } = await reapContainers(command.executable, {
          hostEnv,
          allHosts: command.allHosts,
          ...(host ? { dockerHost: host } : {}),
        });
        for (const id of removed) console.log(`removed ${id}`);
        if (otherHosts.length) {
          err(
            `claudius reap: kept ${otherHosts.length} container(s) of runs on other machines on ` +
              `${host ?? "the default engine"} (--all-hosts removes them): ${otherHosts.join(", ")}`,
          );
        }
      }
      return 0;
    }
    case "run":
      return await run(command.flags);
    case "resume": {
      const { RESUME_HELP, parseResumeArgs } = await import("./src/resume/cli.ts");
      const flags = parseResumeArgs(command.argv);
      if (flags === "help") {
        console.log(RESUME_HELP);
        return 0;
      }
      return await resume(flags);
    }
    case "batch": {
      const { BATCH_HELP, parseBatchArgs } = await import("./src/batch/cli.ts");
      const flags = parseBatchArgs(command.argv);
      if (flags === "help") {
        console.log(BATCH_HELP);
        return 0;
      }
      return await batch(flags);
    }
    case "tool": {
      const { runTool } = await import("./src/trajectories/cli.ts");
      const encoder = new TextEncoder();
      return await runTool(command.name, command.argv, {
        write: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
        error: err,
        isTerminal: Deno.stdout.isTerminal(),
      });
    }
    case "inspect": {
      const { inspectMain } = await import("./src/inspect/cli.ts");
      return await inspectMain(command.argv, Deno.env.toObject());
    }
  }
}

if (import.meta.main) {
  const verbose = Deno.args.includes("-v") || Deno.args.includes("--verbose");
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    err(`error: ${clip(error.message)}`);
    if (e instanceof UsageError) err("hint: run 'claudius --help' for usage");
    if (verbose) {
      err(error.stack ?? "");
      for (let c = error.cause; c; c = c instanceof Error ? c.cause : undefined) {
        err(`caused by: ${c instanceof Error ? c.stack : String(c)}`);
      }
    }
    code = e instanceof UsageError || e instanceof ConfigError ? 2 : 1;
  }
  Deno.exit(code);
}
