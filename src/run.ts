/**
 * One episode from a resolved config: build the model and the environment from plain name ->
 * factory maps, run the agent, keep the trajectory on disk after every step, and release the
 * environment on every exit path.
 *
 * @module
 */
import { type AgentConfig, DefaultAgent, type RunResult } from "./agent.ts";
import type { ResolvedConfig } from "./config.ts";
import { ConfigError, errorExitMessage } from "./errors.ts";
import { type ActionFormat, ChatModel, type ChatModelConfig } from "./model.ts";
import { TrajectoryWriter } from "./trajectory.ts";
import { VERSION } from "./version.ts";
import { LocalEnvironment, type LocalEnvironmentConfig } from "./environments/local.ts";
import type { DockerEnvironmentConfig } from "./environments/docker.ts";
import type { BubblewrapEnvironmentConfig } from "./environments/bubblewrap.ts";
import { OpenAIClient, type OpenAIClientConfig } from "./models/openai.ts";
import type { ChatClient, Environment, Json, Message, Model, Vars } from "./types.ts";

/** The upstream mini-swe-agent version whose behaviour claudius reproduces. */
export const UPSTREAM_VERSION = "2.4.6";

/** Everything impure an episode needs, injected by `main.ts` (or a test, or the batch runner). */
export interface EpisodeDeps {
  /** The process environment (API keys, forwarded variables). */
  hostEnv: Record<string, string>;
  /** Warnings and notices, one line each. */
  log: (line: string) => void;
  /** Aborted on Ctrl-C / SIGTERM with an `Interrupted` reason. */
  signal?: AbortSignal;
  /** Called with every message as it is appended. */
  onMessage?: (message: Message) => void;
  /** Unique id of this run (container names and labels). */
  runId: string;
  /** Directory relative paths are resolved against. */
  cwd: string;
  now?: () => number;
  /** Engine address for container environments (`DOCKER_HOST` of every engine CLI call). */
  dockerHost?: string;
  /** Called with the environment right after it is built (the batch runner tracks live ones). */
  onEnvironment?: (env: Environment) => void;
}

/** What to run. */
export interface Episode {
  task: string;
  outputPath: string;
  /** Extra template variables (e.g. `instance`). */
  vars?: Vars;
  /** Extra top-level trajectory keys (e.g. `instance_id`). */
  top?: Record<string, Json>;
}

/** The outcome of an episode. */
export interface EpisodeResult {
  result: RunResult;
  agent: DefaultAgent;
  /** Bytes written to the trajectory file (benchmark figure). */
  bytesWritten: number;
}

const MODEL_CLASSES: Record<string, { transport: "http" | "scripted"; format: ActionFormat; type: string }> =
  {
    openai: { transport: "http", format: "toolcall", type: "claudius.models.OpenAIModel" },
    litellm: { transport: "http", format: "toolcall", type: "claudius.models.OpenAIModel" },
    openrouter: { transport: "http", format: "toolcall", type: "claudius.models.OpenAIModel" },
    openai_textbased: { transport: "http", format: "text", type: "claudius.models.OpenAITextbasedModel" },
    litellm_textbased: { transport: "http", format: "text", type: "claudius.models.OpenAITextbasedModel" },
    openrouter_textbased: { transport: "http", format: "text", type: "claudius.models.OpenAITextbasedModel" },
    scripted: { transport: "scripted", format: "toolcall", type: "claudius.models.ScriptedModel" },
    scripted_textbased: {
      transport: "scripted",
      format: "text",
      type: "claudius.models.ScriptedTextbasedModel",
    },
  };

/**
 * Build the model named by `model.model_class`.
 * @throws {ConfigError} for an unknown class or missing model name / script
 */
