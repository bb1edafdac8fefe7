/**
 * BatchProgress and summaryLines(): what a batch prints about its instances, plain and live.
 */
import { assert, assertEquals } from "../_support/assert.ts";
import { BatchProgress, failedAlike, summaryLines } from "../../src/batch/progress.ts";
import type { BatchSummary } from "../../src/batch/run_batch.ts";

/** An id that would retitle the terminal, clear the screen and start a line of its own. */
const ID = "astropy\x1b]0;owned\x07__x\x1b[2J\nFAKE LINE";
/** A provider's error text with a cursor move and a carriage return. */
const ERROR = "ApiError: 500 \x1b[1A\x1b[Kgone\rSubmitted";

// deno-lint-ignore no-control-regex
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

Deno.test("BatchProgress plain lines show the control characters of ids, statuses and errors escaped", () => {
  let out = "";
  let t = 0;
  const p = new BatchProgress(2, { write: (s) => (out += s), live: false, now: () => t });
  p.start(ID, "unix:///run/\x1b[31mdocker.sock");
  t = 61_000;
  p.update(ID, 3, 0.5);
  p.finish(ID, "Err\x1b[0mor", ERROR);
  p.skip(`${ID}2`, "finished by \x1b[5manother process");
  p.log(`[${ID}] warning: ${ERROR}`);
  const lines = out.split("\n").slice(0, -1);
  for (const line of lines) assert(!RAW.test(line), JSON.stringify(line));
  assertEquals(lines, [
    "[0/2] start astropy\\x1b]0;owned\\x07__x\\x1b[2J\\nFAKE LINE on unix:///run/\\x1b[31mdocker.sock",
    "[1/2] astropy\\x1b]0;owned\\x07__x\\x1b[2J\\nFAKE LINE: Err\\x1b[0mor (3 steps, $0.50, 0:01:01): " +
    "ApiError: 500 \\x1b[1A\\x1b[Kgone\\rSubmitted",
    "astropy\\x1b]0;owned\\x07__x\\x1b[2J\\nFAKE LINE2: finished by \\x1b[5manother process",
    // A line logged as a whole keeps its own line breaks; its other controls are escaped.
    "[astropy\\x1b]0;owned\\x07__x\\x1b[2J",
    "FAKE LINE] warning: ApiError: 500 \\x1b[1A\\x1b[Kgone\\rSubmitted",
  ]);
});

Deno.test("BatchProgress live frame: a running id is one escaped row; only the display's own escapes are sent", () => {
  let out = "";
  const p = new BatchProgress(3, { write: (s) => (out += s), live: true, rows: () => 24, now: () => 0 });
  try {
    p.start(ID);
    p.start("plain-id", "ssh://h\x07");
    p.finish("other", "\x1b]52;c;ZXZpbA==\x07");
    const frame = p.frame();
    for (const line of frame) assert(!RAW.test(line), JSON.stringify(line));
    assertEquals(frame.length, 4, "one row per running instance, whatever its id holds");
    assert(frame[1]!.startsWith("\\x1b]52;c;ZXZpbA==\\x07 1"), frame[1]);
    assert(frame[2]!.includes("owned\\x07__x\\x1b[2J\\nFAKE LINE step"), frame[2]);
    assert(frame[3]!.includes("ssh://h\\x07"), frame[3]);
    p.log(`note: ${ID}`);
    p.stop();
    // What reached the terminal: the frames' cursor moves and line clears, nothing else.
    // deno-lint-ignore no-control-regex
    const foreign = out.replace(/\x1b\[\d+F|\x1b\[J|\x1b\[K/g, "");
    assert(!RAW.test(foreign.replaceAll("\n", "")), JSON.stringify(foreign));
  } finally {
    p.stop();
  }
});

Deno.test("summaryLines() escapes the ids and statuses it lists", () => {
  const summary: BatchSummary = {
    selected: 2,
    skipped: 0,
    elapsedMs: 1000,
    byStatus: { "Sub\x1b[8mmitted": [ID] },
    unfinished: [ID],
    notStarted: [],
    elsewhere: [`${ID} (pid 1 on h)`],
    globalLimitReached: false,
    predsPath: "",
    statusesPath: undefined,
    notPassAt1: false,
    interrupted: false,
  };
  const lines = summaryLines(summary);
  for (const line of lines) assert(!RAW.test(line), JSON.stringify(line));
  assertEquals(lines.slice(1), [
    "  Sub\\x1b[8mmitted: 1",
    "every instance run ended with Sub\\x1b[8mmitted: the batch failed (see the errors above; fix the cause and rerun)",
    "unfinished (rerun to retry): astropy\\x1b]0;owned\\x07__x\\x1b[2J\\nFAKE LINE",
    "left to other processes running them: astropy\\x1b]0;owned\\x07__x\\x1b[2J\\nFAKE LINE (pid 1 on h)",
  ]);
});

Deno.test("failedAlike() names the one error every instance ended with, and nothing for agents' endings, signals or a mix", () => {
  const summary = (byStatus: Record<string, string[]>): BatchSummary => ({
    selected: 2,
    skipped: 0,
    elapsedMs: 1000,
    byStatus,
    unfinished: [],
    notStarted: [],
    elsewhere: [],
    globalLimitReached: false,
    predsPath: "",
    statusesPath: undefined,
    notPassAt1: false,
    interrupted: false,
  });
  assertEquals(failedAlike(summary({ AuthenticationError: ["a", "b"] })), "AuthenticationError");
  assertEquals(failedAlike(summary({ EnvironmentLost: ["a", "b"] })), "EnvironmentLost");
  assertEquals(failedAlike(summary({ APIConnectionError: ["a"] })), "APIConnectionError");
  for (
    const byStatus of [
      { Submitted: ["a"] },
      { LimitsExceeded: ["a", "b"] },
      { Terminated: ["a"] },
      {
        LeaseLost: ["a"],
      },
      { ConfigError: ["a"], Submitted: ["b"] },
      {},
    ]
  ) {
    assertEquals(failedAlike(summary(byStatus)), undefined, JSON.stringify(byStatus));
  }
});
