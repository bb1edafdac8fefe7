/**
 * `claudius [--task T | --task-file F] [options]`: one episode, with the terminal session of an
 * interactive run and two-stage signal handling.
 *
 * @module
 */
import { runsOnHost } from "../core/environments/classes.ts";
import { readUtf8File } from "../lib/text_file.ts";
import { absolutePath, parentDir } from "../lib/paths.ts";
import {
  RUN_FLAGS,
  RUN_SPEC,
  type RunFlags,
  runFlags,
  RUNS_DIR,
  UsageError,
  WORKSPACE_DIR,
} from "./run_flags.ts";
import { parseCommandLine } from "../lib/flags.ts";
import { VERSION } from "../core/version.ts";
import type { CommandTable } from "./command.ts";
import type { ResolvedConfig } from "../core/config/load.ts";
import { type EndingSignal, exitMessage, Interrupted } from "../core/errors.ts";
import { EXIT_CODES, type Host } from "../core/host.ts";
import { type Classes, type Episode, type EpisodeDeps, runEpisode } from "../core/episode.ts";
import type { Environment } from "../core/types.ts";
import { runDisplay } from "./run_display.ts";
import type { TerminalSession } from "./terminal.ts";
import type { ResumeState } from "../features/resume/predecessor.ts";
import { onSignals, refuseUnasked, resolveFlagsConfig } from "./_shared.ts";
import { episodeFeatures } from "./features.ts";

/** UTC time to the millisecond plus 4 random hex digits: runs started together get their own names. */
function timestamp(): string {
  const random = crypto.getRandomValues(new Uint16Array(1))[0]!.toString(16).padStart(4, "0");
  return `${new Date().toISOString().replace(/:/g, "-")}-${random}`;
}

/**
 * A local or bubblewrap run that no config or flag gives a working directory works in a new one of its
 * own, `workspace/<run time>/` (the trajectory's name), so it never sees the files of the run before.
 * Started inside a git repository, where a person means the repository more often than not, it is
 * refused unless `--create-cwd` asks for the new directory: the model would work in an empty one.
 * @throws {UsageError} inside a git repository without `--create-cwd`
 */
async function freshWorkspace(config: ResolvedConfig, stamp: string, cwd: string): Promise<void> {
  const env = config.environment;
  const cls = env.environment_class;
  if (!runsOnHost(cls) || env.cwd) return;
  const repository = config.run.create_cwd === true ? undefined : await enclosingRepository(cwd);
  if (repository !== undefined) {
    throw new UsageError(
      `${repository} is a git repository, and claudius works in a new empty ./${WORKSPACE_DIR}/<run time>/ ` +
        "unless told: pass --cwd . to work on the repository, or --create-cwd for the new directory",
    );
  }
  env.cwd = `${WORKSPACE_DIR}/${stamp}`;
  config.run.create_cwd = true;
}

/** The work tree `dir` is in (the nearest directory up that holds `.git`), if any. */
async function enclosingRepository(dir: string): Promise<string | undefined> {
  for (let d = dir, up = parentDir(d);; d = up, up = parentDir(d)) {
    if (await Deno.lstat(absolutePath(".git", d)).then(() => true, () => false)) return d;
    if (up === d) return undefined;
  }
}

/** The flags of a single run. */
export const SPEC = RUN_SPEC;

/**
 * `claudius [flags]`: one episode.
 * @returns its exit code
 * @throws {UsageError} for bad flags
 */
export async function main(argv: string[], host: Host, commands: CommandTable): Promise<number> {
  const { values, positionals } = parseCommandLine(RUN_FLAGS, argv);
  if (values.help) return (host.out((await import("./help.ts")).topHelp(commands) + "\n"), 0);
  if (values.version) return (host.out(`claudius ${VERSION} (${host.origin})\n`), 0);
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  // Deno sets up fetch lazily (~10 ms on the first request): done while the config loads instead.
  fetch("data:,").then((r) => r.body?.cancel(), () => {});
  return await runCommand(runFlags(values, RUN_FLAGS), host);
}