export async function makeModel(
  config: Record<string, unknown>,
  costLimit: number,
  deps: Pick<EpisodeDeps, "hostEnv" | "log" | "cwd">,
): Promise<Model> {
  const cls = String(config.model_class);
  const spec = MODEL_CLASSES[cls];
  if (!spec) {
    throw new ConfigError(
      `Unknown model.model_class '${cls}' (known: ${Object.keys(MODEL_CLASSES).join(", ")})`,
    );
  }
  let client: ChatClient;
  if (spec.transport === "scripted") {
    // Loaded on demand, like the container environments: start-up pays only for what runs.
    const { loadScript, parseScript } = await import("./models/_script.ts");
    const { ScriptedClient } = await import("./models/scripted.ts");
    const replies = config.replies !== undefined
      ? parseScript(config.replies, "model.replies")
      : config.script !== undefined
      ? await loadScript(resolvePath(String(config.script), deps.cwd))
      : undefined;
    if (!replies) throw new ConfigError(`model.model_class '${cls}' needs model.script or model.replies`);
    config = { model_name: "scripted", ...config };
    client = new ScriptedClient(replies, { model_name: String(config.model_name) });
  } else {
    const name = config.model_name ?? deps.hostEnv.MSWEA_MODEL_NAME;
    if (typeof name !== "string" || !name) {
      throw new ConfigError("Cannot build model: no model name (pass -m MODEL or set model.model_name)");
    }
    config = { ...withUpstreamEnvDefaults("model", config, deps.hostEnv), model_name: name };
    // Upstream's OpenRouter classes always talk OpenRouter's dialect (its key, `usage.include`).
    if (cls.startsWith("openrouter") && !name.startsWith("openrouter/")) {
      config = { ...config, model_name: `openrouter/${name}` };
    }
    client = new OpenAIClient(config as unknown as OpenAIClientConfig, {
      env: deps.hostEnv,
      log: deps.log,
      costLimit,
    });
  }
  // Like upstream, the class selector is not part of the model's own config.
  const { model_class: _, ...own } = config;
  return new ChatModel(own as ChatModelConfig, client, spec.format, spec.type);
}

/**
 * Build the environment named by `environment.environment_class` (not started yet).
 * @throws {ConfigError} for an unknown class
 */
export async function makeEnvironment(
  config: Record<string, unknown>,
  deps: EpisodeDeps,
): Promise<Environment> {
  const cls = String(config.environment_class);
  if (cls === "local" || cls === "bubblewrap") {
    // Host-side working directory: relative to where claudius runs, `./workspace` by default, created.
    const cwd = resolvePath(String(config.cwd || "workspace"), deps.cwd);
    await Deno.mkdir(cwd, { recursive: true });
    config = { ...config, cwd };
  }
  switch (cls) {
    case "local":
      return new LocalEnvironment(config as LocalEnvironmentConfig, deps.hostEnv);
    case "bubblewrap": {
      const { BubblewrapEnvironment } = await import("./environments/bubblewrap.ts");
      return new BubblewrapEnvironment(config as BubblewrapEnvironmentConfig, deps);
    }
    case "docker":
    case "podman": {
      const { DockerEnvironment } = await import("./environments/docker.ts");
      return new DockerEnvironment(
        {
          ...(cls === "podman" ? { executable: "podman" } : {}),
          ...withUpstreamEnvDefaults("environment", config, deps.hostEnv),
        } as unknown as DockerEnvironmentConfig,
        {
          hostEnv: deps.hostEnv,
          runId: deps.runId,
          log: deps.log,
          ...(deps.dockerHost ? { dockerHost: deps.dockerHost } : {}),
        },
      );
    }
    default:
      throw new ConfigError(
        `Unknown environment.environment_class '${cls}' (known: local, docker, podman, bubblewrap)`,
      );
  }
}

/**
 * Upstream's environment variables that stand in for config keys a config leaves unset
 * (`MSWEA_COST_TRACKING`, `MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT`, `MSWEA_DOCKER_EXECUTABLE`).
 */
