/**
 * The config schema: every section, its classes and the keys each class reads, assembled from the
 * components' own tables (`AGENT_KEYS` in agent.ts, `MODEL_CLASSES`, `ENVIRONMENT_CLASSES`, ...)
 * and handed to the loader. A section a feature defines (`mechanisms`) is loaded only when some
 * config names it, so a control run never loads the feature.
 *
 * @module
 */
import type { Keys } from "../core/config/keys.ts";
import type { Schema, SectionDef } from "../core/config/schema.ts";
import { DEFAULT_AGENT_KEYS, INTERACTIVE_AGENT_KEYS } from "../core/config/interaction_keys.ts";
import { RUN_KEYS } from "../core/episode.ts";
import { CHECK_KEYS } from "../core/config/check.ts";
import { DEFAULT_MODEL_CLASS, MODEL_CLASSES } from "../core/models/classes.ts";
import {
  DEFAULT_ENVIRONMENT_CLASS,
  ENVIRONMENT_CLASSES,
  ENVIRONMENT_STAND_INS,
  ENVIRONMENT_UPSTREAM_ONLY,
} from "../core/environments/classes.ts";

const pick = <T, U>(table: Readonly<Record<string, T>>, f: (entry: T) => U | undefined): Record<string, U> =>
  Object.fromEntries(
    Object.entries(table).flatMap(([name, entry]) => {
      const value = f(entry);
      return value === undefined ? [] : [[name, value]];
    }),
  );

const agent: SectionDef = {
  selector: "agent_class",
  defaultClass: "default",
  classes: { default: DEFAULT_AGENT_KEYS, interactive: INTERACTIVE_AGENT_KEYS },
  classDocs: {
    default: "upstream's `DefaultAgent` loop",
    interactive: "upstream's `InteractiveAgent`, the default at a terminal",
  },
};

const environment: SectionDef = {
  selector: "environment_class",
  defaultClass: DEFAULT_ENVIRONMENT_CLASS,
  classes: pick(ENVIRONMENT_CLASSES, (c) => c.keys),
  classDocs: pick(ENVIRONMENT_CLASSES, (c) => c.doc),
  classGroups: pick(ENVIRONMENT_CLASSES, (c) => c.group),
  standIns: { ...ENVIRONMENT_STAND_INS },
  upstreamOnly: ENVIRONMENT_UPSTREAM_ONLY,
};

const model: SectionDef = {
  selector: "model_class",
  defaultClass: DEFAULT_MODEL_CLASS,
  classes: pick(MODEL_CLASSES, (c): Keys => c.keys),
  classDocs: pick(MODEL_CLASSES, (c) => c.doc),
  classGroups: pick(
    MODEL_CLASSES,
    (c) => ({ http: "HTTP classes", scripted: "scripted", meta: "meta models" })[c.transport],
  ),
  upstreamOnly: {
    litellm_model_name_override: { type: "string", inert: true, doc: "upstream's portkey model" },
    cost_per_call: { type: "number", inert: true, doc: "upstream's deterministic model: use reply `cost`" },
    outputs: { type: "list", inert: true, doc: "upstream's deterministic model: use `replies`" },
  } as const satisfies Keys,
};

/** The `mechanisms` section (the rich harness's switches), loaded when a config names it. */
async function mechanisms(): Promise<SectionDef> {
  const { MECHANISM_KEYS } = await import("../features/mechanisms/keys.ts");
  return { defaultClass: "", classes: { "": MECHANISM_KEYS } };
}

/** A new schema (its lazy sections are loaded into it as configs name them). */
export function configSchema(): Schema {
  return {
    agent,
    environment,
    model,
    run: { defaultClass: "", classes: { "": { ...RUN_KEYS, ...CHECK_KEYS } } },
    mechanisms,
  };
}
