/**
 * Checking loaded config sources against the schema: wrong types and bad values are refused with
 * file, line and key; keys and sections claudius does not know are what upstream's config classes
 * ignore, so they are one warning each (file, line, the nearest known key), or errors with
 * `--strict-config` / `run.strict_config: true`.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { UpstreamRelease } from "./upstream_store.ts";
import { checkTemplate, TemplateError } from "../../lib/python/template/template.ts";
import { nearestKey } from "../../lib/spelling.ts";
import { invalidReason, type Keys, mergeTrees } from "./keys.ts";
import { loadedSections, loadSections, type Schema, sectionKeys } from "./schema.ts";
import { isSecretName, REDACTED, redactSecrets, redactText } from "../redact.ts";
import { isPlainObject } from "../../lib/json.ts";

/** A plain nested mapping, as YAML and JSON produce. */
export type ConfigTree = Record<string, unknown>;

/** One loaded `-c` spec, remembered so errors can point back at it. */
export interface ConfigSource {
  /** What the user wrote (`default`, `my.yaml`, `agent.step_limit=5`), or `the command line`. */
  spec: string;
  /** Resolved file path, for file specs. */
  path?: string;
  /** File text, for line lookups. */
  text?: string;
  /** The parsed mapping (a file's YAML, or the flags' settings). */
  data: ConfigTree;
  /** A file's sha256 (of its text as read). */
  sha256?: string;
  /** The file is one of upstream's, from the release upstream's names resolve to (see `upstream_store.ts`). */
  release?: UpstreamRelease;
}

/** The `spec` of the source made from command-line flags. */
export const COMMAND_LINE = "the command line";

/** The `run` key the checker reads (joined to the `run` section by the schema). */
export const CHECK_KEYS = {
  strict_config: {
    type: "bool",
    default: false,
    doc: "Refuse config keys and sections claudius does not know (`--strict-config`); by default each " +
      "is one warning naming its file, line and the nearest known key, and is ignored, as upstream's " +
      "config classes ignore it.",
  },
} as const satisfies Keys;

