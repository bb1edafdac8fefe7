/**
 * The config of a resumed run: the predecessor's recorded config, then the usual `-c` specs and
 * flags on top (raised limits, another model, ...). Values the predecessor's trajectory holds
 * redacted (`[REDACTED]`, see `src/core/redact.ts`) must be given again: by a spec or flag, or by the
 * key's environment variable; otherwise the resume is refused naming each key. So must the endpoint
 * the trajectory names (`model.base_url`, `model.model_kwargs.api_base`, ...), the variable it reads
 * your key from (`model.api_key_env`) and a container program of its own (`environment.executable`):
 * a trajectory may come from someone else, and your key would go where it says.
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
  refuseRecordedChoices(recorded.spec, base.data, sources.slice(1), io);
  const config = resolveConfig(sources, { schema: io.schema, hostEnv: io.hostEnv, warn: io.warn });
  return { config, sources };
}

/** The keys that say where model requests, and the key with them, go. */
export const ENDPOINT_KEYS: readonly (readonly string[])[] = [
  ["model", "base_url"],
  ["model", "model_kwargs", "api_base"],
  ["model", "model_kwargs", "base_url"],
  ["model", "model_kwargs", "aws_bedrock_runtime_endpoint"],
];

/**
 * The keys that say which of your variables holds the key a request carries: `model.api_key_env`, and
 * `model.model_kwargs.api_key` in its `os.environ/NAME` form (a key itself is saved redacted). A file
 * naming one sends that key to whatever endpoint the model's prefix has (`hosted_vllm/`: a port of
 * this machine, which any user of a shared one may listen on).
 */
export const KEY_VARIABLE_KEYS: readonly (readonly string[])[] = [
  ["model", "api_key_env"],
  ["model", "model_kwargs", "api_key"],
];

/** The variable `value`, set at a {@link KEY_VARIABLE_KEYS} key, reads the key from (none: it names none). */
export function keyVariable(path: readonly string[], value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  if (path.at(-1) === "api_key_env") return value;
  return /^os\.environ\/(.+)$/.exec(value)?.[1];
}

/**
 * Refuse what only the recorded config chose and a spec or flag of this resume does not name again
 * (the same value to go on with it, or another): an endpoint ({@link ENDPOINT_KEYS}), the variable
 * your key is read from ({@link KEY_VARIABLE_KEYS}), and a program run on this host other than the
 * environment class's own (`environment.executable`).
 * @throws {ConfigError} naming the key, its value and how to give it
 */
function refuseRecordedChoices(
  spec: string,
  recorded: ConfigTree,
  given: ConfigSource[],
  io: { schema: Schema; hostEnv: Record<string, string> },
): void {
  const at = (tree: unknown, path: readonly string[]) =>
    path.reduce<unknown>((t, k) => (isPlainObject(t) ? t[k] : undefined), tree);
  const named = (path: readonly string[]) => given.some((s) => at(s.data, path) !== undefined);
  const cannot = (what: string, key: string, value: string, flag = "", goOn = "with it") =>
    new ConfigError(
      `Cannot resume ${spec}: its trajectory ${what}; give it again to go on ${goOn} (${flag}-c ${key}=${value}) ` +
        "or name another",
    );
  for (const path of ENDPOINT_KEYS) {
    const url = at(recorded, path);
    if (typeof url !== "string" || url === "" || named(path)) continue;
    const key = path.join(".");
    const flag = key === "model.base_url" ? `--base-url ${url} or ` : "";
    throw cannot(`sends the model's requests, with your key, to ${key} '${url}'`, key, url, flag, "there");
  }
  for (const path of KEY_VARIABLE_KEYS) {
    const value = at(recorded, path);
    const variable = keyVariable(path, value);
    if (variable === undefined || named(path)) continue;
    throw cannot(
      `sends your ${variable} as the model's key (${path.join(".")})`,
      path.join("."),
      String(value),
    );
  }
  const executable = ["environment", "executable"];
  const program = at(recorded, executable);
  const def = keyDef(io.schema, executable, recorded);
  // The class's own program, or the one your environment names (MSWEA_DOCKER_EXECUTABLE, ...).
  const yours = [def?.default, def?.envVar === undefined ? undefined : io.hostEnv[def.envVar]];
  if (typeof program === "string" && !yours.includes(program) && !named(executable)) {
    throw cannot(`runs environment.executable '${program}' on this host`, "environment.executable", program);
  }
}
