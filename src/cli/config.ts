/**
 * `claudius config list` (the built-in configs) and `claudius config check [flags]` (the config a
 * run with these flags would use, each value with where it came from; nothing is run or paid for).
 *
 * @module
 */
import { asSubcommand, type CommandSpec, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import { COMMAND_LINE, type ConfigSource, findKeyLine, OWN_PREFIX } from "../core/config/load.ts";
import type { Host } from "../core/host.ts";
import { redactSecrets, redactText, secretValues } from "../core/redact.ts";
import { EPISODE_FLAGS, GO_ON_FLAGS, runFlags } from "./run_flags.ts";
import { resolveFlagsConfig, upstreamLookup } from "./_shared.ts";
import { checkEndpoint, describeEndpoint } from "./preflight.ts";
import { isPlainObject } from "../lib/json.ts";
import { ENDPOINT_KEYS, KEY_VARIABLE_KEYS, keyVariable } from "./resume_config.ts";

/** The flags of `claudius config`: a run's, so that `check` sees what that run would. */
export const CONFIG_FLAGS = {
  ...EPISODE_FLAGS,
  yolo: GO_ON_FLAGS.yolo,
  offline: {
    type: "boolean",
    doc: "check: do not ask the endpoint for its models (GET <base_url>/models, never a paid call)",
  },
} as const;

/** `claudius config`. */
export const SPEC: CommandSpec<typeof CONFIG_FLAGS> = {
  name: "claudius config",
  summary: "list the built-in configs, or check the config a run would use",
  usage: ["list", "check [-c SPEC]... [run flags]", "import-upstream [SOURCE] [--version V]"],
  examples: [
    ["claudius config list", "the built-in configs, each with one line about it"],
    ["claudius config import-upstream", "mini-swe-agent's own config files, checked by their sha256"],
    [
      "claudius config check -c my.yaml -m openai/gpt-5-mini",
      "the merged config and where each value came from; then the key, and the endpoint asked for its " +
      "models (no paid call)",
    ],
  ],
  sections: [[
    "Exit codes",
    "0 the config is usable; 1 the endpoint cannot be reached or refuses the key; " +
    "2 a config a run would refuse.",
  ]],
  flags: CONFIG_FLAGS,
  positionals: { min: 1, max: 1, name: "list or check" },
};

/** The built-in configs: name (as `-c` takes it) and the first line of the file's leading comment. */
export async function builtinConfigs(dir: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  const walk = async (sub: string) => {
    const entries = await Array.fromAsync(Deno.readDir(`${dir}${sub}`));
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory) await walk(`${sub}/${e.name}`);
      else if (/\.ya?ml$/.test(e.name)) {
        const text = await Deno.readTextFile(`${dir}${sub}/${e.name}`);
        const about = /^#\s*(.*)$/m.exec(text)?.[1] ?? "";
        out.push([`${sub.slice(1)}${sub ? "/" : ""}${e.name.replace(/\.ya?ml$/, "")}`, about]);
      }
    }
  };
  await walk("");
  return out;
}

/** Where a value came from: the last source that set it (file:line, a -c spec, a flag), else a default. */
function origin(sources: ConfigSource[], path: string[]): string {
  const from = sources.findLast((s) => {
    let at: unknown = s.data;
    for (const key of path) at = isPlainObject(at) ? at[key] : undefined;
    return at !== undefined;
  });
  if (!from) return "default";
  if (from.spec === COMMAND_LINE) return "a flag";
  if (!from.path) return `-c ${from.spec}`;
  const line = from.text ? findKeyLine(from.text, path) : undefined;
  return `${from.path}${line ? `:${line}` : ""}`;
}

/**
 * The endpoint key a config file set last (not one of claudius's built-in configs), with where and
 * its URL, else the key naming which of your variables is the key (`model.api_key_env`), with its
 * value: `config check` is how a config someone else wrote (a cloned repository's) is looked at
 * before it is trusted, so asking that endpoint, with your key, is left to a run or a flag.
 */
