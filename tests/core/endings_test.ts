import { assertEquals } from "../_support/assert.ts";
import { excludedEnding, INFRASTRUCTURE_STATUSES } from "../../src/core/endings.ts";

Deno.test("excludedEnding(): the infrastructure's endings, a failed start, no end and the global limit count in no rate", () => {
  const why = (status: string, messages = 4, content = "") => excludedEnding({ status, messages, content });
  assertEquals(
    [...INFRASTRUCTURE_STATUSES].map((s) => why(s)),
    [...INFRASTRUCTURE_STATUSES],
  );
  assertEquals([...INFRASTRUCTURE_STATUSES].sort(), [
    "APIConnectionError",
    "APIError",
    "AuthenticationError",
    "EnvironmentLost",
    "Hangup",
    "InternalServerError",
    "Interrupted",
    "NotFoundError",
    "PermissionDeniedError",
    "Quit",
    "RateLimitError",
    "ServiceUnavailableError",
    "Terminated",
    "Timeout",
  ]);
  assertEquals(why(""), "not ended");
  assertEquals(why("RuntimeError", 1), "RuntimeError before the model was reached");
  assertEquals(
    why("RuntimeError", 4, "Global cost/call limit exceeded: $1.0000 / 3"),
    "stopped by the global cost/call limit",
  );
  // The agent's own endings are verdicts, failures included.
  for (
    const s of [
      "Submitted",
      "LimitsExceeded",
      "RepeatedFormatError",
      "ContextWindowExceededError",
      "RuntimeError",
      "BadRequestError",
      "ContentPolicyViolationError",
    ]
  ) {
    assertEquals(why(s), undefined, s);
  }
});
