import { assert, assertEquals } from "../_support/assert.ts";
import { after, MAX_TIMER_MS } from "../../src/lib/timers.ts";

Deno.test("after() fires once after its delay, never once cancelled, and not at once for a delay past the cap", async () => {
  const fired: string[] = [];
  after(5, () => fired.push("due"));
  const cancel = after(5, () => fired.push("cancelled"));
  cancel();
  const far = after(MAX_TIMER_MS * 10, () => fired.push("far"));
  // A pending operation keeps the process alive; after()'s timers do not.
  await new Promise((resolve) => setTimeout(resolve, 40));
  far();
  assertEquals(fired, ["due"]);
});

Deno.test("after(): deadlines fire in the order they fall due, a sooner one set after a later one included", async () => {
  const fired: string[] = [];
  after(60, () => fired.push("60"));
  after(30, () => fired.push("30"));
  const cancel = after(10, () => fired.push("10, cancelled"));
  after(20, () => {
    fired.push("20");
    after(5, () => fired.push("20+5"));
  });
  cancel();
  await new Promise((resolve) => setTimeout(resolve, 120));
  assertEquals(fired, ["20", "20+5", "30", "60"]);
});

Deno.test("after(): cancelled deadlines keep neither memory nor the process alive until their time (20,000 a minute long)", async () => {
  const script = `
    import { after } from ${JSON.stringify(new URL("../../src/lib/timers.ts", import.meta.url).href)};
    const used = () => { globalThis.gc(); return Deno.memoryUsage().heapUsed; };
    await new Promise((r) => setTimeout(r, 10));
    const before = used();
    for (let i = 0; i < 20000; i++) after(60000 + i, () => {})();
    await new Promise((r) => setTimeout(r, 50));
    console.log(used() - before);
  `;
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", script],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const grew = Number(new TextDecoder().decode(out.stdout).trim());
  // One AbortSignal.timeout per deadline kept ~600 bytes each: ~12 MB.
  assert(out.success && grew < 1_000_000, `the heap grew ${grew} bytes`);
  // Nothing pending: the process ended without waiting for the minute.
  assert(performance.now() - started < 20_000, "a cancelled deadline kept the process alive");
});
