/**
 * The features an episode runs with, composed from the config and the command: the mechanisms as the
 * loop's hooks, the interactive agent, the dangerous-command gate, the ATIF copy, the artifacts and
 * what a resumed run goes on from (see {@link EpisodePlug}). Each feature is loaded only when its
 * config asks for it: a control run loads none.
 *
 * @module
 */
import { checkRequired } from "../core/config/keys.ts";
import type { ResolvedConfig } from "../core/config/load.ts";
import { type Episode, type EpisodePlug, RUN_KEYS } from "../core/episode.ts";
import type { StreamSink } from "../core/types.ts";
import type { FeatureDeps, FeatureOptions } from "./_feature_plugs.ts";

export type { FeatureDeps, FeatureOptions } from "./_feature_plugs.ts";

/** The episode's config as its features change it, and the plug they make. */
export interface Features {
  config: ResolvedConfig;
  plug: EpisodePlug;
}

/**
 * The features `config` asks for, checked before anything is built: output paths that cannot be
 * written are refused here, before the first call.
 * @throws {ConfigError} for a feature that cannot run with this config or command
 */
export async function episodeFeatures(
  config: ResolvedConfig,
  episode: Pick<Episode, "outputPath" | "top">,
  options: FeatureOptions,
  deps: FeatureDeps,
): Promise<Features> {
  const patterns = config.agent.confirm_dangerous;
  const gated = Array.isArray(patterns) && patterns.length > 0;
  const run = config.run;
  // The run section as the loader resolved it (RUN_KEYS have no required key).
  checkRequired(RUN_KEYS, run, "run");
  const artifacts = run.save_tarball || run.save_patch || options.patchPath !== undefined;
  const asked = config.mechanisms || config.agent.agent_class === "interactive" || gated || run.atif_path ||
    artifacts;
  const plugs = asked ? await import("./_feature_plugs.ts") : undefined;
  const mechanisms = plugs && config.mechanisms
    ? await plugs.mechanismHooks(config, episode.outputPath, options, deps)
    : undefined;
  const plug: EpisodePlug = {
    ...(mechanisms ? { hooks: mechanisms.hooks } : {}),
    ...(plugs ? await plugs.agentPlug(config, options) : {}),
  };
  const screen = options.interactive?.io.screen;
  const onStream: StreamSink | undefined = screen ? (e) => screen.stream(e) : options.onStream;
  if (onStream) plug.onStream = onStream;
  const savers = plugs ? await plugs.atifSaver(run, episode, options, deps) : [];
  if (savers.length) plug.savers = savers;
  const finish = plugs ? await plugs.artifactSteps(config, run, episode.outputPath, options, deps) : [];
  if (finish.length) plug.finish = finish;
  if (options.resume) {
    const { resumePlan } = await import("../features/resume/continue_run.ts");
    plug.resume = resumePlan(options.resume, {
      log: deps.log,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  }
  return { config: mechanisms?.config ?? config, plug };
}
