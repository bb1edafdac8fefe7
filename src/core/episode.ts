/**
 * One episode from a resolved config: build the model and the environment from plain name ->
 * factory maps, run the agent, keep the trajectory on disk after every step, and release the
 * environment on every exit path. The features an episode may run with (mechanisms, the interactive
 * agent, the dangerous-command gate, ATIF, artifacts, resume) come in as an {@link EpisodePlug}
 * built by the command layer; this file knows none of them.
 *
 * @module
 */
import {
  AGENT_KEYS,
  type AgentConfig,
  type AgentDeps,
  type AgentRow,
  DefaultAgent,
  type RunResult,
} from "./agent.ts";
import type { ResolvedConfig } from "./config/load.ts";
import { checkRequired, type ConfigOf, type Keys } from "./config/keys.ts";
import { errorExitMessage, InterruptAgentFlow, RuntimeError } from "./errors.ts";
import { pyRepr } from "../lib/python/template/template.ts";
import { TrajectoryWriter } from "./trajectory_writer.ts";
import { makeModel, MODEL_CLASSES, type ModelClients, type ModelRow } from "./models/classes.ts";
import { ENVIRONMENT_CLASSES, makeEnvironment, probeBashEnv } from "./environments/classes.ts";
import type { EnvironmentRow } from "./environments/classes.ts";
import { type InfoExtras, type ResumeLink, type TrajectoryInfo, trajectoryInfo } from "./trajectory_info.ts";
import { episodeSecrets } from "./secret_redactor.ts";
import type { Environment, Hooks, Json, LoopState, Message, Model, StreamSink, Vars } from "./types.ts";
import type { GlobalLimits } from "./extra/global_limits.ts";
import type { Prompts } from "./config/provenance.ts";

/** The `run` keys: what happens around the episode (artifacts and ATIF are the features'). */
export const RUN_KEYS = {
  task: { type: "string", doc: "The task when no `--task` / `--task-file` is given." },
  env_startup_command: {
    type: "string",
    doc: "A command run once in the environment before the first step.",
  },
  save_tarball: {
    type: "bool",
    default: false,
    doc: "After the run (every ending, before the environment is closed): the working directory as " +
      "`submission.tar.gz` next to the trajectory (`tar -czf - -C <cwd> .`; ProgramBench's layout, so " +
      "one run per directory).",
  },
  save_patch: {
    type: "bool",
    default: false,
    doc: "After the run: `<trajectory stem>.patch` next to the trajectory, `git diff --cached --binary` " +
      "of the working directory against HEAD with every file staged (untracked included, `.gitignore` " +
      "respected) in a throwaway index, so the repository is untouched.",
  },
  create_cwd: {
    type: "bool",
    default: false,
    doc: "Create a local or bubblewrap working directory (`environment.cwd`, `--cwd`) that does not exist " +
      "(`--create-cwd`); else such a directory is refused before the first call, naming it. claudius's own " +
      "new `./workspace/<run time>/` and a batch's `<out>/<id>/workspace` are always created.",
  },
  atif_path: {
    type: "string",
    doc: "Also keep the trajectory as ATIF v1.7 (see Reading runs) at this path, rewritten whole through a " +
      "temporary file and a rename after every step, so a reader always finds a whole document; a relative " +
      "path is taken from the trajectory's directory (in a batch: one per instance; an absolute one is refused " +
      "there). The trajectory itself " +
      "or a directory is refused before the first call; a failed write is one warning, the run goes on.",
  },
} as const satisfies Keys;

/** The resolved `run` section. */
export type RunConfig = ConfigOf<typeof RUN_KEYS>;

/** Everything impure an episode needs, injected by the command layer (or a test, or the batch runner). */
export interface EpisodeDeps {
  /** The process environment (API keys, forwarded variables). */
  hostEnv: Record<string, string>;
  /** Directory relative paths are resolved against. */
  cwd: string;
  /** Warnings and notices, one line each. */
  log: (line: string) => void;
  /** Unique id of this run (container names and labels). */
  runId: string;
  /** The registries the model and environment are built from (default: claudius's own, {@link CLASSES}). */
  classes?: Classes;
  /** Aborted on a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) with an `Interrupted` reason. */
  signal?: AbortSignal;
  /** Wall clock in milliseconds (default `Date.now`). */
  now?: () => number;
  /** Engine address for container environments (`DOCKER_HOST` of every engine CLI call). */
  dockerHost?: string;
  /** Told of each part as it is built, and of every message as it is appended. */
  watch?: EpisodeWatch;
  /** Every model call answered by these instead of the configured endpoint (`claudius replay`). */
  clients?: ModelClients;
  /** The environment commands run in, instead of the configured one (`claudius replay`). */
  environment?: Environment;
  /** A batch instance's claim: the episode writes its files and calls the model only while it holds it. */
  lease?: EpisodeLease;
}

