import { assert, assertEquals, assertRejects } from "../_support/assert.ts";
import { NO_TMPFS, withTmpfs } from "../_support/tmpfs.ts";
import { classifyTrajectory, ResultFiles } from "../../src/batch/_results.ts";
import type { Message } from "../../src/core/types.ts";
import { DirLock } from "../../src/batch/_claims.ts";

Deno.test("ResultFiles keeps both writers' predictions when two flush preds.json at once", async () => {
  const dir = await Deno.makeTempDir();
  // Two locks on one directory behave as two processes' (flock is per open file).
  const [lockA, lockB] = [await DirLock.open(dir), await DirLock.open(dir)];
  const a = new ResultFiles(dir, 0, lockA);
  const b = new ResultFiles(dir, 0, lockB);
  const pred = (id: string) => ({ model_name_or_path: "m", instance_id: id, model_patch: id });
  const writes: Promise<void>[] = [];
  for (let i = 0; i < 40; i++) {
    a.record(`a${i}`, "Submitted", pred(`a${i}`));
    b.record(`b${i}`, "Submitted", pred(`b${i}`));
    writes.push(a.flush(), b.flush());
    await new Promise((r) => setTimeout(r, 0));
  }
  await Promise.all([...writes, a.close(), b.close()]);
  lockA.close();
  lockB.close();
  const preds = JSON.parse(await Deno.readTextFile(`${dir}/preds.json`));
  assertEquals(Object.keys(preds).length, 80);
  // Two invocations started in the same second get their own exit-status files.
  assertEquals([a.statusesPath, b.statusesPath].sort(), [
    `${dir}/exit_statuses_0-2.yaml`,
    `${dir}/exit_statuses_0.yaml`,
  ]);
});

Deno.test({
  name:
    "ResultFiles on a full disk: the writes fail, preds.json keeps the last whole write, no preds.json.tmp-* is left",
  ignore: NO_TMPFS,
  fn: () =>
    withTmpfs("64k", async (dir) => {
      const lock = await DirLock.open(dir);
      const files = new ResultFiles(dir, 0, lock);
      try {
        // Each prediction holds a 6 KB patch: preds.json outgrows the disk after a few instances.
        for (let i = 0; i < 12; i++) {
          files.record(`i${i}`, "Submitted", {
            model_name_or_path: "m",
            instance_id: `i${i}`,
            model_patch: "x".repeat(6000),
          });
          await files.flush();
        }
        await assertRejects(() => files.close(), Error, "No space left");
      } finally {
        lock.close();
      }
      const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.includes(".tmp"));
      assertEquals(left, []);
      const kept = JSON.parse(await Deno.readTextFile(`${dir}/preds.json`));
      assert(Object.keys(kept).length >= 1 && Object.keys(kept).length < 12, Object.keys(kept).join(" "));
    }),
});

const ran = (status: string, content = ""): Message[] => [
  { role: "system", content: "s" },
  { role: "user", content: "u" },
  { role: "user", content: "a" },
  { role: "exit", content, extra: { exit_status: status, submission: "" } },
];

Deno.test("classifyTrajectory(): a run that ended on the provider after the retries is not finished (a rerun redoes it)", () => {
  for (
    const s of [
      "APIConnectionError",
      "RateLimitError",
      "InternalServerError",
      "ServiceUnavailableError",
      "Timeout",
      "APIError",
      "AuthenticationError",
      "PermissionDeniedError",
      "NotFoundError",
    ]
  ) {
    assertEquals(classifyTrajectory(ran(s), {}).finished, false, s);
  }
  assertEquals(classifyTrajectory(ran("LeaseLost"), {}).finished, false);
  assertEquals(classifyTrajectory(ran("Submitted"), {}).finished, true);
  assertEquals(classifyTrajectory(ran("ContextWindowExceededError"), {}).finished, true);
  assertEquals(classifyTrajectory(ran("BadRequestError"), {}).finished, true);
  const lone: Message[] = [{
    role: "exit",
    content: "Cannot start",
    extra: { exit_status: "RuntimeError", submission: "" },
  }];
  assertEquals([classifyTrajectory(lone, {}).finished, classifyTrajectory(lone, {}).failedStart], [
    false,
    true,
  ]);
});
