import { assertEquals } from "../_support/assert.ts";
import { median } from "../../src/lib/median.ts";

Deno.test("median() is the middle value, the mean of the two middle ones, or 0 for none", () => {
  assertEquals([median([]), median([5]), median([3, 1, 2]), median([4, 1, 2, 3]), median([2, 1])], [
    0,
    5,
    2,
    2.5,
    1.5,
  ]);
  const huge = Number.MAX_VALUE;
  assertEquals(median([huge, huge, huge]), huge); // an odd count is not averaged (no overflow)
});
