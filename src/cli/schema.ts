/**
 * The config schema: every section, its classes and the keys each class reads, assembled from the
 * registries' rows (`cli/classes.ts`) and the `run` keys, and handed to the loader. A section a
 * feature defines (`mechanisms`) is loaded only when some config names it, so a control run never
 * loads the feature.
 *
 * @module
 */
import type { Keys } from "../core/config/keys.ts";
import type { Schema, SectionDef } from "../core/config/schema.ts";
import { type Registry, RUN_KEYS } from "../core/episode.ts";
import { CHECK_KEYS } from "../core/config/check.ts";
import { DEFAULT_MODEL_CLASS } from "../core/models/classes.ts";
import { DEFAULT_ENVIRONMENT_CLASS, ENVIRONMENT_UPSTREAM_ONLY } from "../core/environments/classes.ts";
import { DEFAULT_AGENT_CLASS, REGISTRY } from "./classes.ts";

const pick = <T, U>(table: Readonly<Record<string, T>>, f: (entry: T) => U | undefined): Record<string, U> =>
  Object.fromEntries(
    Object.entries(table).flatMap(([name, entry]) => {
      const value = f(entry);
      return value === undefined ? [] : [[name, value]];
    }),
  );

/** Keys of upstream's models claudius accepts with a warning and does not act on. */
const MODEL_UPSTREAM_ONLY = {
  litellm_model_name_override: { type: "string", inert: true, doc: "upstream's portkey model" },
  cost_per_call: { type: "number", inert: true, doc: "upstream's deterministic model: use reply `cost`" },
  outputs: { type: "list", inert: true, doc: "upstream's deterministic model: use `replies`" },
} as const satisfies Keys;

/** The sections of the three kinds of classes, from their registries' rows. */
function classSections({ agents, environments, models }: Registry): Record<string, SectionDef> {
  return {
    agent: {
      selector: "agent_class",
      defaultClass: DEFAULT_AGENT_CLASS,
      classes: pick(agents, (c) => c.keys),
      classDocs: pick(agents, (c) => c.doc),
    },
    environment: {
      selector: "environment_class",
      defaultClass: DEFAULT_ENVIRONMENT_CLASS,
      classes: pick(environments, (c) => c.keys),
      classDocs: pick(environments, (c) => c.doc),
      classGroups: pick(environments, (c) => c.group),
      standIns: pick(environments, (c) => c.standIn),
      upstreamOnly: ENVIRONMENT_UPSTREAM_ONLY,
    },
    model: {
      selector: "model_class",
      defaultClass: DEFAULT_MODEL_CLASS,
      classes: pick(models, (c): Keys => c.keys),
      classDocs: pick(models, (c) => c.doc),
      classGroups: pick(models, (c) => c.group),
      upstreamOnly: MODEL_UPSTREAM_ONLY,
    },
  };
}

/** The `mechanisms` section (the rich harness's switches), loaded when a config names it. */
async function mechanisms(): Promise<SectionDef> {
  const { MECHANISM_KEYS } = await import("../features/mechanisms/keys.ts");
  return { defaultClass: "", classes: { "": MECHANISM_KEYS } };
}

/**
 * A new schema (its lazy sections are loaded into it as configs name them).
 * @param registry the classes (default: claudius's; a test adds its own rows)
 */
export function configSchema(registry: Registry = REGISTRY): Schema {
  return {
    ...classSections(registry),
    run: { defaultClass: "", classes: { "": { ...RUN_KEYS, ...CHECK_KEYS } } },
    mechanisms,
  };
}