/** What an episode may do only while it holds (a batch instance's claim). */
export interface EpisodeLease {
  /** Before every model call: throws the ending when the hold cannot be vouched for now. */
  check(): void;
  /** Runs a write of the episode's files (a save, an artifact) while held; throws the ending, writing nothing, otherwise. */
  hold<T>(write: () => Promise<T>): Promise<T>;
}

/** The registries of model and environment classes an episode builds from, one row per class. */
export interface Classes {
  /** The model classes, by `model.model_class`. */
  models: Readonly<Record<string, ModelRow>>;
  /** The environment classes, by `environment.environment_class`. */
  environments: Readonly<Record<string, EnvironmentRow>>;
}

/** claudius's own registries. */
export const CLASSES: Classes = { models: MODEL_CLASSES, environments: ENVIRONMENT_CLASSES };

/** Every registry of classes: the episode's, and the agent classes the command layer composes. */
export interface Registry extends Classes {
  /** The agent classes, by `agent.agent_class`. */
  agents: Readonly<Record<string, AgentRow>>;
}

/** What the caller of an episode follows as it happens (all optional). */
export interface EpisodeWatch {
  /** The model was built (before the environment). */
  model?(model: Model): void;
  /** The environment was built, not started yet (the batch runner tracks live ones). */
  environment?(env: Environment): void;
  /** A message was appended. */
  message?(message: Message): void;
}

/** What to run. */
export interface Episode {
  /** The task the agent is given (the `task` template variable). */
  task: string;
  /** Where the trajectory is written. */
  outputPath: string;
  /** Refuse to overwrite an existing file at `outputPath` (default output names). */
  newFile?: boolean;
  /** Extra template variables (e.g. `instance`). */
  vars?: Vars;
  /** Extra top-level trajectory keys (e.g. `instance_id`). */
  top?: Record<string, Json>;
  /** A command run once the environment has started, before `run.env_startup_command`; its result is ignored. */
  setup?: string;
  /** `extra` keys left out of the trajectory's messages (ProgramBench: `raw_output`). */
  omitExtra?: string[];
  /** Where the trajectory goes on when neither its path nor a file beside it can be written (a batch's). */
  rescueDir?: string;
  /** Process-wide limits shared by a batch's episodes (default: from `MSWEA_GLOBAL_*_LIMIT`). */
  limits?: GlobalLimits;
  /** Where the config's prompts came from, recorded as `info.prompts` (see `config/provenance.ts`). */
  prompts?: Prompts;
}

/**
 * Builds the agent of an episode from the `agent` section (less its class, resolved once with the
 * class's keys, its required keys checked) and the built parts.
 */
export type AgentFactory = (
  config: AgentConfig & Record<string, unknown>,
  model: Model,
  env: Environment,
  deps: AgentDeps,
) => DefaultAgent | Promise<DefaultAgent>;

/** Keeps the trajectory somewhere else too, after every step (ATIF). */
export type Saver = (messages: readonly Message[], info: TrajectoryInfo) => Promise<void>;

/** A step run after the loop ends, before the environment closes; returns what failed, by name. */
export type FinishStep = (done: {
  env: Environment;
  messages: readonly Message[];
  /** The environment started (no artifact can be taken otherwise). */
  started: boolean;
}) => Promise<Record<string, string>>;

/** Going on from an earlier run (`claudius resume`) instead of starting one. */
export interface ResumePlan {
  /** The predecessor's messages and counters. */
  initial: LoopState;
  /** How long the predecessor ran, milliseconds (the wall-time limit counts it). */
  elapsedMs: number;
  /** The environment is a new one: the setup and startup commands run again. */
  restarted: boolean;
  /** Recorded as `info.resumed_from`. */
  link: ResumeLink;
  /** Where the predecessor's `info.config` differs from this run's `config` block (recorded in `info.resumed_from`). */
  configChanges?: (config: TrajectoryInfo["config"]) => Record<string, unknown>;
  /** Go on with the restored agent (its environment started) until an exit message. */
  go(agent: DefaultAgent, vars: Vars): Promise<RunResult>;
}

