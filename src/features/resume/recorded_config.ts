/**
 * The config a trajectory records (`info.config`), as a config source claudius can run: each recorded
 * class type (claudius's own, or upstream's dotted names, v1 and v2) becomes a claudius class name,
 * an upstream v1 config has its agent keys moved to v2's model keys, and the other recorded sections
 * are kept. Shared by `claudius resume` and `claudius replay`.
 *
 * @module
 */
import type { ConfigTree } from "../../core/config/load.ts";
import type { Registry } from "../../core/episode.ts";
import { UPSTREAM_MODEL_CLASSES, upstreamModelClass } from "../../core/models/upstream_classes.ts";
import { upstreamEnvironmentClass } from "../../core/environments/classes.ts";
import { UsageError } from "../../lib/flags.ts";
import { v1Sections } from "./_upstream_v1.ts";
import { isPlainObject } from "../../lib/json.ts";

export { isV1 } from "./_upstream_v1.ts";

/**
 * Every agent class upstream has had, by its `info.config.agent_type`, and the claudius class that
 * runs in its place.
 */
const UPSTREAM_AGENT_CLASSES: Record<string, string> = {
  "minisweagent.agents.default.DefaultAgent": "default",
  "minisweagent.agents.interactive.InteractiveAgent": "interactive",
  // v1's terminal UI: the agent it ran (`_TextualAgent`) and its app.
  "minisweagent.agents.interactive_textual._TextualAgent": "interactive",
  "minisweagent.agents.interactive_textual.TextualAgent": "interactive",
  // The batch runners' DefaultAgent that reports progress (v1 and v2 homes of the class).
  "minisweagent.run.extra.swebench.ProgressTrackingAgent": "default",
  "minisweagent.run.benchmarks.swebench.ProgressTrackingAgent": "default",
  "minisweagent.run.benchmarks.utils.common.ProgressTrackingAgent": "default",
};

/** The first class of each recorded type in a registry (classes of one type behave alike). */
function byType(rows: Readonly<Record<string, { type: string }>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rows).reverse().flatMap(([name, c]) => c.type ? [[c.type, name]] : []),
  );
}

/** What a trajectory's `info` says about the config it ran with. */
export interface RecordedConfig {
  /** The config as a tree (`agent`, `model`, `environment` with their classes, other sections); none when `info` has no config. */
  tree?: ConfigTree;
  /**
   * Recorded types that name no claudius class (`model.model_class` left unset): a spec must name
   * one. `why`: an upstream class claudius has no counterpart of, and why.
   */
  unknownClasses: { key: string; type: string; why?: string }[];
  /** Lines to show before the run (how an upstream v1 config was carried over). */
  notes: string[];
}

/**
 * The config a trajectory's `info` records, with claudius's class names.
 * @param info the trajectory's `info`
 * @param v1 the file is upstream v1's (its replies were read as text; see `_upstream_v1.ts`)
 * @param path the file, named in errors
 * @param action what is done with it, for errors (`resume`, `replay`)
 * @param registry the classes whose recorded types are read back
 * @throws {UsageError} when `info.config` lacks one of the three sections
 */
export function recordedConfig(
  info: Record<string, unknown>,
  v1: boolean,
  path: string,
  action: string,
  registry: Registry,
): RecordedConfig {
  const recorded = isPlainObject(info.config) ? info.config : undefined;
  const unknownClasses: RecordedConfig["unknownClasses"] = [];
  const notes: string[] = [];
  if (!recorded) return { unknownClasses, notes };
  if (
    !isPlainObject(recorded.agent) || !isPlainObject(recorded.model) || !isPlainObject(recorded.environment)
  ) {
    throw new UsageError(`Cannot ${action} ${path}: its info.config lacks agent, model or environment`);
  }
  const withClass = (kind: "agent" | "model" | "environment") => {
    const type = String(recorded[`${kind}_type`] ?? "");
    const cls = recordedClass(registry, kind, type, v1);
    if (cls === undefined) {
      unknownClasses.push({ key: `${kind}.${kind}_class`, type, ...missing(kind, type, v1) });
    }
    return { ...recorded[kind] as ConfigTree, ...(cls ? { [`${kind}_class`]: cls } : {}) };
  };
  const { output_path: _, ...agent } = withClass("agent");
  const model = withClass("model");
  const v1Config = v1 ? v1Sections(agent, model) : undefined;
  if (v1Config) notes.push(v1Config.note);
  const tree: ConfigTree = {
    agent: v1Config?.agent ?? agent,
    model: v1Config?.model ?? model,
    environment: withClass("environment"),
  };
  // Other recorded sections (`run`, and the opt-in ones) as they are.
  for (const [k, v] of Object.entries(recorded)) if (isPlainObject(v) && !(k in tree)) tree[k] = v;
  return { tree, unknownClasses, notes };
}

const own = (table: Record<string, string>, key: string) =>
  Object.hasOwn(table, key) ? table[key] : undefined;

/** The claudius class of a recorded type: the registry's own types first, then upstream's. */
function recordedClass(
  registry: Registry,
  kind: "agent" | "model" | "environment",
  type: string,
  v1: boolean,
): string | undefined {
  if (kind === "agent") return own(byType(registry.agents), type) ?? own(UPSTREAM_AGENT_CLASSES, type);
  if (kind === "model") {
    return own(byType(registry.models), type) ?? upstreamModelClass(type, v1, registry.models);
  }
  return own(byType(registry.environments), type) ?? upstreamEnvironmentClass(type, registry.environments);
}

/** Why an upstream class has no claudius class to run in its place (nothing for a class upstream never had). */
function missing(kind: string, type: string, v1: boolean): { why?: string } {
  if (kind !== "model" || !Object.hasOwn(UPSTREAM_MODEL_CLASSES, type)) return {};
  return {
    why: v1
      ? "upstream v1 read its replies as text, and claudius has no text-mode counterpart of this class"
      : "claudius has no counterpart of this upstream class",
  };
}
