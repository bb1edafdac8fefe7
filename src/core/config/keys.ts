/**
 * How a config key is defined, once: its type, default, documentation and checks. Each component
 * declares its keys next to its code, as a table `as const satisfies Keys` (the literal types are what
 * {@link ConfigOf} reads, and the type stays explicit for the docs); validation of config files, defaults,
 * the typed config objects components receive, and the README's config reference are all derived
 * from those definitions.
 *
 * @example
 * ```ts
 * import { type ConfigOf, type Keys, resolveKeys } from "./keys.ts";

 * const KEYS = {
 *   timeout: { type: "number", default: 30, min: 0, doc: "Seconds one action may run." },
 *   image: { type: "string", doc: "Container image." },
 * } as const satisfies Keys;
 * type Config = ConfigOf<typeof KEYS>; // { timeout: number; image?: string }
 * const config: Config = resolveKeys(KEYS, { image: "python:3.12" }, "environment");
 * ```
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import type { Json } from "../types.ts";
import { redactSecrets } from "../redact.ts";
import { decimalNumber } from "../../lib/flags.ts";
import { stringifyPythonJson } from "../../lib/python/pyjson.ts";
import { isPlainObject } from "../../lib/json.ts";

/** The value types a key may hold. */
export type KeyType =
  | "string"
  | "int"
  | "number"
  | "bool"
  | "string[]"
  | "string-map"
  | "object"
  | "list"
  | "string|null"
  | "section";

/** The TypeScript type of a key's value. */
export type ValueOf<K extends KeyType> = K extends "string" ? string
  : K extends "int" | "number" ? number
  : K extends "bool" ? boolean
  : K extends "string[]" ? string[]
  : K extends "string-map" ? Record<string, string>
  : K extends "object" ? { [key: string]: Json }
  : K extends "list" ? Json[]
  : K extends "string|null" ? string | null
  : K extends "section" ? Record<string, unknown>
  : never;

/** One documented config key. */
export interface KeyDef<K extends KeyType = KeyType> {
  /** What values the key takes (checked when a config is loaded). */
  type: K;
  /** One or two sentences: what the key does (the README's "meaning" column). */
  doc: string;
  /** Default when no config sets it. Absent: the key is unset (optional) unless `required`. */
  default?: ValueOf<K>;
  /** How the README shows the default when it is not a literal (e.g. `from the model-name prefix`). */
  defaultDoc?: string;
  /** The run cannot start without it; a string says how to set it (shown in the error). */
  required?: true | string;
  /** Upstream key claudius accepts but does not act on: a warning when set. */
  inert?: boolean;
  /** Numbers: smallest allowed value. */
  min?: number;
  /** Strings: the allowed values. */
  values?: readonly string[];
  /** Lists: at least one element. */
  nonEmpty?: boolean;
  /** A Jinja2 template, syntax-checked when the config is loaded. */
  template?: boolean;
  /** Upstream's environment variable that stands in when no config sets the key. */
  envVar?: string;
  /** Further check of a well-typed value: the reason it is wrong, or undefined. */
  check?: (value: ValueOf<K>) => string | undefined;
  /** `section` keys: the nested keys. */
  keys?: Keys;
  /** A key two classes type differently (checked before the class is known): valid when one accepts it. */
  anyOf?: readonly AnyKeyDef[];
}

/** Any key definition (a union over the types, so `check` and `default` are typed by `type`). */
export type AnyKeyDef = { [K in KeyType]: KeyDef<K> }[KeyType];

/** A table of key definitions (one component's config). */
export type Keys = Record<string, AnyKeyDef>;

/** The keys of `T` a resolved config always has: defaulted, required, or sections. */
export type WithDefault<T extends Keys> = {
  // Sections are always filled (with their keys' defaults), so they are never optional.
  [P in keyof T]: T[P] extends { default: unknown } | { required: true | string } | { type: "section" } ? P
    : never;
}[keyof T];

