/**
 * Going on with a run in a new process (`claudius resume`): the agent takes over the predecessor's
 * messages and counters; in a new container the model is told that its environment was restarted
 * (after the recorded commands were run again, when asked); the actions of a step cut short run
 * first, so the next request is the one the interrupted run would have sent.
 *
 * @module
 */
import type { DefaultAgent, RunResult } from "../../core/agent.ts";
import type { ResumePlan } from "../../core/episode.ts";
import type { Action, Message, UserMessage, Vars } from "../../core/types.ts";
import type { ResumeState } from "./predecessor.ts";
import { configChanges } from "./config_changes.ts";
import { isPlainObject } from "../../lib/json.ts";

/** `extra.interrupt_type` of the message that tells the model its environment was restarted. */
export const RESTARTED = "EnvironmentRestarted";

/**
 * How an episode goes on from the predecessor: the agent starts from its messages and counters (its
 * mechanisms take up what those record), then {@link continueRun}.
 */
export function resumePlan(state: ResumeState, deps: ContinueDeps): ResumePlan {
  const { messages, nCalls, cost, formatErrors, recordedConfig: before } = state;
  return {
    initial: { messages, nCalls, cost, formatErrors },
    elapsedMs: state.elapsedMs,
    restarted: state.restarted,
    link: state.link,
    ...(before ? { configChanges: (config: Record<string, unknown>) => configChanges(before, config) } : {}),
    go: (agent, vars) => continueRun(agent, state, vars, deps),
  };
}

/** How a replay went. */
export interface Replay {
  /** Commands run again. */
  replayed: number;
  /** Of those, how many ended with another exit code than recorded. */
  mismatches: number;
}

/**
 * The message telling the model its environment is a new container (our wording; upstream has no
 * resume).
 */
export function restartNote(replay?: Replay): UserMessage {
  const again = replay
    ? ` Before this message, the ${replay.replayed} command(s) you had run were run again in the new ` +
      `container, in order and without showing you their output; ${replay.mismatches} of them ended ` +
      "with a different exit code than the first time. Check that what you rely on is in place before " +
      "going on."
    : " Whatever your earlier commands changed inside the old container (files, installed packages, " +
      "running processes) is gone: check the state you rely on and redo what is missing.";
  return {
    role: "user",
    content: "This run was interrupted and has been resumed. Your environment was restarted: commands " +
      "now run in a new container started from the same image." + again,
    extra: {
      interrupt_type: RESTARTED,
      ...(replay ? { replayed: replay.replayed, replay_mismatches: replay.mismatches } : {}),
      timestamp: Date.now() / 1000,
    },
  };
}

/**
 * The commands the predecessor ran, in order, each with the exit code it recorded (observations
 * follow their assistant message in the order of its actions); a pending step's are left out.
 */
export function recordedCommands(
  messages: readonly Message[],
  pending?: Message,
): [Action, number | undefined][] {
  const out: [Action, number | undefined][] = [];
  messages.forEach((m, i) => {
    if (m.role !== "assistant" || m === pending || !Array.isArray(m.extra?.actions)) return;
    m.extra.actions.forEach((action, k) => {
      const observation = messages[i + 1 + k];
      const code = observation?.role === "tool" || observation?.role === "user"
        ? (isPlainObject(observation.extra) ? observation.extra.returncode : undefined)
        : undefined;
      out.push([{ command: action.command }, typeof code === "number" ? code : undefined]);
    });
  });
  return out;
}

/** What {@link continueRun} needs besides the agent. */
export interface ContinueDeps {
  log: (line: string) => void;
  signal?: AbortSignal;
}

/**
 * Go on with a restored agent until an exit message.
 * @param agent the agent, its messages and counters restored ({@link resumePlan}), its environment started
 * @param state the predecessor's state
 * @param vars template variables (`task` when given again)
 */
export async function continueRun(
  agent: DefaultAgent,
  state: ResumeState,
  vars: Vars,
  deps: ContinueDeps,
): Promise<RunResult> {
  let note: UserMessage | undefined;
  if (state.restarted) {
    let replay: Replay | undefined;
    if (state.replay) {
      const commands = recordedCommands(state.messages, state.pending);
      deps.log(`Replaying ${commands.length} recorded command(s) in the new container`);
      replay = { replayed: 0, mismatches: 0 };
      for (const [action, code] of commands) {
        if (deps.signal?.aborted) break;
        const output = await agent.env.execute(action, deps.signal);
        replay.replayed++;
        if (code !== undefined && output.returncode !== code) replay.mismatches++;
      }
    }
    note = restartNote(replay);
  }
  const pending = state.pending;
  if (!pending) {
    if (note) agent.addMessages(note);
    return await agent.continue(vars);
  }
  return await agent.continue(vars, async () => {
    await agent.executeActions(pending);
    if (note) agent.addMessages(note);
  });
}
