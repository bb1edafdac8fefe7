/**
 * What "submitted" means in every tool (`stats`, `compare`, `report`, `inspect`): the run ended with
 * the exit status `Submitted`, the status upstream records when the model said it was done, whatever
 * it submitted. A run can submit an empty text (a tool-call run, or ProgramBench, submits its work as
 * files, not as text), so the submission's length says nothing about it.
 *
 * @module
 */
import { excludedEnding } from "../../core/endings.ts";
import type { Trajectory } from "./types.ts";

/** The exit status of a run the model ended by submitting. */
export const SUBMITTED = "Submitted";

/**
 * Whether a run with this exit status submitted.
 *
 * @example
 * ```ts
 * import { isSubmitted } from "./outcome.ts";
 * isSubmitted("Submitted"); // true
 * isSubmitted("LimitsExceeded"); // false
 * ```
 */
export function isSubmitted(exitStatus: string): boolean {
  return exitStatus === SUBMITTED;
}

/**
 * Why a run counts in no rate (it ended on the infrastructure, before the model was reached, or not at
 * all; see `core/endings.ts`, the rule a batch rerun follows too), or undefined when it counts.
 *
 * @example
 * ```ts ignore
 * import { loadTrajectory } from "./load_trajectory.ts";
 * excludedRun(await loadTrajectory("out/a/a.traj.json")); // "EnvironmentLost", or undefined
 * ```
 */
export function excludedRun(t: Pick<Trajectory, "exit" | "messages">): string | undefined {
  return excludedEnding({ status: t.exit.status, messages: t.messages.length, content: t.exit.content });
}