/** The features an episode runs with; none: upstream's loop, untouched. */
export interface EpisodePlug {
  /** The loop's hooks (the mechanisms). */
  hooks?: Hooks<AgentConfig>;
  /** Builds the agent (default: {@link DefaultAgent} over upstream's keys). */
  makeAgent?: AgentFactory;
  /** Wraps the environment the agent runs commands in (the dangerous-command gate). */
  wrapEnv?: (env: Environment) => Environment;
  /** Further writers of each save, given the redacted messages and `info` (e.g. another format). */
  savers?: Saver[];
  /** Steps run after the loop, before the environment closes (the artifacts). */
  finish?: FinishStep[];
  /** Go on from an earlier run (`claudius resume`) instead of starting afresh. */
  resume?: ResumePlan;
  /** Receives streamed replies as they arrive (`model.stream`). */
  onStream?: StreamSink;
}

/** The outcome of an episode. */
export interface EpisodeResult {
  /** How the run ended (the exit message's `extra`). */
  result: RunResult;
  /** The agent after the run: its messages and counters. */
  agent: DefaultAgent;
  /** Bytes written to the trajectory file (benchmark figure). */
  bytesWritten: number;
  /** Where the trajectory is: `outputPath`, or the rescue file it moved to when that stopped being writable. */
  trajectory: string;
}

/**
 * Run `run.env_startup_command` (when set) before the agent starts, as upstream's batch runner does.
 * @throws {RuntimeError} upstream's, with the command's output, when it does not exit 0
 */
async function runStartupCommand(env: Environment, command: unknown, signal?: AbortSignal): Promise<void> {
  if (typeof command !== "string" || command === "") return;
  const out = await env.execute({ command }, signal);
  signal?.throwIfAborted();
  if (out.returncode !== 0) throw new RuntimeError(`Error executing startup command: ${pyRepr(out)}`);
}

/**
 * Upstream's process-wide limits when the environment sets one (`MSWEA_GLOBAL_COST_LIMIT`,
 * `MSWEA_GLOBAL_CALL_LIMIT`), announced as upstream does; their module is loaded only then.
 * @throws {ConfigError} naming the variable when its value is not a number >= 0
 */
