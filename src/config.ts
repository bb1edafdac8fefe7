/**
 * Loading, merging and validating configs: `-c SPEC` (a file, a built-in name, or
 * `dotted.key=value`) merged left to right; every key checked against {@link SCHEMA}, with
 * errors that name the file, line and key.
 *
 * @module
 */
import { load, YAMLException } from "js-yaml";
import { ConfigError } from "./errors.ts";
import { type KeySpec, nearestKey, SCHEMA, type Section } from "./config_schema.ts";
import { checkTemplate, TemplateError } from "./template.ts";

/** A plain nested mapping, as YAML and JSON produce. */
export type ConfigTree = Record<string, unknown>;

/** One loaded `-c` spec, remembered so errors can point back at it. */
export interface ConfigSource {
  /** What the user wrote (`default`, `my.yaml`, `agent.step_limit=5`). */
  spec: string;
  /** Resolved file path, for file specs. */
  path?: string;
  /** File text, for line lookups. */
  text?: string;
  data: ConfigTree;
}

/** The merged, validated config with defaults applied, one mapping per section. */
export interface ResolvedConfig {
  agent: ConfigTree;
  environment: ConfigTree;
  model: ConfigTree;
  run: ConfigTree;
}

/** How to find and read config files (injected so tests and the compiled binary agree). */
export interface ConfigIO {
  /** Directory of the built-in configs. */
  builtinDir: string;
  readTextFile(path: string): Promise<string>;
}

const SECTIONS = Object.keys(SCHEMA) as Section[];