/** A key or section no class of its section reads. */
export interface UnknownKey {
  /** Dotted (`model.temprature`), or the section's name. */
  name: string;
  /** `file:line`, `-c 'spec'` or `the command line`. */
  at: string;
  /** The nearest known key or section, when one is close. */
  nearest?: string;
  /** What the key is, when it is a known shape (a trajectory's `model_type` line). */
  note?: string;
  /** A whole section no class reads, rather than one key. */
  section: boolean;
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
    for (const [i, line] of lines.entries()) {
      if (i < from) continue;
      const m = /^(\s*)(["']?)([^:"'#]+)\2\s*:(\s|$)/.exec(line);
      if (!m) continue;
      const [, indent = "", , name = ""] = m;
      const ind = indent.length;
      if (ind <= parentIndent) break;
      childIndent ??= ind;
      if (ind === childIndent && name.trim() === key) {
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

/** Where in a source a key is set, for messages: `file:line`, `-c 'spec'` or `the command line`. */
export function where(source: ConfigSource, path: string[]): string {
  if (!source.path) return source.spec === COMMAND_LINE ? COMMAND_LINE : `-c '${shownSpec(source.spec)}'`;
  const line = source.text ? findKeyLine(source.text, path) : undefined;
  return line ? `${source.path}:${line}` : source.path;
}

/** A `-c key=value` spec as messages show it: credentials (by key name or shape) redacted. */
function shownSpec(spec: string): string {
  const eq = spec.indexOf("=");
  if (eq < 0) return spec;
  const key = spec.slice(0, eq);
  if (isSecretName(key.split(".").at(-1) ?? "")) return `${key}=${REDACTED}`;
  const raw = spec.slice(eq + 1);
  try {
    const parsed = JSON.parse(raw);
    const shown = JSON.stringify(redactSecrets(parsed));
    if (shown !== JSON.stringify(parsed)) return `${key}=${shown}`;
  } catch { /* not JSON: a plain string */ }
  return `${key}=${redactText(raw)}`;
}

/** The refusal of an unknown key (with `--strict-config`, or when a caller checks without collecting). */
export function unknownKeyError(u: UnknownKey): ConfigError {
  const what = u.section ? "section" : "key";
  const hint = u.nearest ? ` (did you mean '${u.nearest}'?)` : "";
  return new ConfigError(`Unknown config ${what} '${u.name}' in ${u.at}${hint}`);
}

/** The warning line of an unknown key (the default). */
export function unknownKeyWarning(u: UnknownKey): string {
  const what = u.section ? "section" : "key";
  const near = u.note ? ` (${u.note})` : u.nearest ? `; nearest known ${what}: '${u.nearest}'` : "";
  return `warning: unknown config ${what} '${u.name}' in ${u.at}${near}: ignored, as upstream ignores ` +
    "it (--strict-config refuses it)";
}

type Found = (u: UnknownKey) => void;

/** `model_type` and its kin: the line a trajectory's `info.config` records its class in. */
function recordedClass(name: string, sections: Map<string, { selector?: string }>): string | undefined {
  const section = /^(.+)_type$/.exec(name)?.[1];
  const selector = section === undefined ? undefined : sections.get(section)?.selector;
  return selector ? `a trajectory's record of its class; ${section}.${selector} picks one` : undefined;
}

function checkKeys(
  source: ConfigSource,
  path: string[],
  body: ConfigTree,
  keys: Keys,
  selector: string | undefined,
  io: { warn: (line: string) => void; unknown: Found },
): void {
  for (const [key, value] of Object.entries(body)) {
    const at = () => where(source, [...path, key]); // for a message only: no scan of the file per key
    const name = [...path, key].join(".");
    if (key === selector) {
      if (typeof value === "string") continue;
      throw new ConfigError(`Config key '${name}' in ${at()} must be a string`);
    }
    const def = keys[key];
    if (!def) {
      const nearest = nearestKey(key, Object.keys(keys));
      io.unknown({ name, at: at(), section: false, ...(nearest ? { nearest } : {}) });
      continue;
    }
    const bad = invalidReason(def, value);
    if (bad) throw new ConfigError(`Config key '${name}' in ${at()} ${bad}`);
    if (def.template && typeof value === "string") {
      try {
        checkTemplate(value);
      } catch (e) {
        if (!(e instanceof TemplateError)) throw e;
        throw new ConfigError(`Config key '${name}' in ${at()}: ${e.message}`);
      }
    }
    if (def.type === "section" && def.keys && isPlainObject(value)) {
      checkKeys(source, [...path, key], value, def.keys, undefined, io);
    }
    if (def.inert && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0)) {
      io.warn(`warning: config key '${name}' (${at()}) is not acted on by claudius: ${def.doc}`);
    }
  }
}

/**
 * Check one source's keys and value types. Wrong types and bad values throw; upstream keys claudius
 * does not act on give one warning each; keys and sections no class reads go to `unknown` (without
 * it, the first one throws).
 * @throws {ConfigError} naming the file, line and key (and the nearest valid key)
 */
export async function checkSource(
  schema: Schema,
  source: ConfigSource,
  warn: (line: string) => void,
  unknown?: (u: UnknownKey) => void,
): Promise<void> {
  const found: Found = unknown ?? ((u) => {
    throw unknownKeyError(u);
  });
  await loadSections(schema, Object.keys(source.data).filter((s) => Object.hasOwn(schema, s)));
  const sections = new Map(loadedSections(schema));
  for (const [section, body] of Object.entries(source.data)) {
    const def = sections.get(section);
    if (!def) {
      const nearest = nearestKey(section, [...sections.keys()]);
      const note = recordedClass(section, sections);
      found({
        name: section,
        at: where(source, [section]),
        section: true,
        ...(nearest ? { nearest } : {}),
        ...(note ? { note } : {}),
      });
      continue;
    }
    if (body === null || body === undefined) continue;
    if (!isPlainObject(body)) {
      throw new ConfigError(`Config section '${section}' in ${where(source, [section])} must be a mapping`);
    }
    checkKeys(source, [section], body, sectionKeys(def), def.selector, { warn, unknown: found });
  }
}

/**
 * Check sources in order (see {@link checkSource}); then refuse the first unknown key when `strict`
 * or the merged `run.strict_config` is true, else warn once per key.
 * @throws {ConfigError} a bad value, or (strict) an unknown key or section
 */
export async function checkSources(
  schema: Schema,
  sources: readonly ConfigSource[],
  warn: (line: string) => void,
  strict = false,
): Promise<void> {
  const unknown = new Map<string, UnknownKey>();
  for (const source of sources) {
    await checkSource(schema, source, warn, (u) => {
      if (!unknown.has(u.name)) unknown.set(u.name, u);
    });
  }
  if (unknown.size === 0) return;
  const run = mergeTrees(...sources.map((s) => s.data)).run;
  const [first] = unknown.values();
  if (first && (strict || (isPlainObject(run) && run.strict_config === true))) throw unknownKeyError(first);
  for (const u of unknown.values()) warn(unknownKeyWarning(u));
}