export function withUpstreamEnvDefaults(
  section: "model" | "environment",
  config: Record<string, unknown>,
  hostEnv: Record<string, string>,
): Record<string, unknown> {
  const pairs: [string, string | undefined, (v: string) => unknown][] = section === "model"
    ? [
      ["cost_tracking", hostEnv.MSWEA_COST_TRACKING, String],
      ["retry_attempts", hostEnv.MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT, Number],
    ]
    : [["executable", hostEnv.MSWEA_DOCKER_EXECUTABLE, String]];
  const out = { ...config };
  for (const [key, value, parse] of pairs) if (out[key] === undefined && value) out[key] = parse(value);
  return out;
}

/** `path` against `cwd` unless absolute. */
export function resolvePath(path: string, cwd: string): string {
  return path.startsWith("/") ? path : `${cwd}/${path}`;
}

/** The trajectory's `info` block for the agent's current state. */
export function trajectoryInfo(agent: DefaultAgent): Json {
  const last = agent.messages.at(-1)?.extra ?? {};
  return {
    model_stats: { instance_cost: agent.cost, api_calls: agent.nCalls },
    config: {
      agent: agent.config,
      agent_type: "claudius.agent.DefaultAgent",
      model: agent.model.config,
      model_type: agent.model.type,
      environment: agent.env.config,
      environment_type: agent.env.type,
    },
    mini_version: UPSTREAM_VERSION,
    claudius_version: VERSION,
    exit_status: last.exit_status ?? "",
    submission: last.submission ?? "",
  } as unknown as Json;
}

/**
 * Run one episode. The trajectory is on disk after every step and on every exit path; the
 * environment is closed on every exit path. Unexpected errors are recorded, then rethrown.
 */
export async function runEpisode(
  config: ResolvedConfig,
  episode: Episode,
  deps: EpisodeDeps,
): Promise<EpisodeResult> {
  const agentConfig = config.agent as AgentConfig;
  for (const key of ["system_template", "instance_template"] as const) {
    if (typeof agentConfig[key] !== "string") {
      throw new ConfigError(
        `Missing config key 'agent.${key}' (no config sets it; add -c default for the built-in prompts)`,
      );
    }
  }
  const model = await makeModel(config.model, Number(agentConfig.cost_limit), deps);
  const env = await makeEnvironment(config.environment, deps);
  deps.onEnvironment?.(env);
  const writer = new TrajectoryWriter(episode.outputPath, episode.top ? { top: episode.top } : {});
  const { agent_class: _, ...ownAgentConfig } = agentConfig;
  const agent = new DefaultAgent({ ...ownAgentConfig, output_path: episode.outputPath }, model, env, {
    save: (a) => writer.save(a.messages, trajectoryInfo(a)),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.onMessage ? { onMessage: deps.onMessage } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  let started = false;
  try {
    try {
      await env.start(deps.signal);
      started = true;
      const startup = config.run.env_startup_command;
      if (typeof startup === "string" && startup) await env.execute({ command: startup }, deps.signal);
      const result = await agent.run(episode.task, episode.vars ?? {});
      return { result, agent, bytesWritten: writer.bytesWritten };
    } catch (e) {
      // The loop records its own errors; these came before it (environment start, first templates).
      if (agent.messages.at(-1)?.role !== "exit") {
        agent.addMessages(errorExitMessage(e instanceof Error ? e : new Error(String(e))));
        await writer.save(agent.messages, trajectoryInfo(agent));
      }
      throw e;
    }
  } finally {
    if (started && (config.run.save_tarball || config.run.save_patch)) {
      const { saveArtifacts } = await import("./artifacts.ts");
      const { errors } = await saveArtifacts(env, config.run, episode.outputPath, deps);
      if (Object.keys(errors).length) {
        const info = { ...(trajectoryInfo(agent) as Record<string, Json>), artifact_errors: errors };
        await writer.save(agent.messages, info).catch((e) =>
          deps.log(`warning: Cannot save trajectory: ${e}`)
        );
      }
    }
    writer.close();
    await env.close();
  }
}
