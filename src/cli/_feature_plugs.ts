/**
 * How each feature joins an episode, loaded once a config or the command asks for one (see
 * `features.ts`, which says when): the mechanisms as the loop's hooks, the interactive agent and the
 * dangerous-command gate, the ATIF copy, the artifacts.
 *
 * @module
 */
import { INTERACTIVE_AGENT_KEYS } from "../features/interactive/keys.ts";
import { checkRequired, resolveKeys } from "../core/config/keys.ts";
import type { ResolvedConfig } from "../core/config/load.ts";
import { ConfigError } from "../core/errors.ts";
import type {
  AgentFactory,
  Episode,
  EpisodeDeps,
  EpisodePlug,
  FinishStep,
  RunConfig,
  Saver,
} from "../core/episode.ts";
import { MODEL_CLASSES } from "../core/models/classes.ts";
import { AGENT_CLASSES } from "./classes.ts";
import { episodeSecrets } from "../core/secret_redactor.ts";
import type { Action, Environment, Message, StreamSink } from "../core/types.ts";
import { resolvePath } from "../lib/paths.ts";
import { RUNS_DIR } from "./run_flags.ts";
import type { InteractiveIO } from "../features/interactive/interactive.ts";
import type { ResumeState } from "../features/resume/predecessor.ts";

/** What the command knows besides the config. */
export interface FeatureOptions {
  /** The person's side of an interactive run, and the question mechanisms may ask them. */
  interactive?: { io: InteractiveIO; ask?: (question: string) => Promise<string | null> };
  /** `--patch FILE`: `git diff` of the working directory at the end, whatever the ending. */
  patchPath?: string;
  /** Artifacts (`run.save_tarball`, `run.save_patch`) are taken only when this says yes (batch modes). */
  artifactsIf?: (messages: readonly Message[]) => boolean;
  /** Go on from a predecessor's trajectory (`claudius resume`). */
  resume?: ResumeState;
  /** A second signal: artifact commands are killed at once. */
  force?: AbortSignal;
  /** The default agent at a terminal: the dangerous-command gate asks here (else it refuses). */
  confirmDangerous?: (command: string, pattern: string) => Promise<boolean>;
  /** Shows a streamed reply as it arrives (the `-v` display; an interactive run has its screen). */
  onStream?: StreamSink;
}

/** What composing the features needs of the episode's deps. */
export type FeatureDeps = Pick<EpisodeDeps, "hostEnv" | "log" | "cwd" | "signal" | "now" | "watch" | "lease">;