async function limitsFromEnv(
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<GlobalLimits | undefined> {
  if (!Object.entries(env).some(([name, value]) => /^MSWEA_GLOBAL_\w+_LIMIT$/.test(name) && value.trim())) {
    return undefined;
  }
  const limits = (await import("./extra/global_limits.ts")).GlobalLimits.fromEnv(env);
  const announced = limits.announcement();
  if (announced) log(announced);
  return limits;
}

const defaultAgent: AgentFactory = (config, model, env, deps) => new DefaultAgent(config, model, env, deps);

/** The built parts of an episode and how to save it. */
async function build(config: ResolvedConfig, episode: Episode, deps: EpisodeDeps, plug: EpisodePlug) {
  const { agent_class: _, ...input } = config.agent;
  // Checked first: a config without prompts is refused before anything is built.
  checkRequired(AGENT_KEYS, input, "agent");
  const own = structuredClone(input);
  const costLimit = own.cost_limit;
  const { secrets, outputSecrets, redactor } = episodeSecrets(deps.hostEnv, config.model);
  const watched = deps.watch?.message;
  const onMessage = watched && ((m: Message) => watched(redactor.value(m)));
  const limits = episode.limits ?? await limitsFromEnv(deps.hostEnv, deps.log);
  // A streamed reply is shown as it arrives, with the key redacted even when it comes in pieces.
  const onStream = plug.onStream && redactor.sink(plug.onStream);
  const modelDeps = { ...deps, ...(limits ? { limits } : {}), ...(onStream ? { onStream } : {}) };
  const classes = deps.classes ?? CLASSES;
  const model = await makeModel(
    config.model,
    costLimit,
    modelDeps,
    plug.resume?.initial.nCalls,
    classes.models,
  );
  deps.watch?.model?.(model);
  const env = deps.environment ??
    await makeEnvironment(
      config.environment,
      { ...deps, createCwd: config.run.create_cwd === true },
      own.wall_time_limit_seconds,
      classes.environments,
    );
  deps.watch?.environment?.(env);
  const writer = new TrajectoryWriter(episode.outputPath, {
    ...(episode.top ? { top: episode.top } : {}),
    ...(episode.omitExtra ? { omitExtra: episode.omitExtra } : {}),
    ...(episode.rescueDir ? { rescueDir: episode.rescueDir } : {}),
    onMoved: (to, why) =>
      deps.log(
        `warning: Cannot write the trajectory at ${episode.outputPath} any more (${why}); it goes on in ${to}`,
      ),
  });
  const startup = config.run.env_startup_command;
  const extras: InfoExtras = {
    ...(typeof startup === "string" && startup ? { startupCommand: startup } : {}),
    ...(plug.resume ? { resumedFrom: plug.resume.link } : {}),
    ...(plug.resume?.configChanges ? { configChanges: plug.resume.configChanges } : {}),
    ...(episode.prompts ? { prompts: episode.prompts } : {}),
  };
  const info = (a: DefaultAgent) => trajectoryInfo(a, secrets, extras);
  const shown = redactor.view<Message>();
  const held = <T>(write: () => Promise<T>) => deps.lease ? deps.lease.hold(write) : write();
  const save = (a: DefaultAgent, more: Partial<TrajectoryInfo> = {}) =>
    held(async () => {
      const [messages, i] = [shown(a.messages), redactor.value({ ...info(a), ...more })];
      await writer.save(messages, i);
      for (const saver of plug.savers ?? []) await saver(messages, i);
    });
  const now = deps.now ?? Date.now;
  const agentDeps: AgentDeps = {
    save: (a) => save(a),
    ...(plug.hooks ? { hooks: plug.hooks } : {}),
    beforeCall: () => {
      limits?.check();
      deps.lease?.check();
    },
    secrets: outputSecrets,
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(onMessage ? { onMessage } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(plug.resume ? { startedAt: now() - plug.resume.elapsedMs, initial: plug.resume.initial } : {}),
  };
  const agentEnv = plug.wrapEnv?.(env) ?? env;
  const agent = await (plug.makeAgent ?? defaultAgent)(own, model, agentEnv, agentDeps);
  return { agent, env, writer, info, save, startup, held };
}

/**
 * Run one episode. The trajectory is on disk after every step and on every exit path; the
 * environment is closed on every exit path. Unexpected errors are recorded, then rethrown.
 */
export async function runEpisode(
  config: ResolvedConfig,
  episode: Episode,
  deps: EpisodeDeps,
  plug: EpisodePlug = {},
): Promise<EpisodeResult> {
  const { agent, env, writer, info, save, startup, held } = await build(config, episode, deps, plug);
  const resume = plug.resume;
  try {
    // The trajectory is created (and checked) before anything is run or paid for.
    await held(() => writer.open(info(agent), { exclusive: episode.newFile === true }));
    if (resume) await save(agent);
  } catch (e) {
    await env.close();
    throw e;
  }
  let started = false;
  try {
    await env.start(deps.signal);
    started = true;
    await probeBashEnv(env, config.environment, deps.log, deps.signal);
    // A kept working directory is set up already; a new container is not.
    if (!resume || resume.restarted) {
      if (episode.setup) await env.execute({ command: episode.setup }, deps.signal);
      await runStartupCommand(env, startup, deps.signal);
    }
    const vars = episode.vars ?? {};
    const result = resume ? await resume.go(agent, vars) : await agent.run(episode.task, vars);
    return { result, agent, bytesWritten: writer.bytesWritten, trajectory: writer.path };
  } catch (caught) {
    const ended = await recordEnding(agent, caught, deps.signal, save);
    if (ended) return { result: ended, agent, bytesWritten: writer.bytesWritten, trajectory: writer.path };
    throw caught;
  } finally {
    const errors: Record<string, string> = {};
    for (const step of plug.finish ?? []) {
      Object.assign(errors, await step({ env, messages: agent.messages, started }));
    }
    if (Object.keys(errors).length) {
      await save(agent, { artifact_errors: errors }).catch((e) =>
        deps.log(`warning: Cannot save trajectory: ${e}`)
      );
    }
    writer.close();
    await env.close();
  }
}

/**
 * The loop records its own endings; these came before it (environment start, startup command, first
 * templates). A signal meanwhile ends the run as the loop would: recorded, and its result returned.
 */
async function recordEnding(
  agent: DefaultAgent,
  caught: unknown,
  signal: AbortSignal | undefined,
  save: (agent: DefaultAgent) => Promise<void>,
): Promise<RunResult | undefined> {
  if (agent.messages.at(-1)?.role === "exit") return undefined;
  const e = signal?.aborted ? signal.reason : caught;
  const ending = e instanceof InterruptAgentFlow
    ? e.messages
    : [errorExitMessage(e instanceof Error ? e : new Error(String(e)))];
  agent.addMessages(...ending);
  await save(agent);
  const last = agent.messages.at(-1);
  return e instanceof InterruptAgentFlow && last?.role === "exit" ? last.extra : undefined;
}