/** True for a plain mapping (not an array, not null). */
export function isTree(value: unknown): value is ConfigTree {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** Merge mappings recursively, left to right; lists and scalars replace. */
export function mergeTrees(...trees: ConfigTree[]): ConfigTree {
  const out: ConfigTree = {};
  for (const tree of trees) {
    for (const [key, value] of Object.entries(tree)) {
      const prev = out[key];
      out[key] = isTree(prev) && isTree(value) ? mergeTrees(prev, value) : value;
    }
  }
  return out;
}

/**
 * Turn `a.b.c=value` into `{a: {b: {c: value}}}`; the value is JSON when it parses, else a string.
 * @throws {ConfigError} on an empty key segment
 */
export function parseKeyValue(spec: string): ConfigTree {
  const eq = spec.indexOf("=");
  const keys = spec.slice(0, eq).split(".");
  const raw = spec.slice(eq + 1);
  if (keys.some((k) => k === "")) throw new ConfigError(`Cannot parse -c '${spec}': empty key segment`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  for (const key of keys.reverse()) value = { [key]: value };
  return value as ConfigTree;
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Load one `-c` spec: `key=value`, a file path (`.yaml`/`.yml`, suffix optional), or the name of
 * a built-in config.
 * @throws {ConfigError} when the file is missing, unreadable, or not valid YAML (with line:column)
 */
export async function loadSpec(spec: string, io: ConfigIO): Promise<ConfigSource> {
  if (spec.includes("=")) return { spec, data: parseKeyValue(spec) };
  const names = /\.ya?ml$/.test(spec) ? [spec] : [spec, `${spec}.yaml`, `${spec}.yml`];
  const candidates = [...names, ...names.map((n) => `${io.builtinDir}/${n.replace(/^.*\//, "")}`)];
  let path: string | undefined;
  for (const c of candidates) {
    if (await exists(c)) {
      path = c;
      break;
    }
  }
  if (!path) {
    throw new ConfigError(
      `Cannot find config '${spec}': no such file or built-in config (tried ${candidates.join(", ")})`,
    );
  }
  const text = await io.readTextFile(path);
  let data: unknown;
  try {
    data = load(text, { filename: path });
  } catch (e) {
    if (e instanceof YAMLException) {
      const { line, column } = e.mark ?? { line: -1, column: -1 };
      throw new ConfigError(`Cannot parse config ${path}:${line + 1}:${column + 1}: ${e.reason}`, {
        cause: e,
      });
    }
    throw e;
  }
  if (data === undefined || data === null) data = {};
  if (!isTree(data)) throw new ConfigError(`Cannot load config ${path}: the top level must be a mapping`);
  return { spec, path, text, data };
}

/** Best-effort line of a dotted key path in YAML text (for error messages). */
export function findKeyLine(text: string, path: string[]): number | undefined {
  const lines = text.split("\n");
  let from = 0;
  let parentIndent = -1;
  let found: number | undefined;
  for (const key of path) {
    found = undefined;
    let childIndent: number | undefined;
    for (let i = from; i < lines.length; i++) {
      const m = /^(\s*)(["']?)([^:"'#]+)\2\s*:(\s|$)/.exec(lines[i]!);
      if (!m) continue;
      const ind = m[1]!.length;
      if (ind <= parentIndent) break;
      childIndent ??= ind;
      if (ind === childIndent && m[3]!.trim() === key) {
        found = i;
        from = i + 1;
        parentIndent = ind;
        break;
      }
    }
    if (found === undefined) return undefined;
  }
  return found === undefined ? undefined : found + 1;
}

function where(source: ConfigSource, path: string[]): string {
  if (!source.path) return `-c '${source.spec}'`;
  const line = source.text ? findKeyLine(source.text, path) : undefined;
  return line ? `${source.path}:${line}` : source.path;
}

function typeOk(spec: KeySpec, value: unknown): boolean {
  switch (spec.type) {
    case "string":
      return typeof value === "string";
    case "int":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "bool":
      return typeof value === "boolean";
    case "string[]":
      return Array.isArray(value) && value.every((v) => typeof v === "string");
    case "string-map":
      return isTree(value) &&
        Object.values(value).every((v) => ["string", "number", "boolean"].includes(typeof v));
    case "object":
      return isTree(value);
    case "list":
      return Array.isArray(value);
    case "string|null":
      return value === null || typeof value === "string";
  }
}

const TYPE_NAMES: Record<KeySpec["type"], string> = {
  "string": "a string",
  "int": "an integer",
  "number": "a number",
  "bool": "true or false",
  "string[]": "a list of strings",
  "string-map": "a mapping of names to strings",
  "object": "a mapping",
  "list": "a list",
  "string|null": "a string or null",
};

/**
 * Check one source's keys and value types. Unknown keys and wrong types throw; upstream keys that
 * claudius does not act on produce one warning each.
 * @throws {ConfigError} naming the file, line and key (and the nearest valid key)
 */
export function checkSource(source: ConfigSource, warn: (line: string) => void): void {
  for (const [section, body] of Object.entries(source.data)) {
    if (!SECTIONS.includes(section as Section)) {
      const hint = nearestKey(section, SECTIONS);
      throw new ConfigError(
        `Unknown config section '${section}' in ${where(source, [section])}` +
          (hint ? ` (did you mean '${hint}'?)` : ` (known: ${SECTIONS.join(", ")})`),
      );
    }
    if (body === null || body === undefined) continue;
    if (!isTree(body)) {
      throw new ConfigError(`Config section '${section}' in ${where(source, [section])} must be a mapping`);
    }
    const schema = SCHEMA[section as Section];
    for (const [key, value] of Object.entries(body)) {
      const spec = schema[key];
      const at = where(source, [section, key]);
      if (!spec) {
        const hint = nearestKey(key, Object.keys(schema));
        throw new ConfigError(
          `Unknown config key '${section}.${key}' in ${at}` + (hint ? ` (did you mean '${hint}'?)` : ""),
        );
      }
      if (!typeOk(spec, value)) {
        throw new ConfigError(
          `Config key '${section}.${key}' in ${at} must be ${TYPE_NAMES[spec.type]}, got ${
            JSON.stringify(value)
          }`,
        );
      }
      if (key.endsWith("_template") && typeof value === "string") {
        try {
          checkTemplate(value);
        } catch (e) {
          if (!(e instanceof TemplateError)) throw e;
          throw new ConfigError(`Config key '${section}.${key}' in ${at}: ${e.message}`);
        }
      }
      if (spec.inert && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0)) {
        warn(`warning: config key '${section}.${key}' (${at}) is not acted on by claudius: ${spec.doc}`);
      }
    }
  }
}

/**
 * Merge checked sources and apply schema defaults (environment variable maps are stringified).
 */
export function resolveConfig(sources: ConfigSource[]): ResolvedConfig {
  const merged = mergeTrees(...sources.map((s) => s.data));
  const out = {} as ResolvedConfig;
  for (const section of SECTIONS) {
    const body = isTree(merged[section]) ? merged[section] as ConfigTree : {};
    const resolved: ConfigTree = {};
    for (const [key, spec] of Object.entries(SCHEMA[section])) {
      if (spec.default !== undefined && !spec.inert) resolved[key] = structuredClone(spec.default);
    }
    for (const [key, value] of Object.entries(body)) {
      resolved[key] = SCHEMA[section][key]?.type === "string-map" && isTree(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]))
        : value;
    }
    out[section] = resolved;
  }
  return out;
}

/**
 * Load, check and merge specs in order.
 * @throws {ConfigError} for the first bad spec
 */
export async function loadConfig(
  specs: string[],
  io: ConfigIO,
  warn: (line: string) => void,
): Promise<{ config: ResolvedConfig; sources: ConfigSource[] }> {
  const sources: ConfigSource[] = [];
  for (const spec of specs) {
    const source = await loadSpec(spec, io);
    checkSource(source, warn);
    sources.push(source);
  }
  return { config: resolveConfig(sources), sources };
}
