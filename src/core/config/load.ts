/**
 * Loading, merging and validating configs: `-c SPEC` (a file, a built-in name, or
 * `dotted.key=value`) merged left to right; every key checked against {@link SCHEMA}, with
 * errors that name the file, line and key.
 *
 * @module
 */
import { errorMessage } from "../../lib/errors.ts";
import type { UpstreamRelease } from "./upstream_store.ts";
import { sha256Hex } from "../../lib/sha256.ts";
import { ConfigError } from "../errors.ts";
import { checkDepth, mergeTrees, resolveKeys } from "./keys.ts";
import { loadedSections, type Schema } from "./schema.ts";
import { checkSources, COMMAND_LINE, type ConfigSource, type ConfigTree, where } from "./check.ts";
import { parsedBuiltin } from "./_builtin_parsed.ts";
import { isPlainObject } from "../../lib/json.ts";

export { mergeTrees };
export {
  CHECK_KEYS,
  checkSource,
  checkSources,
  COMMAND_LINE,
  type ConfigSource,
  type ConfigTree,
  findKeyLine,
  type UnknownKey,
} from "./check.ts";

/**
 * The merged, validated config with the chosen classes' defaults applied, one mapping per section,
 * each resolved once with its class's keys. Required keys may still be missing (a batch fills some per
 * instance): the components check them when they are built (`checkRequired`), and read the section as
 * it is. Sections a feature defines (`mechanisms`) are present when a config names them.
 */
export interface ResolvedConfig {
  /** The `agent:` section and the class it names. */
  agent: ConfigTree & { agent_class: string };
  /** The `environment:` section and the class it names. */
  environment: ConfigTree & { environment_class: string };
  /** The `model:` section and the class it names. */
  model: ConfigTree & { model_class: string };
  /** The `run:` section (task, output, limits of the run itself). */
  run: ConfigTree;
  /** Any other section a config names (a feature's, such as `mechanisms`). */
  [section: string]: ConfigTree | undefined;
}

/** How to find, read and check config files (injected so tests and the compiled binary agree). */
export interface ConfigIO {
  /** The sections and their keys (assembled by the command layer). */
  schema: Schema;
  /** Directory of the built-in configs. */
  builtinDir: string;
  /** Upstream's `$MSWEA_CONFIG_DIR`: searched after the current directory. */
  configDir?: string;
  /**
   * The release of upstream's config files that upstream's names resolve to (imported, or found in a
   * Python package), asked for only when such a name is about to resolve to claudius's own words.
   */
  upstream?: () => Promise<UpstreamRelease | undefined>;
  /** Reads the text of a config file found by its spec (a failure becomes a `ConfigError`). */
  readTextFile(path: string): Promise<string>;
  /**
   * The YAML reader (default: `lib/python/yaml.ts`, loaded on first use): a file whose text is a built-in
   * config as shipped is not parsed (its parse is known, see `_builtin_parsed.ts`).
   */
  yaml?(): Promise<YamlModule>;
}

/** What reads a config file's YAML. */
export type YamlModule = typeof import("../../lib/python/yaml.ts");

/**
 * Upstream's built-in configs (name -> path in mini-swe-agent). claudius has a built-in of each name,
 * with upstream's keys and values and prompts in claudius's words; once upstream's own files are
 * imported or found (`upstream_store.ts`), the name runs those ({@link loadSpec}).
 */
export const UPSTREAM_CONFIGS: Readonly<Record<string, string>> = {
  default: "src/minisweagent/config/default.yaml",
  mini: "src/minisweagent/config/mini.yaml",
  mini_textbased: "src/minisweagent/config/mini_textbased.yaml",
  programbench: "src/minisweagent/config/benchmarks/programbench.yaml",
  swebench: "src/minisweagent/config/benchmarks/swebench.yaml",
  swebench_backticks: "src/minisweagent/config/benchmarks/swebench_backticks.yaml",
  swebench_xml: "src/minisweagent/config/benchmarks/swebench_xml.yaml",
  swebench_modal: "src/minisweagent/config/benchmarks/swebench_modal.yaml",
};

/** Where upstream keeps its config files (in a checkout; `minisweagent/config/` in a package). */
const UPSTREAM_CONFIG_DIR = "src/minisweagent/config/";

