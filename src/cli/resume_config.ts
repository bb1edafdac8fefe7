/**
 * The config of a resumed run: the predecessor's recorded config, then the usual `-c` specs and
 * flags on top (raised limits, another model, ...). Values the predecessor's trajectory holds
 * redacted (`[REDACTED]`, see `src/core/redact.ts`) must be given again: by a spec or flag, or by the
 * key's environment variable; otherwise the resume is refused naming each key. So must the endpoint
 * the trajectory names (`model.base_url`, `model.model_kwargs.api_base`): a trajectory may come from
 * someone else, and your key would go where it says.
 *
 * @module
 */
import {
  checkSources,
  COMMAND_LINE,
  type ConfigIO,
  type ConfigSource,
  type ConfigTree,
  loadSpec,
  mergeTrees,
  resolveConfig,
  type ResolvedConfig,
} from "../core/config/load.ts";
import type { AnyKeyDef } from "../core/config/keys.ts";
import type { Schema } from "../core/config/schema.ts";
import { ConfigError } from "../core/errors.ts";

import { REDACTED } from "../core/redact.ts";

import type { Predecessor } from "../features/resume/predecessor.ts";
import { isPlainObject } from "../lib/json.ts";

/** Paths (`model.model_kwargs.extra_headers.Authorization`) of the strings in `tree` holding {@link REDACTED}. */
export function redactedPaths(tree: unknown, at: string[] = []): string[][] {
  if (typeof tree === "string") return tree.includes(REDACTED) ? [at] : [];
  if (Array.isArray(tree)) return tree.flatMap((v, i) => redactedPaths(v, [...at, String(i)]));
  if (isPlainObject(tree)) return Object.entries(tree).flatMap(([k, v]) => redactedPaths(v, [...at, k]));
  return [];
}

/** The definition of the key at `path` (`section.key[.nested...]`) for the class `tree` selects. */
function keyDef(schema: Schema, path: string[], tree: ConfigTree): AnyKeyDef | undefined {
  const [section, ...rest] = path;
  const def = section === undefined ? undefined : schema[section];
  if (!def || typeof def === "function") return undefined;
  const body = isPlainObject(tree[section!]) ? tree[section!] as ConfigTree : {};
  const cls = def.selector && typeof body[def.selector] === "string"
    ? String(body[def.selector])
    : def.defaultClass;
  let keys: Record<string, AnyKeyDef> | undefined = def.classes[cls];
  let key: AnyKeyDef | undefined;
  for (const name of rest) {
    key = keys?.[name];
    keys = key?.type === "section" ? key.keys : undefined;
  }
  return key;
}

function remove(tree: ConfigTree, path: string[]): void {
  const parent = path.slice(0, -1).reduce<unknown>((t, k) => (isPlainObject(t) ? t[k] : undefined), tree);
  if (isPlainObject(parent)) delete parent[path.at(-1)!];
}

/**
 * Merge the predecessor's config with `specs` (as `-c`) and `overrides` (the flags), and resolve it
 * (the sources are returned too, for messages naming where a key was set).
 * @param predecessor the predecessor's config source and unknown classes (see `readPredecessor`)
 * @throws {ConfigError} a bad spec, or a redacted value given neither again nor by its variable
 */
export async function resumeConfig(
  predecessor: { source: ConfigSource; unknownClasses: Predecessor["unknownClasses"] },
  specs: string[],
  overrides: ConfigTree,
  io: ConfigIO & { hostEnv: Record<string, string>; warn: (line: string) => void },
): Promise<{ config: ResolvedConfig; sources: ConfigSource[] }> {
  const recorded = predecessor.source;
  const base = { ...recorded, data: structuredClone(recorded.data) };
  const sources: ConfigSource[] = [base];
  for (const spec of specs) sources.push(await loadSpec(spec, io, io.warn));
  sources.push({ spec: COMMAND_LINE, data: overrides });
  await checkSources(io.schema, sources, io.warn);

  const merged = mergeTrees(...sources.map((s) => s.data));
  // Every class to name at once (an upstream trajectory lacks all three), not one per attempt.
  const unnamed = predecessor.unknownClasses.filter(({ key }) => {
    const [section, selector] = key.split(".") as [string, string];
    return !isPlainObject(merged[section]) || merged[section][selector] === undefined;
  });
  if (unnamed.length > 0) {
    const types = unnamed.map(({ key, type, why }) =>
      `${key.split(".")[0]}_type '${type}'${why ? ` (${why})` : ""}`
    );
    const one = unnamed.length === 1;
    throw new ConfigError(
      `Cannot resume ${recorded.spec}: its ${types.join(" and ")} ${
        one ? "is no claudius class" : "are no claudius classes"
      }: ` +
        `name ${one ? "one" : "them"} with ${unnamed.map(({ key }) => `-c ${key}=...`).join(" ")}`,
    );
  }
  const missing: string[] = [];
  for (const path of redactedPaths(merged)) {
    const envVar = keyDef(io.schema, path, merged)?.envVar;
    const givenBy = envVar !== undefined && io.hostEnv[envVar] !== undefined;
    // Still the recorded value: its variable stands in when set (resolving reads it then).
    if (givenBy && redactedPaths(base.data).some((p) => p.join(".") === path.join("."))) {
      remove(base.data, path);
    } else missing.push(path.join(".") + (envVar ? ` (or set ${envVar})` : ""));
  }
  if (missing.length) {
    throw new ConfigError(
      `Cannot resume ${recorded.spec}: its trajectory holds ${missing.length === 1 ? "a value" : "values"} ` +
        `saved redacted (${REDACTED}): give ${missing.length === 1 ? "it" : "them"} again with ` +
        `-c KEY=VALUE or a config file: ${missing.join(", ")}`,
    );
  }
  refuseRecordedEndpoint(recorded.spec, base.data, sources.slice(1));
  const config = resolveConfig(sources, { schema: io.schema, hostEnv: io.hostEnv, warn: io.warn });
  return { config, sources };
}

/** The keys that say where model requests, and the key with them, go. */
export const ENDPOINT_KEYS: readonly (readonly string[])[] = [["model", "base_url"], [
  "model",
  "model_kwargs",
  "api_base",
], [
  "model",
  "model_kwargs",
  "base_url",
]];

/**
 * Refuse an endpoint the recorded config names unless a spec or flag of this resume names one for the
 * same key (the same URL to go on there, or another).
 * @throws {ConfigError} naming the key, the URL and how to give it
 */
function refuseRecordedEndpoint(spec: string, recorded: ConfigTree, given: ConfigSource[]): void {
  const at = (tree: unknown, path: readonly string[]) =>
    path.reduce<unknown>((t, k) => (isPlainObject(t) ? t[k] : undefined), tree);
  for (const path of ENDPOINT_KEYS) {
    const url = at(recorded, path);
    if (typeof url !== "string" || url === "" || given.some((s) => at(s.data, path) !== undefined)) continue;
    const key = path.join(".");
    const flag = key === "model.base_url" ? `--base-url ${url} or ` : "";
    throw new ConfigError(
      `Cannot resume ${spec}: its trajectory sends the model's requests, with your key, to ${key} '${url}'; ` +
        `give it again to go on there (${flag}-c ${key}=${url}) or name another`,
    );
  }
}
