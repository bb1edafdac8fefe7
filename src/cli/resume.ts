/**
 * `claudius resume TRAJ`: continue an interrupted, killed or limited run from its trajectory.
 *
 * @module
 */
import { sameFile } from "../lib/files.ts";
import { readUtf8File } from "../lib/text_file.ts";
import { errorMessage } from "../lib/errors.ts";
import { RUNS_DIR, UsageError } from "./run_flags.ts";
import { shownPath } from "../lib/safe_text.ts";
import { renderHelp } from "../lib/help.ts";
import type { Host } from "../core/host.ts";
import { resolvePath } from "../lib/paths.ts";
import { configSchema } from "./schema.ts";
import type { Registry } from "../core/episode.ts";
import { REGISTRY } from "./classes.ts";
import { holdPredecessor, readPredecessor } from "../features/resume/predecessor.ts";
import { batchInstanceOf, leaseInstance } from "../batch/resumed.ts";
import { exitMessage, Interrupted } from "../core/errors.ts";
import { resumeConfig } from "./resume_config.ts";
import { parseResumeArgs, RESUME_SPEC, resumedPath, type ResumeFlags } from "./resume_flags.ts";
import { promptsFor, refuseUnasked, resolveFlagsConfig, upstreamLookup } from "./_shared.ts";
import { runWithSignals } from "./run.ts";
import { openTerminal } from "./terminal.ts";

/** The flags of `claudius resume`. */
export const SPEC = RESUME_SPEC;

/**
 * `claudius resume TRAJECTORY [options]`.
 * @returns its exit code
 * @throws {UsageError} for bad flags
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const flags = parseResumeArgs(argv);
  if (flags === "help") return (host.out(renderHelp(RESUME_SPEC) + "\n"), 0);
  fetch("data:,").then((r) => r.body?.cancel(), () => {});
  return await resumeCommand(flags, host);
}

/**
 * `--last`: the trajectory (`*.traj.json`) in `<cwd>/runs/` written last, a resumed run's included.
 * @throws {UsageError} when there is none
 */
export async function newestRun(cwd: string): Promise<string> {
  const dir = resolvePath(RUNS_DIR, cwd);
  let newest: { path: string; mtime: number } | undefined;
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.endsWith(".traj.json")) continue;
      const path = `${dir}/${e.name}`;
      const mtime = (await Deno.stat(path).catch(() => undefined))?.mtime?.getTime() ?? 0;
      if (!newest || mtime > newest.mtime || (mtime === newest.mtime && path > newest.path)) {
        newest = { path, mtime };
      }
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  if (!newest) {
    throw new UsageError(
      `Cannot resume --last: no trajectory (*.traj.json) in ${dir}, where runs save by default; ` +
        "name one: claudius resume PATH",
    );
  }
  return newest.path;
}

/**
 * `claudius resume TRAJ [options]`: continue a run from its trajectory; its exit code.
 * @param registry the classes its recorded types name and the run is built from (default: claudius's)
 */
export async function resumeCommand(
  flags: ResumeFlags,
  host: Host,
  registry: Registry = REGISTRY,
): Promise<number> {
  const path = flags.last ? await newestRun(host.cwd) : resolvePath(flags.trajectory, host.cwd);
  const predecessor = await readPredecessor(path, registry);
  const held = await holdPredecessor(path);
  try {
    return await resumeHeld(flags, host, path, predecessor, registry);
  } finally {
    held.close();
  }
}

