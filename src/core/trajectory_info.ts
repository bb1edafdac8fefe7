/**
 * The trajectory's `info` block: upstream's keys (`model_stats`, `config`, `exit_status`,
 * `submission`, `mini_version`) plus claudius's own, with credentials redacted.
 *
 * @module
 */
import type { DefaultAgent } from "./agent.ts";
import { redactSecrets } from "./redact.ts";
import { VERSION } from "./version.ts";
import { isPlainObject } from "../lib/json.ts";
import type { Prompts } from "./config/provenance.ts";

/** The upstream mini-swe-agent version whose behaviour claudius reproduces. */
export const UPSTREAM_VERSION = "2.4.6";

/** `info.resumed_from` of a resumed trajectory: where it came from. */
export interface ResumeLink {
  /** The predecessor's path (absolute). */
  trajectory: string;
  /** How the predecessor ended ("" when its process was killed before recording an ending). */
  exit_status: string;
  /** Messages taken over from it (its exit message left out). */
  messages: number;
  /** Its model calls and cost, included in this trajectory's `model_stats`. */
  api_calls: number;
  /** Its cost in dollars, included in this trajectory's `model_stats`. */
  instance_cost: number;
  /** The predecessor was torn (its process killed mid-save) and was read up to its last whole message. */
  repaired: boolean;
  /**
   * The messages this trajectory begins with that are the predecessor's (fewer than `messages` when its
   * last step was cut short: that step's observations were made again).
   */
  kept?: number;
  /**
   * The predecessor's `info.config` where it differs from this trajectory's, by section and key
   * (`null`: the predecessor had no such key): what `claudius replay` renders the kept messages with.
   */
  config?: Record<string, unknown>;
  /** The predecessor's own `resumed_from`, when it was a resumed run too. */
  resumed_from?: ResumeLink;
}

/** The trajectory's `info` block (upstream's keys, plus claudius's version and artifact errors). */
export interface TrajectoryInfo {
  /** The run's dollars and model calls (the predecessor's included on a resume). */
  model_stats: { instance_cost: number; api_calls: number };
  /** Each component's resolved config and the class recorded for it. */
  config: {
    agent: Record<string, unknown>;
    agent_type: string;
    model: Record<string, unknown>;
    model_type: string;
    environment: Record<string, unknown>;
    environment_type: string;
  };
  /** Upstream's version this run matches (what upstream's tools read). */
  mini_version: string;
  /** The claudius version that wrote the trajectory. */
  claudius_version: string;
  /** Where the prompts came from: upstream's files of a release, claudius's own words, a user's file. */
  prompts?: Prompts;
  /** The model as configured (`model.model_name`) and as each response named it (`model`), in order. */
  model_names?: { configured: string; served: string[] };
  /** How the run ended (`Submitted`, `LimitsExceeded`, ...); empty while it runs. */
  exit_status: string;
  /** What the agent submitted (empty unless it submitted). */
  submission: string;
  /** What could not be saved after the run (`run.save_tarball`, `run.save_patch`). */
  artifact_errors?: Record<string, string>;
  /** Opt-in mechanisms: what happened (`info.config.mechanisms` holds the switches that were on). */
  mechanisms?: Record<string, unknown>;
  /** False when the run was best-of-k (`mechanisms.reroll`). */
  pass_at_1?: boolean;
  /** A resumed run: the trajectory it went on from (`claudius resume`). */
  resumed_from?: ResumeLink;
}

/** What `info` records besides the agent's state. */
export interface InfoExtras {
  /** `run.env_startup_command`, recorded as `config.run` (a resumed run in a new container runs it again). */
  startupCommand?: string;
  /** A resumed run: the trajectory it went on from, recorded as `info.resumed_from`. */
  resumedFrom?: ResumeLink;
  /**
   * A resumed run: where the predecessor's `info.config` differs from this run's `config` block,
   * recorded as `resumed_from.config` (see `features/resume/config_changes.ts`).
   */
  configChanges?: (config: TrajectoryInfo["config"]) => Record<string, unknown>;
  /** Where the prompts came from, recorded as `info.prompts`. */
  prompts?: Prompts;
}

/**
 * The trajectory's `info` block for the agent's current state; credentials in the configs (by name,
 * by shape, and the `secrets` given) are redacted.
 */
