/**
 * `claudius batch INSTANCES`: many episodes in one process (or several arms of an ablation),
 * resumable, with two-stage signal handling.
 *
 * @module
 */
import { UsageError } from "./run_flags.ts";
import { ConfigError, exitMessage, Interrupted } from "../core/errors.ts";
import { EXIT_CODES, type Host } from "../core/host.ts";
import { refuseSilentYolo } from "./_shared.ts";
import { BATCH_SPEC, type BatchFlags, parseBatchArgs } from "./batch_flags.ts";
import { renderHelp } from "../lib/help.ts";
import { runArms } from "../batch/run_batch.ts";
import { FILTER_WORKER } from "../batch/select.ts";
import { failedAlike, summaryLines } from "../batch/progress.ts";
import { exportHint, MODES, SWEBENCH_SUBSETS } from "../batch/modes.ts";
import { onSignals, provenanceContext, resolveFlagsConfig } from "./_shared.ts";
import { episodeFeatures } from "./features.ts";
import type { ConfigSource, ResolvedConfig } from "../core/config/load.ts";
import { describeSource, type Prompts } from "../core/config/provenance.ts";
import { isSecretName, REDACTED, redactText, secretValues } from "../core/redact.ts";
import { VERSION } from "../core/version.ts";
import { UPSTREAM_VERSION } from "../core/trajectory_info.ts";
import { priceTable } from "../core/models/price_table.ts";
import type { RunFacts } from "../batch/run_record.ts";
import type { Json } from "../core/types.ts";
import { resolvePath } from "../lib/paths.ts";

/**
 * What `run.json` says of this invocation before it runs anything: the command line (credentials
 * redacted), each config file's digest and what it is, the prompts' source, the model, the price table.
 */
async function runFacts(
  config: ResolvedConfig,
  sources: readonly ConfigSource[],
  prompts: Prompts,
  host: Host,
): Promise<RunFacts> {
  const secrets = secretValues(host.env);
  const ctx = await provenanceContext(sources, host);
  const redacted = (arg: string) => {
    const key = /^(?:-c)?([\w.-]+)=/.exec(arg)?.[1];
    const last = key?.slice(key.lastIndexOf(".") + 1);
    return last && isSecretName(last)
      ? `${arg.slice(0, arg.indexOf("=") + 1)}${REDACTED}`
      : redactText(arg, secrets);
  };
  return {
    claudius_version: VERSION,
    mini_version: UPSTREAM_VERSION,
    command_line: host.commandLine.map(redacted),
    cwd: host.cwd,
    config_files: sources.filter((s) => s.path !== undefined).map((s) =>
      ({
        spec: s.spec,
        ...describeSource(s, ctx),
        path: resolvePath(s.path!, host.cwd),
      }) as { [key: string]: Json }
    ),
    prompts: prompts as { [key: string]: Json },
    model: String(config.model.model_name ?? ""),
    price_table: priceTable(),
  };
}

/** The flags of `claudius batch`. */
export const SPEC = BATCH_SPEC;

/**
 * `claudius batch INSTANCES [options]`.
 * @returns its exit code
 * @throws {UsageError} for bad flags
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const flags = parseBatchArgs(argv);
  if (flags === "help") return (host.out(renderHelp(BATCH_SPEC) + "\n"), 0);
  return await batchCommand(flags, host);
}

/**
 * `claudius batch INSTANCES [options]`: many episodes, resumable; its exit code. `upstream`: exit 0
 * though some instances are unfinished, as upstream's runners do (`mini-extra`), but not when every
 * instance failed alike ({@link failedAlike}).
 */
