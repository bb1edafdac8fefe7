/**
 * Reroll on an empty submission (Daemon's best-of-2 on an empty patch): when a submission is empty,
 * the attempt is dropped and the run starts again from the system prompt and the task, in the same
 * environment, up to `k` attempts; the limits cover all attempts together. Runs with this switch on
 * are best-of-k, not pass@1, and say so (`info.pass_at_1: false`, batch outputs).
 *
 * @module
 */
import { submissionOf } from "../../core/submission.ts";
import { InterruptAgentFlow } from "../../core/errors.ts";
import type { Mechanism, MechanismContext } from "./mechanism.ts";
import { SAFE_GIT } from "../../lib/safe_git.ts";
import { isPlainObject } from "../../lib/json.ts";

/** Ends the turn of an attempt that is being rerolled (its messages are already appended). */
export class Rerolled extends InterruptAgentFlow {}

/**
 * `git status --porcelain`, prints nothing when the working tree matches HEAD (untracked files count);
 * git's own programs off ({@link SAFE_GIT}).
 */
const STATUS = `${SAFE_GIT}\ng status --porcelain --untracked-files=all`;

/** The `reroll` switch. */
export function reroll({ config, window }: MechanismContext): Mechanism {
  const c = config.reroll;
  let attempt = 1;
  const rerolls: { attempt: number; submission: string; why: string }[] = [];
  /** Submissions `diff` mode could not judge (git failed): accepted, not rerolled. */
  const unchecked: { attempt: number; why: string }[] = [];
  return {
    name: "reroll",
    async observe(_action, output, loop) {
      const submission = submissionOf(output);
      if (submission === undefined || attempt >= c.k) return output;
      let why: string;
      if (c.empty === "diff") {
        const status = await loop.execute({ command: STATUS });
        if (status.returncode !== 0) {
          const why = `git status exited with ${status.returncode}: ${status.output.trim().split("\n")[0]}`;
          unchecked.push({ attempt, why });
          return output;
        }
        if (status.output.trim() !== "") return output;
        why = "empty diff";
      } else {
        if (submission.trim() !== "") return output;
        why = "empty submission";
      }
      rerolls.push({ attempt, submission, why });
      attempt++;
      window.restart(
        loop,
        "reroll",
        `Attempt ${attempt - 1} ended with an ${why}; attempt ${attempt} of ${c.k} starts from the task.`,
        { attempt, previous: { exit_status: "Submitted", submission, reason: why } },
      );
      throw new Rerolled();
    },
    restore(messages) {
      for (const m of messages) {
        const cm = isPlainObject(m.extra) && isPlainObject(m.extra.context_management)
          ? m.extra.context_management
          : undefined;
        if (m.role !== "system" || cm?.type !== "reroll") continue;
        const previous = isPlainObject(cm.previous) ? cm.previous : undefined;
        rerolls.push({
          attempt,
          submission: String(previous?.submission ?? ""),
          why: String(previous?.reason ?? ""),
        });
        attempt = Number(cm.attempt);
      }
    },
    facts: () => ({ attempts: attempt, rerolls, ...(unchecked.length ? { unchecked } : {}) }),
  };
}