export function trajectoryInfo(
  agent: DefaultAgent,
  secrets: readonly string[] = [],
  extras: InfoExtras = {},
): TrajectoryInfo {
  const last = agent.messages.at(-1);
  const ending = last?.role === "exit" ? last.extra : { exit_status: "", submission: "" };
  const { config: mechanisms, ...facts } = agent.hooks?.info?.() ?? {};
  const config = recordedConfig(agent, mechanisms, secrets, extras);
  return {
    model_stats: { instance_cost: agent.cost, api_calls: agent.nCalls },
    config,
    mini_version: UPSTREAM_VERSION,
    claudius_version: VERSION,
    ...(extras.prompts ? { prompts: extras.prompts } : {}),
    model_names: modelNames(agent),
    exit_status: ending.exit_status,
    submission: ending.submission,
    ...facts,
    ...(extras.resumedFrom ? { resumed_from: resumeLink(extras, config) } : {}),
  };
}

/** The links already made, by the config block they were made against. */
const links = new WeakMap<object, ResumeLink>();

/** `info.resumed_from`: the link, with where the predecessor's config differed from this `config`. */
function resumeLink(extras: InfoExtras, config: TrajectoryInfo["config"]): ResumeLink {
  const link = extras.resumedFrom!;
  const changes = extras.configChanges;
  if (!changes) return link;
  let made = links.get(config);
  if (made === undefined) links.set(config, made = { ...link, config: changes(config) });
  return made;
}

/** What each agent's responses named, and how many of its messages were read for it. */
const servedSoFar = new WeakMap<object, { read: number; served: string[] }>();

/** `info.model_names`: the configured name, and the names the responses gave (read once per message). */
function modelNames(agent: DefaultAgent): { configured: string; served: string[] } {
  const messages = agent.messages;
  let seen = servedSoFar.get(agent);
  if (!seen || seen.read > messages.length) servedSoFar.set(agent, seen = { read: 0, served: [] });
  for (; seen.read < messages.length; seen.read++) {
    const m = messages[seen.read] as { extra?: { response?: unknown }; object?: unknown; model?: unknown };
    const response = isPlainObject(m.extra?.response)
      ? m.extra.response
      : m.object === "response"
      ? m
      : undefined;
    const model = isPlainObject(response) ? response.model : undefined;
    if (typeof model === "string" && model && !seen.served.includes(model)) seen.served.push(model);
  }
  const configured = agent.model.config.model_name;
  return { configured: typeof configured === "string" ? configured : "", served: [...seen.served] };
}

/** The last config block built for each agent, and what it was built from. */
const lastConfig = new WeakMap<object, { from: unknown[]; config: TrajectoryInfo["config"] }>();

/**
 * `info.config`: the run's config sections, redacted. Built again only when one of them changed: a
 * save happens twice a step, and redacting every template each time was most of its cost. A change
 * is seen in any top-level field of a section (the interactive agent sets `mode` and the limits in
 * place); the sections' nested values are never changed during a run.
 */
function recordedConfig(
  agent: DefaultAgent,
  mechanisms: unknown,
  secrets: readonly string[],
  extras: InfoExtras,
): TrajectoryInfo["config"] {
  const sections: unknown[] = [
    agent.config,
    agent.type,
    agent.model.config,
    agent.model.type,
    agent.env.config,
    agent.env.type,
    mechanisms,
    extras.startupCommand,
    ...secrets,
  ];
  const from = sections.flatMap((
    s,
  ) => (s !== null && typeof s === "object" ? [s, ...Object.values(s)] : [s]));
  const last = lastConfig.get(agent);
  if (last && last.from.length === from.length && last.from.every((v, i) => Object.is(v, from[i]))) {
    return last.config;
  }
  const config = redactSecrets({
    agent: agent.config,
    agent_type: agent.type,
    model: agent.model.config,
    model_type: agent.model.type,
    environment: agent.env.config,
    environment_type: agent.env.type,
    ...(isPlainObject(mechanisms) ? mechanisms : {}),
    ...(extras.startupCommand ? { run: { env_startup_command: extras.startupCommand } } : {}),
  }, secrets);
  lastConfig.set(agent, { from, config });
  return config;
}