export async function batchCommand(flags: BatchFlags, host: Host, upstream = false): Promise<number> {
  const err = host.err;
  const rules = MODES[flags.mode];
  if (flags.mode === "swebench" && Object.hasOwn(SWEBENCH_SUBSETS, flags.instances)) {
    const exists = await Deno.stat(flags.instances).then(() => true, () => false);
    if (!exists) {
      throw new UsageError(
        `'${flags.instances}' is upstream's subset name (${
          SWEBENCH_SUBSETS[flags.instances]
        }); claudius reads ` +
          `an exported dataset file, e.g.: ${exportHint(flags.instances)}`,
      );
    }
  }
  /** The config of the batch (or of one arm), refused when someone would have to answer. */
  const batchConfig = async (f: BatchFlags) => {
    const { config, sources, prompts } = await resolveFlagsConfig(f, host, rules.baseConfig);
    const run = await runFacts(config, sources, prompts, host);
    if (config.agent.agent_class === "interactive") {
      throw new UsageError(
        "claudius batch never asks: agent.agent_class 'interactive' cannot be used in a batch",
      );
    }
    refuseSilentYolo(config, sources, "claudius batch never asks", "pass -c agent.mode=yolo");
    return { config, prompts, run };
  };
  // Each arm: the shared -c specs, then its own, then the flags.
  const arms = [];
  for (const { name, specs } of flags.arms) {
    try {
      arms.push({ name, ...await batchConfig({ ...flags, config: [...flags.config, ...specs] }) });
    } catch (e) {
      if (e instanceof ConfigError) throw new ConfigError(`arm ${name}: ${e.message}`, { cause: e });
      if (e instanceof UsageError) throw new UsageError(`arm ${name}: ${e.message}`);
      throw e;
    }
  }
  const one = arms.length ? undefined : await batchConfig(flags);
  const graceful = new AbortController();
  const force = new AbortController();
  let signalStatus = "";
  const removeSignals = onSignals(
    host,
    (name, status) => {
      signalStatus = status;
      err(
        `claudius batch: ${name} received: starting no more instances, ending running ones (again to force)`,
      );
      graceful.abort(new Interrupted(exitMessage(status)));
    },
    (name) => {
      err(`claudius batch: ${name} again: stopping now, removing environments`);
      force.abort();
    },
  );
  const live = host.terminal.stdout;
  try {
    const options = {
      instancesPath: flags.instances,
      outDir: flags.output ?? rules.defaultOutput(Date.now()),
      workers: flags.workers,
      selection: {
        ...(flags.shuffleSeed !== undefined ? { shuffleSeed: flags.shuffleSeed } : {}),
        ...(flags.filter !== undefined ? { filter: flags.filter } : {}),
        ...(flags.slice !== undefined ? { slice: flags.slice } : {}),
        ...(flags.shard ? { shard: flags.shard } : {}),
        ...(flags.instance !== undefined ? { instance: flags.instance } : {}),
      },
      mode: flags.mode,
      redoExisting: flags.redoExisting,
      dockerHosts: flags.dockerHosts,
      verbose: flags.verbose,
    };
    const deps = {
      hostEnv: host.env,
      features: episodeFeatures,
      cwd: host.cwd,
      write: host.out,
      live,
      rows: () => host.consoleSize().rows,
      log: err,
      filterWorker: host.programFile(FILTER_WORKER),
      signal: graceful.signal,
      force: force.signal,
    };
    const done = await runArms({
      ...options,
      trials: flags.trials,
      arms: one ? [{ name: "", ...one }] : arms,
    }, deps);
    const lines = done.arms.flatMap(({ name, trial, summary }) => {
      const head = [name ? `arm ${name}` : "", trial === undefined ? "" : `trial ${trial}`].filter(Boolean);
      return head.length
        ? [`${head.join(", ")}:`, ...summaryLines(summary).map((l) => `  ${l}`)]
        : summaryLines(summary);
    });
    host.out(lines.join("\n") + "\n");
    const summaries = done.arms.map((a) => a.summary);
    if (summaries.some((s) => s.interrupted)) return EXIT_CODES[signalStatus || "Interrupted"]!;
    if (summaries.some((s) => failedAlike(s) !== undefined)) return 1;
    return !upstream && summaries.some((s) => s.unfinished.length || s.notStarted.length) ? 1 : 0;
  } finally {
    removeSignals();
  }
}