/** The typed config object a component receives: defaulted keys present, the others optional. */
export type ConfigOf<T extends Keys> =
  & { -readonly [P in WithDefault<T>]: SectionOr<T[P]> }
  & { -readonly [P in Exclude<keyof T, WithDefault<T>>]?: SectionOr<T[P]> };

/** What a component's constructor accepts: any subset of its keys (defaults fill the rest). */
export type ConfigInput<T extends Keys> = { [P in keyof T]?: SectionOr<T[P]> } & Record<string, unknown>;

/** The value type of a key: a section's resolved config, or {@link ValueOf} its type. */
export type SectionOr<D extends AnyKeyDef> = D extends { type: "section"; keys: infer S extends Keys }
  ? ConfigOf<S>
  : ValueOf<D["type"]>;

/** Deepest nesting a config value may have: YAML files get the parser's bound (js-yaml's `maxDepth`). */
export const MAX_CONFIG_DEPTH = 100;

/**
 * Refuse a value that nests mappings or lists more than {@link MAX_CONFIG_DEPTH} levels deep (the
 * recursive merge and copies would overflow the stack without naming the key), checked without
 * recursion.
 * @param value e.g. the JSON of a `-c key=value`
 * @param what names it in the message, e.g. `-c model.model_kwargs=...`
 * @throws {ConfigError} `Cannot use <what>: its value nests deeper than 100 levels`
 */
export function checkDepth(value: unknown, what: string): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= MAX_CONFIG_DEPTH) {
      throw new ConfigError(`Cannot use ${what}: its value nests deeper than ${MAX_CONFIG_DEPTH} levels`);
    }
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
}

/** Merge mappings recursively, left to right; lists and scalars replace (upstream's merge rule). */
export function mergeTrees(...trees: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const tree of trees) {
    for (const [key, value] of Object.entries(tree)) {
      const prev = out[key];
      out[key] = isPlainObject(prev) && isPlainObject(value) ? mergeTrees(prev, value) : value;
    }
  }
  return out;
}

const TYPE_NAMES: Record<KeyType, string> = {
  "string": "a string",
  "int": "an integer",
  "number": "a finite number",
  "bool": "true or false",
  "string[]": "a list of strings",
  "string-map": "a mapping of names to strings",
  "object": "a mapping",
  "list": "a list",
  "string|null": "a string or null",
  "section": "a mapping",
};

function typeOk(type: KeyType, value: unknown): boolean {
  switch (type) {
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
      return isPlainObject(value) &&
        Object.values(value).every((v) => ["string", "number", "boolean"].includes(typeof v));
    case "object":
    case "section":
      return isPlainObject(value);
    case "list":
      return Array.isArray(value);
    case "string|null":
      return value === null || typeof value === "string";
  }
}

/**
 * Why `value` is not a valid value of `def`, or undefined when it is. `section` keys are checked
 * shallowly here (their own keys are checked one by one by the caller).
 */
export function invalidReason(def: KeyDef, value: unknown): string | undefined {
  const got = () => stringifyPythonJson(redactSecrets(value)) ?? String(value); // for a message only
  if (def.anyOf) {
    // The reason of the kind the value has (a list's, for a list), else every kind named.
    const typed = def.anyOf.filter((d) => typeOk(d.type, value));
    if (typed.length) {
      const reasons = typed.map((d) => invalidReason(d, value));
      return reasons.includes(undefined) ? undefined : reasons[0];
    }
    const kinds = [...new Set(def.anyOf.map((d) => TYPE_NAMES[d.type]))].join(" or ");
    return `must be ${kinds}, got ${got()}`;
  }
  if (!typeOk(def.type, value)) return `must be ${TYPE_NAMES[def.type]}, got ${got()}`;
  if (def.min !== undefined && typeof value === "number" && value < def.min) {
    return `must be ${def.type === "int" ? "an integer" : "a number"} >= ${def.min}, got ${got()}`;
  }
  if (def.values && typeof value === "string" && !def.values.includes(value)) {
    return `must be one of ${def.values.join(", ")}, got ${got()}`;
  }
  if (def.nonEmpty && Array.isArray(value) && value.length === 0) return "must not be empty";
  return (def.check as ((v: unknown) => string | undefined) | undefined)?.(value);
}

