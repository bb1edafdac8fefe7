/**
 * Verification gate: a submission is refused, with a configurable message the model sees as the
 * submitting command's output, until a check has passed. Modes: `declared` (Daemon's: `exit` is
 * refused with "run the tests first", `exit-verified` ends: here the first submission is refused and
 * the next accepted), `observed` (a command matching `check_regex` exited 0 after the last command
 * matching `write_regex`), `harness` (the harness runs `test_command` at the submission).
 *
 * @module
 */
import { submissionOf } from "../../core/submission.ts";
import { ConfigError } from "../../core/errors.ts";
import { renderTemplate } from "../../lib/python/template/template.ts";
import { lastCodePoints } from "../../lib/capture.ts";
import type { ExecOutput } from "../../core/types.ts";
import type { Mechanism, MechanismContext } from "./mechanism.ts";

/** How much of the harness's test output the refusal shows (its end). */
const TEST_OUTPUT_CHARS = 5000;

/** The `verify` switch. */
export function verificationGate({ config }: MechanismContext): Mechanism {
  const c = config.verify;
  if (c.mode === "harness" && !c.test_command.trim()) {
    throw new ConfigError("Config key 'mechanisms.verify.test_command' must be set for mode 'harness'");
  }
  const check = new RegExp(c.check_regex, "m");
  const write = new RegExp(c.write_regex, "m");
  let passed = false;
  let refusals = 0;
  let testRuns = 0;
  let acceptedUnverified = false;
  return {
    name: "verify",
    async observe(action, output, loop) {
      if (c.mode === "observed") {
        if (write.test(action.command)) passed = false;
        if (check.test(action.command) && output.returncode === 0) passed = true;
      }
      const submission = submissionOf(output);
      if (submission === undefined) return output;
      const vars: Record<string, unknown> = { mode: c.mode, test_command: c.test_command };
      if (c.mode === "harness") {
        const test = await loop.execute({ command: c.test_command });
        testRuns++;
        passed = test.returncode === 0;
        vars.test_returncode = test.returncode;
        vars.test_output = lastCodePoints(test.output, TEST_OUTPUT_CHARS);
      } else if (c.mode === "declared") {
        passed = refusals > 0;
      }
      if (passed) return output;
      if (c.max_refusals > 0 && refusals >= c.max_refusals) {
        acceptedUnverified = true;
        return output;
      }
      refusals++;
      const message = renderTemplate(
        c.message,
        { ...loop.vars(), test_returncode: "", test_output: "", ...vars, refusals },
        "mechanisms.verify.message",
      );
      return refusal(output, message, { refused: true, mode: c.mode, refusals, submission });
    },
    reset() {
      passed = false;
      refusals = 0;
    },
    facts: () => ({
      refusals,
      verified: passed,
      ...(c.mode === "harness" ? { test_runs: testRuns } : {}),
      ...(acceptedUnverified ? { accepted_unverified: true } : {}),
    }),
  };
}

/** The submitting command's output replaced by the refusal the model sees (its record under `extra.verification`). */
function refusal(output: ExecOutput, message: string, verification: Record<string, unknown>): ExecOutput {
  return { output: message, returncode: 1, exception_info: "", extra: { ...output.extra, verification } };
}