/** The prefix that names claudius's own built-in whatever upstream's files are there (`-c claudius/mini`). */
export const OWN_PREFIX = "claudius/";

/**
 * The file under upstream's `config/` that a spec names by upstream's name (`mini`, `swebench`,
 * `benchmarks/swebench.yaml`, `upstream/default` or the built-in `upstream/default.yaml`'s path, which
 * upstream's faces give for `-c default`), or undefined. claudius's own `default` is no upstream name.
 */
export function upstreamFile(spec: string, builtinDir: string): string | undefined {
  const bare = spec.replace(/\.ya?ml$/, "");
  if (bare === "upstream/default" || bare === `${builtinDir.replace(/\/+$/, "")}/upstream/default`) {
    return "default.yaml";
  }
  const name = bare.replace(/^benchmarks\//, "");
  if (name === "default" || name.includes("/") || !Object.hasOwn(UPSTREAM_CONFIGS, name)) return undefined;
  const file = UPSTREAM_CONFIGS[name]!.slice(UPSTREAM_CONFIG_DIR.length);
  return bare.startsWith("benchmarks/") && !file.startsWith("benchmarks/") ? undefined : file;
}

/** The one line a run of an upstream name says when claudius's own words stand in for upstream's file. */
export function ownWordsNote(name: string): string {
  return `note: ${name}'s prompts are claudius's own words, not mini-swe-agent's (-c ${OWN_PREFIX}${name} ` +
    "names them so); 'claudius config import-upstream' (or 'mini-extra config import-upstream') brings " +
    "upstream's";
}

/**
 * Built-in configs that add to another one (`-c daemon` keeps the built-in `default` first;
 * `-c swebench_modal` keeps the `swebench` of `--mode swebench`, where upstream, given it alone, has no prompts).
 */
export const BUILTIN_OVERLAYS: ReadonlySet<string> = new Set(["daemon", "dangerous", "swebench_modal"]);

/**
 * True when `-c SPEC` names a whole config (a file or a full built-in), which replaces the built-in
 * `default`; `key=value` specs and overlays (`daemon`, `dangerous`) add to it.
 */
export function namesWholeConfig(spec: string): boolean {
  const name = (spec.startsWith(OWN_PREFIX) ? spec.slice(OWN_PREFIX.length) : spec).replace(/\.ya?ml$/, "");
  return !spec.includes("=") && !BUILTIN_OVERLAYS.has(name);
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
  checkDepth(value, `-c ${spec.slice(0, eq)}=...`);
  const tree = keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
  return isPlainObject(tree) ? tree : {};
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Where a config name is looked for, in upstream's order: as given (the current directory),
 * `$MSWEA_CONFIG_DIR`, the built-in configs, then their `extra/` and `benchmarks/` folders. A name
 * without `.yaml`/`.yml` is tried with each suffix there (as upstream adds `.yaml`), and only after
 * all of them as given (so a program named `mini` in the current directory never shadows `-c mini`).
 * `here: false` leaves out the current directory (a name claudius chose itself, not the user: a
 * cloned repository's `./mini.yaml` is not the `mini` face's default).
 */
export function configCandidates(
  spec: string,
  io: Pick<ConfigIO, "builtinDir" | "configDir">,
  here = true,
): string[] {
  const suffixed = /\.ya?ml$/.test(spec);
  const names = suffixed ? [spec] : [`${spec}.yaml`, `${spec}.yml`];
  const bare = suffixed ? [] : [spec];
  if (spec.startsWith("/")) return [...names, ...bare];
  const dirs = [
    ...(io.configDir ? [io.configDir] : []),
    io.builtinDir,
    `${io.builtinDir}/extra`,
    `${io.builtinDir}/benchmarks`,
  ];
  const inDirs = dirs.flatMap((dir) => names.map((n) => `${dir.replace(/\/+$/, "")}/${n}`));
  return here ? [...names, ...inDirs, ...bare] : inDirs;
}

/**
 * Check a stored file's text against the digest it was stored with, as it is read for a run.
 * @throws {ConfigError} when it changed since (naming both digests)
 */
async function checkStored(release: UpstreamRelease, file: string, text: string): Promise<string> {
  const sha256 = await sha256Hex(text);
  const want = release.files[file]?.sha256;
  if (want !== undefined && sha256 !== want) {
    const again = release.origin === "imported"
      ? `claudius config import-upstream --version ${release.version} stores it again`
      : "reinstall the package, or import the files you mean with --allow-modified";
    throw new ConfigError(
      `Cannot use ${release.dir}/${file}: it changed since it was checked (sha256 ${sha256}, ` +
        `checked as ${want}); ${again}`,
    );
  }
  return sha256;
}

/** The first candidate that is a file. */
async function firstFile(candidates: string[]): Promise<string | undefined> {
  for (const c of candidates) if (await exists(c)) return c;
  return undefined;
}

/**
 * Load one `-c` spec: `key=value`, or a file found by {@link configCandidates}. An upstream name
 * ({@link upstreamFile}) resolves to upstream's own file when a release of them is there (checked
 * against its digest), else to claudius's built-in of that name, which `note` says once
 * ({@link ownWordsNote}); `claudius/NAME` names claudius's built-in NAME, saying nothing. When a name
 * of a built-in resolves to a file of the current directory instead (as upstream's does), `note` says
 * that. A spec claudius chose itself (`implicit`: the face's default) is never taken from the current
 * directory.
 * @throws {ConfigError} when the file is missing, unreadable, or not valid YAML (with line:column)
 */
export async function loadSpec(
  spec: string,
  io: ConfigIO,
  note?: (line: string) => void,
  implicit = false,
): Promise<ConfigSource> {
  if (spec.includes("=")) return { spec, data: parseKeyValue(spec) };
  const own = spec.startsWith(OWN_PREFIX) ? spec.slice(OWN_PREFIX.length) : undefined;
  const candidates = own === undefined
    ? configCandidates(spec, io, !implicit)
    : configCandidates(own, { builtinDir: io.builtinDir }, false).filter((c) =>
      c.startsWith(`${io.builtinDir}/`)
    );
  let path = await firstFile(candidates);
  const file = own === undefined ? upstreamFile(spec, io.builtinDir) : undefined;
  let release: UpstreamRelease | undefined;
  if (file !== undefined && (path === undefined || path.startsWith(`${io.builtinDir}/`))) {
    const found = await io.upstream?.();
    if (found?.files[file]) {
      release = found;
      path = `${found.dir}/${file}`;
    } else if (path) {
      note?.(ownWordsNote(file === "default.yaml" ? "upstream/default" : file.replace(/^.*\/|\.yaml$/g, "")));
    }
  }
  if (!path) {
    throw new ConfigError(
      `Cannot find config '${spec}': no such file or built-in config (tried ${candidates.join(", ")})`,
    );
  }
  const builtin = configCandidates(spec, { builtinDir: io.builtinDir }, false);
  if (
    note && !spec.includes("/") && !path.includes("/") &&
    (await Promise.all(builtin.map(exists))).some(Boolean)
  ) {
    note(
      `note: -c ${spec} is ${path} of this directory, not the built-in ${spec}: a file there chooses the model, ` +
        "its endpoint and commands run before the task (run.env_startup_command, on this host for local); " +
        `give ./${path} to mean it, or run elsewhere for the built-in`,
    );
  }
  const text = await io.readTextFile(path).catch((e) => {
    throw new ConfigError(`Cannot read config ${path}: ${errorMessage(e)}`, { cause: e });
  });
  let data = parsedBuiltin(text);
  if (data === undefined) {
    const { loadYaml, YAMLException } = await (io.yaml?.() ?? import("../../lib/python/yaml.ts"));
    try {
      data = loadYaml(text, path);
    } catch (e) {
      if (e instanceof YAMLException) {
        const { line, column } = e.mark ?? { line: -1, column: -1 };
        throw new ConfigError(`Cannot parse config ${path}:${line + 1}:${column + 1}: ${e.reason}`, {
          cause: e,
        });
      }
      throw e;
    }
  }
  if (data === undefined || data === null) data = {};
  if (!isPlainObject(data)) {
    throw new ConfigError(`Cannot load config ${path}: the top level must be a mapping`);
  }
  const sha256 = release ? await checkStored(release, file!, text) : await sha256Hex(text);
  return { spec, path, text, data, sha256, ...(release ? { release } : {}) };
}

/** The last source that sets `section.key`, for messages. */
function setter(sources: ConfigSource[], section: string, key: string): ConfigSource | undefined {
  return sources.findLast((s) => {
    const body = s.data[section];
    return isPlainObject(body) && body[key] !== undefined;
  });
}

/**
 * Merge checked sources, pick each section's class and apply that class's defaults (and upstream's
 * environment-variable stand-ins). A key that only another class reads gets a warning.
 * @throws {ConfigError} for an unknown class or a bad value from an environment variable
 */
export function resolveConfig(
  sources: ConfigSource[],
  options: { schema: Schema; hostEnv?: Record<string, string>; warn?: (line: string) => void },
): ResolvedConfig {
  const merged = mergeTrees(...sources.map((s) => s.data));
  const out: Record<string, ConfigTree> = {};
  const classes: Record<string, string> = {};
  for (const [section, def] of loadedSections(options.schema)) {
    const given = merged[section];
    const body = isPlainObject(given) ? given : {};
    const chosen = def.selector ? body[def.selector] : undefined;
    const cls = typeof chosen === "string" ? chosen : def.defaultClass;
    const keys = def.classes[cls];
    if (!keys) {
      const from = setter(sources, section, def.selector!);
      throw new ConfigError(
        `Unknown ${section}.${def.selector} '${cls}'${
          from ? ` in ${where(from, [section, def.selector!])}` : ""
        }` +
          ` (known: ${Object.keys(def.classes).join(", ")})`,
      );
    }
    for (const key of Object.keys(body)) {
      if (key === def.selector || key in keys || body[key] === undefined || def.upstreamOnly?.[key]) continue;
      const from = setter(sources, section, key);
      options.warn?.(
        `warning: config key '${section}.${key}'${
          from ? ` (${where(from, [section, key])})` : ""
        } is not used ` +
          `by ${section}.${def.selector} '${cls}'`,
      );
    }
    let resolved: ConfigTree = resolveKeys(keys, body, section, {
      partial: true,
      ...(options.hostEnv ? { hostEnv: options.hostEnv } : {}),
    });
    const standIn = def.standIns?.[cls];
    if (standIn) {
      options.warn?.(standIn.note);
      resolved = standIn.translate(resolved, body);
    }
    if (def.selector) classes[section] = standIn?.runsAs ?? cls;
    out[section] = def.selector ? { [def.selector]: standIn?.runsAs ?? cls, ...resolved } : resolved;
  }
  const chosen = (section: string) => {
    const cls = classes[section];
    if (cls === undefined) throw new TypeError(`Cannot resolve config: the schema has no ${section} classes`);
    return cls;
  };
  return {
    ...out,
    agent: { ...out.agent, agent_class: chosen("agent") },
    environment: { ...out.environment, environment_class: chosen("environment") },
    model: { ...out.model, model_class: chosen("model") },
    run: out.run ?? {},
  };
}

/**
 * Load, check and merge specs in order; `overrides` (the command-line flags) come last. The first
 * `implicit` specs are claudius's own choice (e.g. the built-in `default`, the face's default), not the
 * user's: they are never taken from the current directory. Keys no class reads are one warning each,
 * or refused when `strict` or the merged `run.strict_config` says so (see {@link checkSources}).
 * @throws {ConfigError} for the first bad spec
 */
export async function loadConfig(
  specs: string[],
  io: ConfigIO,
  warn: (line: string) => void,
  options: {
    hostEnv?: Record<string, string>;
    overrides?: ConfigTree;
    implicit?: number;
    strict?: boolean;
  } = {},
): Promise<{ config: ResolvedConfig; sources: ConfigSource[] }> {
  const sources: ConfigSource[] = [];
  for (const [k, spec] of specs.entries()) {
    sources.push(await loadSpec(spec, io, warn, k < (options.implicit ?? 0)));
  }
  if (options.overrides) sources.push({ spec: COMMAND_LINE, data: options.overrides });
  await checkSources(io.schema, sources, warn, options.strict);
  const hostEnv = options.hostEnv ? { hostEnv: options.hostEnv } : {};
  return { config: resolveConfig(sources, { schema: io.schema, warn, ...hostEnv }), sources };
}
