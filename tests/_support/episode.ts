/**
 * How the tests build what the command layer builds: the config schema and loader IO, the episode's
 * deps, the features of an episode, and a batch's deps.
 */
import { configSchema } from "../../src/cli/schema.ts";
import { episodeFeatures, type FeatureOptions } from "../../src/cli/features.ts";
import type { ConfigIO, ResolvedConfig } from "../../src/core/config/load.ts";
import { type Episode, type EpisodeDeps, type EpisodeResult, runEpisode } from "../../src/core/episode.ts";
import type { BatchDeps } from "../../src/batch/run_batch.ts";
import * as yamlModule from "../../src/lib/python/yaml.ts";

export { configSchema };

/** A file of the program by its path in the checkout, as `Host.programFile` finds it in a checkout. */
export function programFile(path: string): URL {
  return new URL(`../../${path}`, import.meta.url);
}

/** The built-in configs. */
export const BUILTIN: string = new URL("../../config", import.meta.url).pathname;

/** The loader's IO over the real files (a fresh schema each time). */
export function configIO(more: Partial<ConfigIO> = {}): ConfigIO & Required<Pick<ConfigIO, "yaml">> {
  const yaml = () => Promise.resolve(yamlModule);
  return { schema: configSchema(), builtinDir: BUILTIN, readTextFile: Deno.readTextFile, yaml, ...more };
}

/** An episode's deps: silent, in the current directory, with claudius's classes; `more` wins. */
export function episodeDeps(more: Partial<EpisodeDeps> = {}): EpisodeDeps {
  return { hostEnv: {}, log: () => {}, runId: "test", cwd: Deno.cwd(), ...more };
}

/** Run an episode with the features its config and `options` ask for, as `claudius` does. */
export async function runWithFeatures(
  config: ResolvedConfig,
  episode: Episode,
  deps: EpisodeDeps,
  options: FeatureOptions = {},
): Promise<EpisodeResult> {
  const features = await episodeFeatures(config, episode, options, deps);
  return await runEpisode(features.config, episode, deps, features.plug);
}

/** A batch's deps: silent, with the real features; `more` wins. */
export function batchDeps(more: Partial<BatchDeps> & Pick<BatchDeps, "hostEnv" | "cwd">): BatchDeps {
  return {
    features: episodeFeatures,
    write: () => {},
    live: false,
    log: () => {},
    ...more,
  };
}