/** `claudius [--task T | --task-file F] ...`: one episode; its exit code. */
export async function runCommand(flags: RunFlags, host: Host): Promise<number> {
  const canAsk = host.terminal.stdin;
  const { config, sources, prompts } = await resolveFlagsConfig(
    flags,
    host,
    "default",
    canAsk && host.terminal.stdout,
  );
  const interactive = config.agent.agent_class === "interactive";
  refuseUnasked(config, sources, canAsk);
  const stamp = timestamp();
  await freshWorkspace(config, stamp, host.cwd);

  let task = flags.task;
  if (flags.taskFile !== undefined) {
    task = await readUtf8File(flags.taskFile).catch((e) => {
      throw new UsageError(`Cannot read --task-file '${flags.taskFile}': ${(e as Error).message}`);
    });
  }
  task ??= typeof config.run.task === "string" ? config.run.task : undefined;
  // What would end the run (no key, no server there) is said before the task is typed.
  if (task === undefined && canAsk) await (await import("./preflight.ts")).checkBeforePrompt(config, host);
  // At a terminal the dangerous-command gate asks the person, whatever the agent.
  const patterns = config.agent.confirm_dangerous;
  const gated = canAsk && Array.isArray(patterns) && patterns.length > 0;
  const session = interactive || (task === undefined && canAsk) || gated
    ? await (await import("./terminal.ts")).openTerminal(host, canAsk)
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
  const configured = typeof config.agent.output_path === "string" ? config.agent.output_path : undefined;
  const outputPath = flags.output ?? configured ?? `${RUNS_DIR}/${stamp}.traj.json`;
  const newFile = flags.output === undefined && configured === undefined;
  return await runWithSignals(config, { task, outputPath, newFile, prompts }, flags, host, session);
}

/**
 * Run one episode (a new one or a resumed one) with two-stage signal handling; its exit code.
 * `classes`: the registries the episode builds from (default: claudius's).
 */
export async function runWithSignals(
  config: ResolvedConfig,
  what: Episode,
  flags: Pick<RunFlags, "patch" | "verbose" | "quiet">,
  host: Host,
  session?: TerminalSession,
  resume?: ResumeState,
  stop?: AbortSignal,
  classes?: Classes,
): Promise<number> {
  const canAsk = host.terminal.stdin;
  const err = host.err;
  const interactive = config.agent.agent_class === "interactive";
  const controller = new AbortController();
  // Ended from outside (a resume's batch lease taken over): as a signal would end it.
  stop?.addEventListener("abort", () => controller.abort(stop.reason), { once: true });
  const force = new AbortController();
  let env: Environment | undefined;
  let episode: Promise<unknown> = Promise.resolve();
  const log = session ? (line: string) => (session.io.screen.aside(), err(line)) : err;
  let signalled: string | undefined;
  const end = (name: EndingSignal, status: string) => {
    signalled ??= status; // also after the run ended (while the patch is taken): exit 128 + n
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
        host.out("\x1b[?2004l");
        try {
          host.stdin.setRaw(false);
        } catch { /* no terminal left */ }
      }
      host.exit(EXIT_CODES[status] ?? 1);
    });
  };
  const removeSignals = interactive && canAsk
    ? (await import("./terminal.ts")).onInteractiveSignals(
      host,
      session!.io.interrupts,
      controller.signal,
      end,
      again,
    )
    : onSignals(host, end, again);
  const before = resume ? { steps: resume.nCalls, cost: resume.cost } : undefined;
  const display = await runDisplay(config, flags, host, log, before);
  let stepped = false;
  try {
    const deps: EpisodeDeps = {
      hostEnv: host.env,
      log,
      signal: controller.signal,
      runId: crypto.randomUUID().slice(0, 8),
      cwd: host.cwd,
      ...(classes ? { classes } : {}),
      watch: {
        environment: (e) => {
          env = e;
          display.environment(e);
        },
        message: (m) => {
          stepped ||= m.role === "assistant" || m.extra?.interrupt_type === "FormatError";
          display.message(m);
        },
      },
    };
    const asks = interactive && session?.io.input.canAsk;
    const features = await episodeFeatures(config, what, {
      ...(flags.patch ? { patchPath: flags.patch } : {}),
      ...(interactive && session
        ? { interactive: { io: session.io, ...(asks ? { ask: (q: string) => session.ask(q) } : {}) } }
        : {}),
      ...(resume ? { resume } : {}),
      ...(!interactive && session?.io.input.canAsk ? { confirmDangerous: session.confirmDangerous } : {}),
      force: force.signal,
      ...(display.stream ? { onStream: display.stream } : {}),
    }, deps);
    const running = runEpisode(features.config, what, deps, features.plug);
    episode = running;
    const { result, trajectory, agent } = await running.catch(async (e) => {
      // At a terminal, a run that failed after a model call (an API error): where it is, how to go on.
      if (stepped && host.terminal.stderr) {
        await display.summary(e instanceof Error ? e.name : "Error", "", what.outputPath).catch(() => {});
      }
      throw e;
    });
    const facts = features.plug.hooks?.info?.();
    const bestOf = facts?.pass_at_1 === false ? ` (best-of-${facts.best_of_k}: not pass@1)` : "";
    // The figures of the file, from what the run holds.
    await display.summary(result.exit_status, bestOf, trajectory, {
      messages: agent.messages,
      cost: agent.cost,
    });
    return EXIT_CODES[signalled ?? result.exit_status] ?? 1;
  } finally {
    removeSignals();
  }
}
