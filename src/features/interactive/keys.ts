/**
 * The keys of upstream's interactive agent (`mode`, `whitelist_actions`, `confirm_exit`) and the
 * dangerous-command gate (`confirm_dangerous`). Both agent classes accept them (the default agent, to
 * refuse `confirm` or `human` instead of silently never asking); the interactive agent gives them
 * upstream's defaults.
 *
 * @module
 */
import { AGENT_KEYS } from "../../core/agent.ts";
import type { ConfigOf, Keys } from "../../core/config/keys.ts";

/** The interaction keys, as the default agent reads them (unset unless a config sets them). */
export const INTERACTION_KEYS = {
  mode: {
    type: "string",
    values: ["confirm", "yolo", "human"],
    doc: "`confirm`: ask before running the model's commands; `yolo`: never ask; `human`: you type the " +
      "commands. Switched at any prompt (`/c`, `/y`, `/u`). `confirm` or `human` without a terminal, or " +
      "with the default agent (which never asks), is a usage error.",
  },
  whitelist_actions: {
    type: "string[]",
    doc: "Python regexes (`re.match`): in confirm mode a turn whose every command matches one runs unasked.",
  },
  confirm_exit: {
    type: "bool",
    doc: "On a submission, ask: Enter ends the run, text continues it as a new task.",
  },
  confirm_dangerous: {
    type: "string[]",
    defaultDoc: "none",
    doc: "Python regexes (`re.search`) of commands never run unasked: at a terminal each match asks y/n " +
      "(even in yolo mode); headless it is refused and the model is told why. `-c dangerous` adds a " +
      "documented list (`rm -rf /`, `git push --force`, `mkfs`, ...).",
  },
} as const satisfies Keys;

/** The same keys with upstream's `InteractiveAgent` defaults. */
export const INTERACTIVE_DEFAULTS = {
  mode: { ...INTERACTION_KEYS.mode, default: "confirm" },
  whitelist_actions: { ...INTERACTION_KEYS.whitelist_actions, default: [] },
  confirm_exit: { ...INTERACTION_KEYS.confirm_exit, default: true },
} as const satisfies Keys;

/** The interactive agent's keys: the default agent's, with upstream's interactive defaults. */
export const INTERACTIVE_AGENT_KEYS = {
  ...AGENT_KEYS,
  ...INTERACTIVE_DEFAULTS,
  confirm_dangerous: INTERACTION_KEYS.confirm_dangerous,
};

/** The resolved `agent` section of the interactive agent. */
export type InteractiveConfig = ConfigOf<typeof INTERACTIVE_AGENT_KEYS>;

/**
 * The default agent's keys as the episode resolves them: upstream's seven, and the interaction keys a
 * config sets (recorded with them; the command layer refuses a mode that would ask where no one answers).
 */
export const DEFAULT_AGENT_KEYS: typeof AGENT_KEYS & typeof INTERACTION_KEYS = {
  ...AGENT_KEYS,
  ...INTERACTION_KEYS,
};
