/**
 * One replay: the recording's config resolved, its task and uname read back from its first two
 * messages (unless the task is given), then claudius's own episode run with every model call and
 * command answered from the recording ({@link ReplaySession}), and the messages it recorded
 * compared with the recorded ones.
 *
 * @module
 */
import { asError, errorMessage } from "../../lib/errors.ts";
import { AGENT_KEYS, DefaultAgent } from "../../core/agent.ts";
import { checkRequired } from "../../core/config/keys.ts";
import type { ResolvedConfig } from "../../core/config/load.ts";
import { ConfigError } from "../../core/errors.ts";
import { type AgentFactory, type EpisodeDeps, type ResumePlan, runEpisode } from "../../core/episode.ts";
import { makeModel } from "../../core/models/classes.ts";
import type { Message, Vars } from "../../core/types.ts";
import { renderTemplate } from "../../lib/python/template/template.ts";
import { solve, tokens, UNAME_FIELDS } from "./invert.ts";
import type { Recording } from "./recording.ts";
import {
  CheckedModel,
  ReplayDivergence,
  ReplayEnd,
  ReplayingEnvironment,
  ReplaySession,
} from "./replaying.ts";

/**
 * One part of a recording played back with the config its messages were made with: a resumed run is
 * its predecessor's messages, made under the predecessor's config, then its own, made under its own.
 */
export interface ReplayPhase {
  /** The config its messages were made with. */
  config: ResolvedConfig;
  /** The index of the first message of the next part (the last part: the recording's length). */
  end: number;
  /** How a later part goes on from the messages before it (as `claudius resume` went on); none: the first. */
  resume?: (before: Message[]) => ResumePlan;
}

/** What a replay needs. */
export interface ReplayOptions {
  recording: Recording;
  /** The config it runs with: the recorded one, with any `-c` specs on top (the last part's). */
  config: ResolvedConfig;
  /** A resumed recording's parts, oldest first (default: one part, `config`, the whole recording). */
  phases?: ReplayPhase[];
  /** Builds the agent of the class that ran (default: the default agent over upstream's keys). */
  makeAgent?: AgentFactory;
  /** Where claudius's trajectory of the replay goes. */
  outputPath: string;
  /** The task, when given (else it is read back from the instance message). */
  task?: string;
  deps: Pick<EpisodeDeps, "hostEnv" | "cwd" | "log" | "classes">;
}

/** What a replay found. */
export interface ReplayOutcome {
  session: ReplaySession;
  /** The messages claudius recorded. */
  messages: readonly Message[];
  /** Why claudius's run stopped before an ending of its own (the recording's end, or an error). */
  stopped?: string;
  /** The variables read back from the first messages (`task`, `system`, ...). */
  recovered: string[];
  /** The recording's messages (a part's session holds only those up to its end). */
  total: number;
}

/**
 * The task and uname a recording's first two messages were rendered with: each template rendered
 * with tokens for them (see `invert.ts`) and matched against the recorded text.
 * @throws {ConfigError} when the task is needed, not given, and cannot be read back
 */
async function recoverVars(options: ReplayOptions, session: ReplaySession, env: ReplayingEnvironment) {
  const { config, recording, deps } = options;
  const tok = tokens();
  env.uname = Object.fromEntries(UNAME_FIELDS.map((f) => [f, tok[f]!]));
  const model = await makeModel(
    config.model,
    0,
    { ...deps, clients: session.clients },
    0,
    deps.classes?.models,
  );
  const { agent_class: _, ...input } = config.agent;
  checkRequired(AGENT_KEYS, input, "agent");
  const probe = new DefaultAgent(input, model, env);
  const vars = probe.templateVars({ task: options.task ?? tok.task });
  const found: Record<string, string> = {};
  let unread = false;
  for (
    const [i, role, key] of [[0, "system", "system_template"], [1, "user", "instance_template"]] as const
  ) {
    const rendered = renderTemplate(probe.config[key], vars, `agent.${key}`);
    // As JSON text, so that content the model class turns into parts (multimodal) is read back too.
    const ours = JSON.stringify((model.formatMessage?.(role, rendered) ?? { content: rendered }).content);
    const values = solve(ours, JSON.stringify(recording.messages[i]?.content ?? null));
    const read = values && unescapeAll(values);
    if (read === undefined) unread ||= rendered.includes(tok.task!);
    else for (const [k, v] of Object.entries(read)) found[k] ??= v;
  }
  if (options.task === undefined && found.task === undefined && unread) {
    throw new ConfigError(
      `Cannot replay ${recording.path}: its task cannot be read back from its message 2 (the instance ` +
        "template renders otherwise with this config): give it with --task or --task-file",
    );
  }
  env.uname = Object.fromEntries(UNAME_FIELDS.map((f) => [f, found[f] ?? ""]));
  return { task: options.task ?? found.task ?? "", recovered: Object.keys(found) };
}