function fileEndpoint(
  sources: ConfigSource[],
  config: Record<string, unknown>,
  builtinDir: string,
): { key: string; where: string; url: string } | undefined {
  const at = (tree: unknown, path: readonly string[]) =>
    path.reduce<unknown>((t, k) => (isPlainObject(t) ? t[k] : undefined), tree);
  const fromFile = (path: readonly string[]) => {
    const from = sources.findLast((s) => at(s.data, path) !== undefined);
    return from?.path !== undefined && !from.path.startsWith(`${builtinDir}/`);
  };
  for (const path of ENDPOINT_KEYS) {
    const url = at(config, path);
    if (typeof url !== "string" || url === "" || !fromFile(path)) continue;
    return { key: path.join("."), where: origin(sources, [...path]), url };
  }
  // The file chose which of your variables is the key, sent to the endpoint its model's prefix has.
  for (const path of KEY_VARIABLE_KEYS) {
    const value = at(config, path);
    if (keyVariable(path, value) === undefined || !fromFile(path)) continue;
    return { key: path.join("."), where: origin(sources, [...path]), url: String(value) };
  }
  return undefined;
}

/** One line per key: `section.key = value   (origin)`; long values cut to one line. */
function explain(config: Record<string, unknown>, sources: ConfigSource[]): string[] {
  const lines: string[] = [];
  for (const [section, body] of Object.entries(config)) {
    if (!isPlainObject(body)) continue;
    for (const [key, value] of Object.entries(redactSecrets(body))) {
      let shown = JSON.stringify(value) ?? String(value);
      if (shown.length > 60) shown = `${shown.slice(0, 57)}...`;
      lines.push(`${section}.${key} = ${shown}  (${origin(sources, [section, key])})`);
    }
  }
  return lines;
}

/**
 * `claudius config list | check [flags]`.
 * @returns 0, or 1 when the endpoint cannot be reached or refuses the key
 * @throws {UsageError} for bad flags; {ConfigError} for a config a run would refuse
 */
export async function main(argv: string[], host: Host): Promise<number> {
  if (argv[0] === "import-upstream") {
    return await asSubcommand(
      "config import-upstream",
      async () => await (await import("./import_upstream.ts")).main(argv.slice(1), host),
    );
  }
  const { values, positionals } = parseCommandLine(CONFIG_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(SPEC) + "\n"), 0);
  const [what] = positionals;
  if (what === "list") {
    const configs = await builtinConfigs(host.builtinDir);
    const width = Math.max(...configs.map(([n]) => n.length));
    for (const [name, about] of configs) host.out(`${name.padEnd(width)}  ${about}\n`);
    const release = await upstreamLookup(host)();
    host.out(
      release
        ? `\nupstream's names (mini, swebench, ...) run mini-swe-agent ${release.version}'s own files ` +
          `(${release.origin === "imported" ? "imported" : "a Python package's"}, ${release.dir}): ` +
          `${Object.keys(release.files).sort().join(", ")}; -c ${OWN_PREFIX}NAME runs claudius's own\n`
        : "\nupstream's names (mini, swebench, ...) run claudius's own words above; 'claudius config " +
          "import-upstream' brings mini-swe-agent's files\n",
    );
    return 0;
  }
  if (what !== "check" || positionals.length !== 1) {
    throw new UsageError(
      `config needs list, check or import-upstream${what ? `, got '${positionals.join(" ")}'` : ""}`,
    );
  }
  const { config, sources } = await resolveFlagsConfig(runFlags(values, CONFIG_FLAGS), host);
  for (const line of explain(config, sources)) host.out(`${line}\n`);
  const fromFile = values.offline ? undefined : fileEndpoint(sources, config, host.builtinDir);
  const report = await checkEndpoint(config, host, values.offline || fromFile ? undefined : {});
  const check = report?.check;
  // A base_url may hold a password or a key (`https://u:KEY@host`, `?key=`), an answer may quote the
  // key: neither is shown, as in a run.
  const known = secretValues(host.env, 8, [config.model.api_key_env]);
  const say = (line: string) => host.out(redactText(line, known));
  if (report) say(`endpoint: ${describeEndpoint(report)}\n`);
  if (fromFile) {
    const flag = fromFile.key === "model.base_url"
      ? `--base-url ${fromFile.url}`
      : `-c ${fromFile.key}=${fromFile.url}`;
    say(
      `endpoint: not asked: ${fromFile.key} comes from ${fromFile.where} (a config file chose where your key ` +
        `would go: check it, then ask it with ${flag})\n`,
    );
  }
  if (check) say(`endpoint: ${check.text}\n`);
  if (check?.level === "error") {
    host.out("config not ok: a run with these flags would fail at its first model call\n");
    return 1;
  }
  const caveat = values.offline || fromFile
    ? " (the endpoint was not asked)"
    : check?.level === "warning"
    ? " (see the endpoint's answer above)"
    : "";
  host.out(`config ok: a run with these flags would start with this config${caveat}\n`);
  return 0;
}
