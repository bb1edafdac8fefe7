/**
 * The agent classes, one row each (the name a config gives as `agent.agent_class`, the type its
 * trajectories record, its keys, one line of documentation, and the loader of a feature's agent), and every
 * registry of classes together: the agents here (the interactive one is a feature), the models and
 * environments from the core's registries. The config schema, `claudius resume` and `replay`, `--help`
 * and the config reference read this one {@link REGISTRY}.
 *
 * @module
 */
import type { AgentRow } from "../core/agent.ts";
import { DEFAULT_AGENT_KEYS, INTERACTIVE_AGENT_KEYS } from "../features/interactive/keys.ts";
import { CLASSES, type Registry } from "../core/episode.ts";

/** Every agent class, by the name a config gives it. */
export const AGENT_CLASSES = {
  default: {
    type: "claudius.agent.DefaultAgent",
    keys: DEFAULT_AGENT_KEYS,
    doc: "upstream's `DefaultAgent` loop",
  },
  interactive: {
    type: "claudius.agents.InteractiveAgent",
    keys: INTERACTIVE_AGENT_KEYS,
    doc: "upstream's `InteractiveAgent`, the default at a terminal",
    load: () => import("../features/interactive/interactive.ts"),
  },
} as const satisfies Record<string, AgentRow & { load?: () => Promise<unknown> }>;

/** The class used when no config sets `agent.agent_class`. */
export const DEFAULT_AGENT_CLASS = "default";

/** claudius's registries: agents, models and environments. */
export const REGISTRY: Registry = { ...CLASSES, agents: AGENT_CLASSES };
