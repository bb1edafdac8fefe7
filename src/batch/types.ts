/**
 * The shapes of a batch run: what it runs ({@link BatchOptions}, {@link ArmsOptions}), what it
 * needs from its process ({@link BatchDeps}) and how it ended ({@link BatchSummary}).
 *
 * @module
 */
import type { ResolvedConfig } from "../core/config/load.ts";
import type { Prompts } from "../core/config/provenance.ts";
import type { RunFacts } from "./run_record.ts";
import type { Classes, Episode, EpisodeDeps, EpisodePlug } from "../core/episode.ts";
import type { Message } from "../core/types.ts";
import type { DockerHostSpec } from "./_workers.ts";
import type { Selection } from "./select.ts";
import type { ShardSpec } from "./shard.ts";
import type { BatchMode } from "./modes.ts";

/** What a batch runs. */
export interface BatchOptions {
  /** Instances file (JSON array / JSONL) or directory of task files. */
  instancesPath: string;
  /** Output directory (created). */
  outDir: string;
  /** Concurrent episodes (split over hosts without a capacity). */
  workers: number;
  /** The merged config every instance starts from. */
  config: ResolvedConfig;
  /** Where its prompts came from, recorded as each trajectory's `info.prompts`. */
  prompts?: Prompts;
  /** The invocation's facts for `<out>/run.json` (none written without). */
  run?: RunFacts;
  /** The selection; `shard: "auto"` is read from the scheduler's variables in `BatchDeps.hostEnv`. */
  selection: Omit<Selection, "shard"> & { shard?: ShardSpec };
  /** Redo finished instances too. */
  redoExisting: boolean;
  /** Engines to spread containers over (empty: the default engine). */
  dockerHosts: DockerHostSpec[];
  verbose: boolean;
  /** A benchmark run as upstream's runner does it (see `modes.ts`); default `plain`. */
  mode?: BatchMode;
  /**
   * Trials of every instance (default 1): with more than one, trial k is a batch directory of its own,
   * `<out>/trial-<k>/` (with arms `<out>/<arm>/trial-<k>/`); one keeps the plain layout.
   */
  trials?: number;
}

/** What an instance's episode runs with (the command layer's composition of the features). */
export type FeatureBuilder = (
  config: ResolvedConfig,
  episode: Pick<Episode, "outputPath" | "top">,
  options: { artifactsIf?: (messages: readonly Message[]) => boolean; force?: AbortSignal },
  deps: Pick<EpisodeDeps, "hostEnv" | "log" | "cwd" | "signal" | "now" | "watch">,
) => Promise<{ config: ResolvedConfig; plug: EpisodePlug }>;

/** Everything impure a batch needs (the command layer passes the real ones). */
export interface BatchDeps {
  hostEnv: Record<string, string>;
  /** The features of each instance's episode. */
  features: FeatureBuilder;
  /** The registries of model and environment classes (default: claudius's own). */
  classes?: Classes;
  /** Directory relative paths are resolved against. */
  cwd: string;
  /** Progress output (stdout). */
  write: (text: string) => void;
  /** True when the output is a terminal: live display. */
  live: boolean;
  /** Terminal rows, for the live display. */
  rows?: () => number;
  /** Warnings and errors (stderr). */
  log: (line: string) => void;
  /** The `--filter` worker module (`Host.programFile(FILTER_WORKER)`); without it, matched in this thread. */
  filterWorker?: URL;
  /** First signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT): start nothing more, end running episodes. */
  signal?: AbortSignal;
  /** Second signal: close every environment (bounded) and return at once. */
  force?: AbortSignal;
  now?: () => number;
}

/** How a batch ended. */
export interface BatchSummary {
  /** Instances after selection. */
  selected: number;
  /** Skipped because already finished. */
  skipped: number;
  /** Ids run by this invocation, by exit status. */
  byStatus: Record<string, string[]>;
  /** Ids of this invocation that are not finished (infrastructure failures, interrupted). */
  unfinished: string[];
  /** Selected ids never started (the batch was stopped). */
  notStarted: string[];
  /** Selected ids another live process was running (`<id> (pid P on H)`), left to it. */
  elsewhere: string[];
  /** The batch was stopped by a signal. */
  interrupted: boolean;
  /** `MSWEA_GLOBAL_COST_LIMIT` / `MSWEA_GLOBAL_CALL_LIMIT` was reached: no instance was started after. */
  globalLimitReached: boolean;
  /** `preds.json`, or "" when the mode writes none. */
  predsPath: string;
  /** This invocation's exit-status file; undefined when no instance ended (none was written). */
  statusesPath: string | undefined;
  elapsedMs: number;
  /** Some instance ran best-of-k (`mechanisms.reroll`): its result is not pass@1. */
  notPassAt1: boolean;
  /** Engines set aside because they failed (`<engine>: <why>`): they got no more work. */
  enginesDown?: string[];
}

/**
 * One arm of an ablation: its name (its output directory under the batch's) and its config. An arm
 * named "" is the batch's own config, written without an arm directory.
 */
export interface Arm {
  name: string;
  config: ResolvedConfig;
  /** Where its prompts came from (`info.prompts`). */
  prompts?: Prompts;
  /** The invocation's facts for `run.json` in its directory. */
  run?: RunFacts;
}

/** What an ablation runs: a batch's options with arms instead of one config. */
export type ArmsOptions = Omit<BatchOptions, "config" | "prompts" | "run"> & { arms: Arm[] };

/**
 * How an ablation ended: each output directory (an arm's, or one trial of an arm) summarised as a batch
 * of its own.
 */
export interface ArmsSummary {
  arms: { name: string; trial?: number; outDir: string; summary: BatchSummary }[];
}