/** The resume of `path`, held by this process: its config, its checks, the batch lease, the run. */
async function resumeHeld(
  flags: ResumeFlags,
  host: Host,
  path: string,
  predecessor: Awaited<ReturnType<typeof readPredecessor>>,
  registry: Registry,
): Promise<number> {
  const err = host.err;
  const hostEnv = host.env;
  const { source, unknownClasses } = predecessor;
  for (const note of predecessor.notes) err(note);
  if (source && flags.torn.env !== undefined) {
    throw new UsageError(
      `--env is for a torn trajectory only: ${path} recorded its environment, which is kept`,
    );
  }
  if (!source) {
    const lost = predecessor.state.link.repaired
      ? "is torn and its info (the config it ran with) is lost"
      : "has no info (the config it ran with)";
    err(
      `warning: ${path} ${lost}: resuming with the config of this command line (built-in default, -c specs, ` +
        "flags), as a new run would",
    );
  }
  const canAsk = host.terminal.stdin;
  const { config, sources, prompts } = source
    ? await resumeConfig({ source, unknownClasses }, flags.config, flags.overrides, {
      schema: configSchema(registry),
      builtinDir: host.builtinDir,
      upstream: upstreamLookup(host),
      ...(hostEnv.MSWEA_CONFIG_DIR ? { configDir: hostEnv.MSWEA_CONFIG_DIR } : {}),
      readTextFile: readUtf8File,
      hostEnv,
      warn: err,
    }).then(async (r) => ({
      ...r,
      prompts: await promptsFor(r.sources, host, { spec: source.spec, prompts: predecessor.prompts }),
    }))
    : await resolveFlagsConfig(flags, host, "default", false, registry);
  refuseUnasked(config, sources, canAsk);
  const cls = config.environment.environment_class;
  // A container class (upstream's SWE-ReX ones run as docker) starts anew.
  const restarted = registry.environments[cls]?.host !== true;
  if (flags.replay && !restarted) {
    throw new UsageError(
      `--replay runs the recorded commands again in a new container; a ${config.environment.environment_class} ` +
        "environment keeps its working directory as it was",
    );
  }
  if (!restarted) {
    // Local and bubblewrap go on in the directory as it was left: without it the history is fiction.
    // Only this command line's --create-cwd goes on in a new one (the recorded run's says nothing).
    const dir = resolvePath(String(config.environment.cwd || "workspace"), host.cwd);
    const create = flags.overrides.run?.create_cwd === true;
    config.run.create_cwd = create;
    if (!create && !(await Deno.stat(dir).then((s) => s.isDirectory, () => false))) {
      throw new UsageError(
        `Cannot resume ${path}: its working directory ${dir} no longer exists, so the files the run made ` +
          "are gone; restore it, name another with --cwd DIR, or pass --create-cwd to go on in an empty one",
      );
    }
  }
  const { task, outputPath } = await taskAndOutput(flags, host, path);
  const { state, top } = predecessor;
  const head = `claudius: resuming ${shownPath(path, host.cwd)}`;
  const facts = `(${state.link.exit_status || "no ending recorded"}; ${state.messages.length} messages, ` +
    `${state.nCalls} model calls${state.pending ? ", its last step cut short: run again" : ""}` +
    `${predecessor.state.link.repaired ? ", torn file repaired" : ""})`;
  // At a terminal, what is resumed and how it stood on lines that fit it.
  const fits = !host.terminal.stderr || head.length + 1 + facts.length <= host.consoleSize().columns;
  err(fits ? `${head} ${facts}` : `${head}\n  ${facts}`);
  const lease = await batchLease(path, top, host);
  try {
    const session = config.agent.agent_class === "interactive" ? await openTerminal(host, canAsk) : undefined;
    return await runWithSignals(
      config,
      {
        task: task ?? "",
        outputPath,
        newFile: flags.output === undefined,
        ...(task !== undefined ? { vars: { task } } : {}),
        top,
        prompts,
      },
      flags,
      host,
      session,
      { ...state, restarted, replay: flags.replay },
      lease?.lost,
      registry,
    );
  } finally {
    await lease?.release(resolvePath(outputPath, host.cwd));
  }
}

/** The task to go on with (`-t`, `--task-file`, else none) and where the new trajectory goes. */
async function taskAndOutput(
  flags: ResumeFlags,
  host: Host,
  path: string,
): Promise<{ task: string | undefined; outputPath: string }> {
  let task = flags.task;
  if (flags.taskFile !== undefined) {
    task = await readUtf8File(flags.taskFile).catch((e) => {
      throw new UsageError(`Cannot read --task-file '${flags.taskFile}': ${errorMessage(e)}`);
    });
  }
  const outputPath = flags.output ?? await resumedPath(path);
  if (await sameFile(resolvePath(outputPath, host.cwd), path)) {
    throw new UsageError(
      `-o names the trajectory being resumed (${path}), which is never changed; give another file, or no -o ` +
        "for <stem>.resumeN.traj.json beside it",
    );
  }
  if (flags.patch !== undefined && await sameFile(resolvePath(flags.patch, host.cwd), path)) {
    throw new UsageError(
      `--patch names the trajectory being resumed (${path}), which is never changed; give another file`,
    );
  }
  return { task, outputPath };
}

/**
 * A batch instance is resumed under the batch's own claim on it: a batch rerun leaves it to this
 * process (and does not empty its working directory), and a batch running it refuses the resume.
 * @throws {UsageError} when a live batch process holds the instance
 */
async function batchLease(path: string, top: Record<string, unknown>, host: Host) {
  const id = top.instance_id;
  const batch = typeof id === "string" ? await batchInstanceOf(path, id) : undefined;
  if (!batch || typeof id !== "string") return undefined;
  const lost = new AbortController();
  const lease = await leaseInstance(batch.outDir, id, host.env, () => {
    host.err(
      `claudius: the batch in ${batch.outDir} took instance ${id} over (this run stalled past its lease)`,
    );
    lost.abort(new Interrupted(exitMessage("Interrupted")));
  });
  if ("heldBy" in lease) {
    throw new UsageError(
      `Cannot resume ${path}: a batch process (${lease.heldBy}) is running instance ${id}; let it finish or stop it first`,
    );
  }
  return { release: (trajectory: string) => lease.release(trajectory), lost: lost.signal };
}
