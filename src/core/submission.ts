/**
 * How a command submits: the first line of its output is the sentinel and it exits 0; the rest of
 * the output is the submission. Ending the run is the {@link Submitted} exception.
 *
 * @module
 */
import { exitMessage, Submitted } from "./errors.ts";
import type { ExecOutput } from "./types.ts";

/** The sentinel a command prints (first line of its output, exit code 0) to submit. */
export const SUBMIT_SENTINEL = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/**
 * The submission an output makes (first line is the sentinel, exit 0), else undefined.
 * @example
 * ```ts
 * import { submissionOf } from "./submission.ts";
 * submissionOf({ output: "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff", returncode: 0, exception_info: "" }); // "diff"
 * ```
 */
export function submissionOf(output: ExecOutput): string | undefined {
  const text = output.output.trimStart();
  const nl = text.indexOf("\n");
  const first = nl === -1 ? text : text.slice(0, nl + 1);
  if (output.returncode !== 0 || first.trim() !== SUBMIT_SENTINEL) return undefined;
  return nl === -1 ? "" : text.slice(nl + 1);
}

/**
 * Throw {@link Submitted} when an output is a submission.
 * @throws {Submitted} carrying the exit message with the submission
 */
export function checkSubmission(output: ExecOutput): void {
  const submission = submissionOf(output);
  if (submission !== undefined) throw new Submitted(exitMessage("Submitted", submission));
}

/**
 * The observation upstream records for a tool call whose action never ran (a submission or an
 * interruption ended the step first): its output is this, not a command's.
 */
export const NOT_EXECUTED: Readonly<ExecOutput> = Object.freeze({
  output: "",
  returncode: -1,
  exception_info: "action was not executed",
});
