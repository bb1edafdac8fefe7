/**
 * What the run, resume and batch commands share: the config from `-c` specs and flags, the refusal
 * of modes that would ask where no one answers, and two-stage signal handling.
 *
 * @module
 */
import { readUtf8File } from "../lib/text_file.ts";
import { UsageError } from "../lib/flags.ts";
import type { RunFlags } from "./run_flags.ts";
import {
  type ConfigSource,
  findKeyLine,
  loadConfig,
  namesWholeConfig,
  resolveConfig,
  type ResolvedConfig,
} from "../core/config/load.ts";
import { type EndingSignal, SIGNAL_STATUSES } from "../core/errors.ts";
import type { Host } from "../core/host.ts";
import { configSchema } from "./schema.ts";
import type { Registry } from "../core/episode.ts";
import { REGISTRY } from "./classes.ts";
import { isPlainObject } from "../lib/json.ts";
import type { UpstreamRelease } from "../core/config/upstream_store.ts";
import { needsDigests, type Prompts, promptsOf, type ProvenanceContext } from "../core/config/provenance.ts";

/**
 * The merged config of a run or a batch: `-c` specs, then the flags, then docker's isolation defaults.
 * `base` (a built-in) comes first unless some `-c` names a whole config. `atTerminal`: when no config or
 * flag names the agent class, it is `interactive` if stdin and stdout are terminals and either no task
 * flag is given or the config asks for `agent.mode` confirm / human. `registry`: the classes the
 * schema is made of (default: claudius's).
 */
export async function resolveFlagsConfig(
  flags: RunFlags,
  host: Host,
  base = "default",
  atTerminal = false,
  registry: Registry = REGISTRY,
) {
  const implicit = flags.config.some(namesWholeConfig) ? 0 : 1;
  const specs = implicit ? [base, ...flags.config] : flags.config;
  const hostEnv = host.env;
  const configDir = hostEnv.MSWEA_CONFIG_DIR;
  const schema = configSchema(registry);
  let { config, sources } = await loadConfig(
    specs,
    {
      schema,
      builtinDir: host.builtinDir,
      upstream: upstreamLookup(host),
      ...(configDir ? { configDir } : {}),
      readTextFile: readUtf8File,
    },
    host.err,
    { hostEnv, overrides: flags.overrides, implicit },
  );
  const classSet = sources.some((s) => isPlainObject(s.data.agent) && s.data.agent.agent_class !== undefined);
  const asks = config.agent.mode === "confirm" || config.agent.mode === "human";
  if (atTerminal && !classSet && (asks || (flags.task === undefined && flags.taskFile === undefined))) {
    sources = [{ spec: "the terminal", data: { agent: { agent_class: "interactive" } } }, ...sources];
    config = resolveConfig(sources, { schema, hostEnv });
  }
  const envClass = config.environment.environment_class;
  const runArgsSet = sources.some((s) =>
    isPlainObject(s.data.environment) && s.data.environment.run_args !== undefined
  );
  if ((envClass === "docker" || envClass === "podman") && !runArgsSet) {
    const { cpus, memory } = host.machine();
    const { defaultIsolationArgs } = await import("../core/environments/extra/docker.ts");
    config.environment.run_args = defaultIsolationArgs(cpus, memory);
  }
  return { config, sources, prompts: await promptsFor(sources, host) };
}

/** Where the prompts of a config made of `sources` came from (`info.prompts`). */
export async function promptsFor(
  sources: readonly ConfigSource[],
  host: Host,
  recorded?: ProvenanceContext["recorded"],
): Promise<Prompts> {
  const ctx = { ...await provenanceContext(sources, host), ...(recorded ? { recorded } : {}) };
  return promptsOf(sources, ctx);
}

/** What telling `sources` apart takes: the built-ins' place, and upstream's digests when a file needs them. */
export async function provenanceContext(
  sources: readonly ConfigSource[],
  host: Host,
): Promise<ProvenanceContext> {
  const table = needsDigests(sources, host.builtinDir)
    ? await (await import("../core/config/digest_table.ts")).digestTable(host.env)
    : undefined;
  return { builtinDir: host.builtinDir, cwd: host.cwd, ...(table ? { table } : {}) };
}

/**
 * Where upstream's names look for upstream's own files: the release in use (imported, or an installed
 * Python package's), looked up once, on the first name that needs it.
 */
export function upstreamLookup(host: Host): () => Promise<UpstreamRelease | undefined> {
  let found: Promise<UpstreamRelease | undefined> | undefined;
  return () =>
    found ??= import("../core/config/upstream_release.ts").then((m) =>
      m.releaseInUse(host.env, host.cwd, host.err)
    );
}

/**
 * Two-stage handling of SIGINT, SIGTERM, SIGHUP and SIGQUIT: the first signal calls `first` (end
 * cleanly), any later one `again` (end now), each with the signal's exit status
 * ({@link SIGNAL_STATUSES}). Returns the function that removes the listeners.
 */
export function onSignals(
  host: Host,
  first: (name: EndingSignal, status: string) => void,
  again: (name: EndingSignal, status: string) => void,
): () => void {
  let count = 0;
  const listeners = (Object.keys(SIGNAL_STATUSES) as EndingSignal[]).map((name) => {
    const listener = () => (++count > 1 ? again : first)(name, SIGNAL_STATUSES[name]);
    return host.onSignal(name, listener);
  });
  return () => listeners.forEach((stop) => stop());
}

/** Never a silent yolo: a mode that asks where no one answers is a usage error (see refuseSilentYolo). */
export function refuseUnasked(config: ResolvedConfig, sources: ConfigSource[], canAsk: boolean): void {
  if (!canAsk) {
    const ways = "pass -y (agent.mode=yolo) to run without asking, or run claudius at a terminal";
    refuseSilentYolo(config, sources, "stdin is not a terminal", ways);
  } else if (config.agent.agent_class !== "interactive") {
    const ways = "pass -y (agent.mode=yolo), or --agent-class interactive";
    refuseSilentYolo(config, sources, "agent.agent_class 'default' never asks", ways);
  }
}

/**
 * Throw a usage error when `agent.mode` is confirm or human: it names the key, where it was set (file
 * and line, a `-c` spec, or the interactive agent's default), why no one can answer, and the ways out.
 *
 * @param config the resolved config
 * @param sources the loaded `-c` sources (the last one setting `agent.mode` is named)
 * @param why why no one can answer, e.g. "stdin is not a terminal"
 * @param ways the ways out, e.g. "pass -y (agent.mode=yolo) ..."
 * @throws {UsageError} when the mode asks someone
 */
export function refuseSilentYolo(
  config: ResolvedConfig,
  sources: ConfigSource[],
  why: string,
  ways: string,
): void {
  const mode = config.agent.mode;
  if (mode !== "confirm" && mode !== "human") return;
  const from = sources.findLast((s) => isPlainObject(s.data.agent) && s.data.agent.mode !== undefined);
  const line = from?.text ? findKeyLine(from.text, ["agent", "mode"]) : undefined;
  const where = !from
    ? "the interactive agent's default"
    : from.path
    ? `set in ${from.path}${line ? `:${line}` : ""}`
    : `set by -c '${from.spec}'`;
  const what = mode === "confirm" ? "confirm the model's commands" : "type commands";
  throw new UsageError(`agent.mode is '${mode}' (${where}) but ${why}, so no one can ${what}: ${ways}`);
}