/** A key's value as the component receives it: environment maps stringified, lists copied. */
function normalise(def: KeyDef, value: unknown): unknown {
  if (def.type === "string-map" && isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
  }
  return structuredClone(value);
}

/** Options of {@link resolveKeys}. */
export interface ResolveOptions {
  /** The process environment, for keys with an `envVar`. Default: none. */
  hostEnv?: Readonly<Record<string, string | undefined>>;
  /** Leave required keys unset instead of failing (a batch fills them per instance). */
  partial?: boolean;
}

/**
 * Check `input` against `keys` and apply the defaults (and upstream's environment-variable stand-ins).
 * Keys not in the table are left out (config files are checked for unknown keys when loaded).
 *
 * @param keys the component's key table
 * @param input the (partial) section, e.g. as merged from config files
 * @param where the dotted prefix for messages, e.g. `environment`
 * @param options the process environment; partial resolution
 * @throws {ConfigError} naming `<where>.<key>` and what is wrong
 */
export function resolveKeys<const T extends Keys>(
  keys: T,
  input: Record<string, unknown>,
  where: string,
  options: ResolveOptions = {},
): ConfigOf<T> {
  const hostEnv = options.hostEnv ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    const def = keys[name];
    if (def === undefined || value === undefined) continue;
    const bad = invalidReason(def, value);
    if (bad) throw new ConfigError(`Config key '${where}.${name}' ${bad}`);
    out[name] = def.type === "section" && def.keys
      ? resolveKeys(def.keys, value as Record<string, unknown>, `${where}.${name}`, options)
      : normalise(def, value);
  }
  for (const [name, def] of Object.entries(keys)) {
    if (out[name] !== undefined || def.inert) continue;
    const fromEnv = def.envVar ? hostEnv[def.envVar] : undefined;
    if (fromEnv) {
      const value = def.type === "int" || def.type === "number" ? decimalNumber(fromEnv) ?? fromEnv : fromEnv;
      const bad = invalidReason(def, value);
      if (bad) throw new ConfigError(`Environment variable ${def.envVar} (for ${where}.${name}) ${bad}`);
      out[name] = value;
    } else if (def.default !== undefined) out[name] = structuredClone(def.default);
    else if (def.type === "section" && def.keys) {
      out[name] = resolveKeys(def.keys, {}, `${where}.${name}`, options);
    } else if (def.required && !options.partial) {
      const how = typeof def.required === "string" ? def.required : def.doc;
      throw new ConfigError(`Missing config key '${where}.${name}' (${how})`);
    }
  }
  return out as ConfigOf<T>;
}

/**
 * The section a component reads, checked once more for its required keys: the loader resolved it with
 * the chosen class's keys (types checked, defaults and environment stand-ins applied) but left required
 * keys unset, since a batch fills some per instance. Nothing is resolved again; a missing key fails as
 * resolving would.
 *
 * @param keys the component's keys (those of the class the section was resolved with, or fewer)
 * @param section the resolved section
 * @param where the dotted prefix for messages, e.g. `agent`
 * @throws {ConfigError} naming the first required key that is still missing
 */
export function checkRequired<const T extends Keys>(
  keys: T,
  section: Record<string, unknown>,
  where: string,
): asserts section is ConfigOf<T> & Record<string, unknown> {
  for (const [name, def] of Object.entries(keys)) {
    if (section[name] !== undefined || def.inert || !def.required) continue;
    const how = typeof def.required === "string" ? def.required : def.doc;
    throw new ConfigError(`Missing config key '${where}.${name}' (${how})`);
  }
}