/** Values read from JSON text, unescaped; undefined when one is no whole JSON string body. */
function unescapeAll(values: Record<string, string>): Record<string, string> | undefined {
  try {
    return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, JSON.parse(`"${v}"`) as string]));
  } catch {
    return undefined;
  }
}

const defaultAgent: AgentFactory = (own, model, env, deps) => new DefaultAgent(own, model, env, deps);

/** The recording up to message `end`, its ending left to what comes after. */
function upTo(recording: Recording, end: number): Recording {
  return {
    ...recording,
    messages: recording.messages.slice(0, end),
    calls: recording.calls.filter((c) => c.index < end),
    outputs: recording.outputs.filter((o) => o.index < end),
    exitIndex: -1,
    exitStatus: "",
    submission: "",
  };
}

/**
 * Replay a recording through claudius's loop, part by part (see {@link ReplayPhase}); the first part
 * that leaves the recording ends it.
 * @throws {ConfigError} for a config claudius cannot run, or a task it cannot read back
 */
export async function replay(options: ReplayOptions): Promise<ReplayOutcome> {
  const { recording, deps } = options;
  const phases = options.phases ?? [{ config: options.config, end: recording.messages.length }];
  const envOf = (config: ResolvedConfig) => {
    const { environment_class: _, ...rest } = config.environment;
    return rest;
  };
  const probe = new ReplaySession(recording);
  const probeEnv = new ReplayingEnvironment(envOf(phases[0]!.config), recording.environmentType, probe, {});
  const { task, recovered } = await recoverVars({ ...options, config: phases[0]!.config }, probe, probeEnv);
  const makeAgent = options.makeAgent ?? defaultAgent;
  let session = probe;
  let messages: readonly Message[] = [];
  let stopped: string | undefined;
  let start = 0;
  for (const [i, phase] of phases.entries()) {
    const last = i === phases.length - 1;
    const from = {
      calls: recording.calls.filter((c) => c.index < start).length,
      outputs: recording.outputs.filter((o) => o.index < start).length,
    };
    session = new ReplaySession(last ? recording : upTo(recording, phase.end), from);
    const plan = phase.resume?.(recording.messages.slice(0, start));
    const env = new ReplayingEnvironment(
      envOf(phase.config),
      recording.environmentType,
      session,
      probeEnv.uname,
      plan !== undefined,
    );
    const resumed = plan && {
      ...plan,
      go: (a: DefaultAgent, vars: Vars) => (env.agentGoesOn(), plan.go(a, vars)),
    };
    let agent: DefaultAgent | undefined;
    stopped = undefined;
    try {
      await runEpisode(
        phase.config,
        { task, outputPath: options.outputPath, top: recording.top },
        { ...deps, runId: "replay", clients: session.clients, environment: env },
        {
          makeAgent: async (input, model, environment, agentDeps) =>
            agent = await makeAgent(input, new CheckedModel(model, session), environment, agentDeps),
          ...(resumed ? { resume: resumed } : {}),
        },
      );
    } catch (e) {
      if (agent === undefined) throw e;
      if (!(e instanceof ReplayDivergence)) {
        stopped = e instanceof ReplayEnd
          ? e.message
          : `claudius stopped with ${asError(e).name}: ${errorMessage(e)}`;
      }
    }
    messages = (agent as DefaultAgent | undefined)?.messages ?? [];
    session.checkRecorded(messages);
    if (session.divergence) break;
    start = phase.end;
  }
  return { session, messages, recovered, total: recording.messages.length, ...(stopped ? { stopped } : {}) };
}