/** The mechanisms' hooks when a `mechanisms` switch is on, and the model config they imply. */
export async function mechanismHooks(
  config: ResolvedConfig,
  outputPath: string,
  options: FeatureOptions,
  deps: FeatureDeps,
) {
  if (!config.mechanisms) return undefined;
  const { MECHANISM_KEYS, enabledMechanisms } = await import("../features/mechanisms/keys.ts");
  const on = resolveKeys(MECHANISM_KEYS, config.mechanisms, "mechanisms");
  if (Object.keys(enabledMechanisms(on)).length === 0) return undefined;
  const { createMechanisms, fenceRegex } = await import("../features/mechanisms/mechanisms.ts");
  // The mechanisms see tool calls for the Responses API classes too, but these cannot ask in prose and
  // report no `usage.prompt_tokens`: the switches that need that would silently do nothing.
  const cls = String(config.model.model_class);
  const format = MODEL_CLASSES[cls]?.format;
  for (const name of ["compression", "planning"] as const) {
    if (format !== "response" || !on[name].enabled) continue;
    throw new ConfigError(
      `Cannot use mechanisms.${name} with model class ${cls}: it needs a chat class (openai, litellm, ...); ` +
        `set mechanisms.${name}.enabled=false`,
    );
  }
  const text = format === "text";
  const { secrets, redactor } = episodeSecrets(deps.hostEnv, config.model);
  const watched = deps.watch?.message;
  const hooks = createMechanisms(on, {
    outputPath,
    format: text ? "text" : "toolcall",
    secrets,
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(options.interactive?.ask ? { ask: options.interactive.ask } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(watched ? { onMessage: (m: Message) => watched(redactor.value(m)) } : {}),
  });
  if (!hooks) return undefined;
  const fence = on.file_actions.enabled && text ? on.file_actions.fence : "";
  return {
    hooks,
    config: fence ? { ...config, model: { ...config.model, action_regex: fenceRegex(fence) } } : config,
  };
}

/** The agent: the interactive one (asking at the gate when it can), or the default one behind the gate. */
export async function agentPlug(config: ResolvedConfig, options: FeatureOptions): Promise<EpisodePlug> {
  const patterns = config.agent.confirm_dangerous;
  const gate = Array.isArray(patterns) && patterns.length > 0 ? patterns.map(String) : undefined;
  if (config.agent.agent_class === "interactive") {
    const io = options.interactive?.io;
    if (!io) {
      throw new ConfigError(
        "agent.agent_class 'interactive' needs a terminal session: use it with 'claudius', not 'batch'",
      );
    }
    const { InteractiveAgent } = await AGENT_CLASSES.interactive.load();
    const { GatedEnvironment } = await import("../features/interactive/gated.ts");
    const makeAgent: AgentFactory = (own, model, env, deps) => {
      checkRequired(INTERACTIVE_AGENT_KEYS, own, "agent");
      // The gate asks through the agent, which needs the gated environment: it is called only later.
      const approve = io.input.canAsk
        ? (action: Action, p: string) => agent.approveDangerous(action, p)
        : undefined;
      const gated: Environment = gate ? new GatedEnvironment(env, gate, approve) : env;
      const agent: InstanceType<typeof InteractiveAgent> = new InteractiveAgent(own, model, gated, deps, io);
      return agent;
    };
    return { makeAgent };
  }
  if (!gate) return {};
  const { GatedEnvironment } = await import("../features/interactive/gated.ts");
  const confirm = options.confirmDangerous;
  const approve = confirm && ((action: Action, pattern: string) => confirm(action.command, pattern));
  return { wrapEnv: (env) => new GatedEnvironment(env, gate, approve) };
}

/** The saver of `run.atif_path`: the trajectory as ATIF v1.7 after every step, next to it when relative. */
export async function atifSaver(
  run: RunConfig,
  episode: Pick<Episode, "outputPath" | "top">,
  options: FeatureOptions,
  deps: FeatureDeps,
): Promise<Saver[]> {
  const path = run.atif_path;
  if (!path) return [];
  const { AtifWriter, checkAtifPath } = await import("../tools/trajectories/atif_writer.ts");
  const out = episode.outputPath;
  const dir = out.includes("/") ? out.replace(/\/[^/]*$/, "") : ".";
  await checkAtifPath(resolvePath(path, dir), out, deps.cwd, options.resume?.link.trajectory);
  const writer = new AtifWriter(resolvePath(path, dir), out, episode.top ?? {});
  let warned = false;
  return [(messages, info) =>
    writer.save(messages, info).catch((e) => {
      if (!warned) {
        deps.log(`warning: Cannot write ATIF to ${writer.path}: ${e instanceof Error ? e.message : e}`);
      }
      warned = true;
    })];
}

/** A name claudius gives a single run's files in `./runs/` (`<UTC time>-<hex>[.resumeN].traj.json`, `.patch`). */
const DEFAULT_RUN_FILE =
  /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[0-9a-f]{4}(\.resume\d+)*\.(traj\.json|patch)$/;

/**
 * The files of earlier runs claudius saved under their default names in `dir` (`./runs/`): run from
 * inside a repository (`--cwd .`), each would otherwise be an untracked file of the next run's patch.
 */
async function earlierRuns(dir: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && DEFAULT_RUN_FILE.test(e.name)) found.push(`${dir}/${e.name}`);
    }
  } catch {
    // No runs directory: nothing of claudius's there.
  }
  return found;
}

/** The artifacts: `run.save_tarball` / `run.save_patch` when the run allows them, and `--patch FILE`. */
export async function artifactSteps(
  config: ResolvedConfig,
  run: RunConfig,
  outputPath: string,
  options: FeatureOptions,
  deps: FeatureDeps,
): Promise<FinishStep[]> {
  const patchPath = options.patchPath === undefined ? undefined : resolvePath(options.patchPath, deps.cwd);
  if (!run.save_tarball && !run.save_patch && !patchPath) return [];
  const { checkPatchPath, saveArtifacts } = await import("../features/artifacts.ts");
  if (patchPath) await checkPatchPath(patchPath, resolvePath(outputPath, deps.cwd));
  return [async ({ env, messages, started }) => {
    if (patchPath && !started) deps.log(`No patch saved: the environment never started`);
    const configured = (run.save_tarball || run.save_patch) && (options.artifactsIf?.(messages) ?? true);
    if (!started || !(configured || patchPath)) return {};
    const wanted = { ...(configured ? run : {}), ...(patchPath ? { patch_path: patchPath } : {}) };
    const force = options.force ? { force: options.force } : {};
    const { redactor } = episodeSecrets(deps.hostEnv, config.model);
    const trajectory = resolvePath(outputPath, deps.cwd);
    const atif = run.atif_path && resolvePath(run.atif_path, trajectory.replace(/\/[^/]*$/, ""));
    const own = [atif, options.resume?.link.trajectory, ...await earlierRuns(resolvePath(RUNS_DIR, deps.cwd))]
      .filter((p): p is string => Boolean(p));
    const lease = deps.lease;
    const hold = lease ? { hold: <T>(write: () => Promise<T>) => lease.hold(write) } : {};
    const artifactDeps = { log: deps.log, redactor, own, ...force, ...hold };
    return (await saveArtifacts(env, wanted, trajectory, artifactDeps)).errors;
  }];
}
