/**
 * What `claudius replay` composes besides the loop: the agent of the class that ran (upstream's
 * interactive agent for the trajectories of `mini`, `mini-swe-agent` and `swebench-single`), and a
 * resumed recording's parts: its predecessor's messages, made under the predecessor's config (recorded
 * as the differences in `info.resumed_from.config`), then its own, gone on from as `claudius resume`
 * went on.
 *
 * @module
 */
import { checkRequired } from "../core/config/keys.ts";
import { isPlainObject } from "../lib/json.ts";
import type { ResolvedConfig } from "../core/config/load.ts";
import { INTERACTIVE_AGENT_KEYS } from "../features/interactive/keys.ts";
import type { AgentFactory } from "../core/episode.ts";
import type { ResumeLink } from "../core/trajectory_info.ts";
import { configChanges, undoChanges } from "../features/resume/config_changes.ts";
import type { Message } from "../core/types.ts";
import { readTrajectory } from "../core/trajectory.ts";
import type { ReplayPhase } from "../features/replay/replay_run.ts";
import type { Recording } from "../features/replay/recording.ts";
import { type RecordedConfig, recordedConfig } from "../features/resume/recorded_config.ts";
import { stateAt } from "../features/resume/predecessor.ts";
import { RESTARTED, resumePlan } from "../features/resume/continue_run.ts";
import { AGENT_CLASSES, REGISTRY } from "./classes.ts";

/**
 * A resumed run's note that its environment is a new container, which the replay makes again: the
 * one without re-run commands (those are not recorded, so a replay cannot run them again).
 */
export function isRestartNote(m: Message): boolean {
  const extra = isPlainObject(m.extra) ? m.extra : {};
  return m.role === "user" && extra.interrupt_type === RESTARTED && !("replayed" in extra);
}

/**
 * The agent of the class that ran, when it is not the default one: the interactive agent, whose every
 * question is answered with Enter (run the commands, finish at the submission, keep the limits), which
 * is what a run that recorded no answer of its user was given (an answer is a message, which no replay
 * gives back); its screen shows nothing.
 */
export async function recordedAgent(config: ResolvedConfig): Promise<AgentFactory | undefined> {
  if (config.agent.agent_class !== "interactive") return undefined;
  const { InteractiveAgent } = await AGENT_CLASSES.interactive.load();
  const { Screen } = await import("../features/interactive/screen.ts");
  const { Interrupts } = await import("../features/interactive/user_io.ts");
  const io = {
    screen: new Screen({ write: () => {}, color: false, live: false, columns: () => 80 }),
    input: { canAsk: true, read: () => Promise.resolve("") },
    interrupts: new Interrupts(),
  };
  return (own, model, env, deps) => {
    checkRequired(INTERACTIVE_AGENT_KEYS, own, "agent");
    return new InteractiveAgent(own, model, env, deps, io);
  };
}

/** The links of a resumed recording, its own first, then its predecessor's, ... */
function chainOf(info: Record<string, unknown>): ResumeLink[] {
  const chain: ResumeLink[] = [];
  for (let link = info.resumed_from; isPlainObject(link); link = link.resumed_from) {
    chain.push(link as unknown as ResumeLink);
  }
  return chain;
}

/**
 * Where the predecessor's config differed, for a link made before they were recorded: from the
 * predecessor's own file when it is still there, else none (and a note says so).
 */
async function changesOf(
  link: ResumeLink,
  after: Record<string, unknown>,
  log: (line: string) => void,
): Promise<Record<string, unknown>> {
  if (isPlainObject(link.config)) return link.config;
  const before = await readTrajectory(link.trajectory).then((t) => t.data.info?.config, () => undefined);
  if (isPlainObject(before)) return configChanges(before, after);
  log(
    `note: the config ${link.trajectory} ran with is not recorded (an older claudius resumed it) and the file ` +
      "is gone: its messages are played back with this trajectory's config",
  );
  return {};
}

/**
 * The parts of a resumed recording, oldest first (undefined for one that was not resumed).
 * @param config the recording's own config, resolved (the last part's)
 * @param resolve resolves a recorded config the way the recording's own was (`-c` specs on top)
 * @param log one-line notes
 */
export async function resumedPhases(
  recording: Recording,
  config: ResolvedConfig,
  resolve: (recorded: RecordedConfig) => Promise<ResolvedConfig>,
  log: (line: string) => void,
): Promise<ReplayPhase[] | undefined> {
  const chain = chainOf(recording.info);
  if (chain.length === 0) return undefined;
  let current = isPlainObject(recording.info.config) ? recording.info.config : {};
  const configs: Record<string, unknown>[] = [current];
  for (const link of chain) {
    current = undoChanges(current, await changesOf(link, current, log));
    configs.unshift(current);
  }
  const links = [...chain].reverse();
  const ends = links.map((l) => l.kept ?? l.messages);
  const phases: ReplayPhase[] = [];
  for (const [j, recorded] of configs.entries()) {
    const last = j === configs.length - 1;
    const info = { ...recording.info, config: recorded };
    const resolved = last
      ? config
      : await resolve(recordedConfig(info, false, recording.path, "replay", REGISTRY));
    const start = j === 0 ? 0 : ends[j - 1]!;
    const end = last ? recording.messages.length : ends[j]!;
    const link = links[j - 1];
    const restarted = recording.messages.slice(start, end).some(isRestartNote);
    phases.push({
      config: resolved,
      end,
      ...(link
        ? {
          resume: (before: Message[]) =>
            resumePlan({ ...stateAt(before, link), restarted, replay: false }, { log }),
        }
        : {}),
    });
  }
  return phases;
}
