import { assert, assertEquals, assertRejects, assertThrows } from "../_support/assert.ts";
import { ConfigError } from "../../src/core/errors.ts";
import {
  claimLeaseMs,
  Claims,
  DirLock,
  Lease,
  LeaseLost,
  leaseMs,
  parseClaim,
} from "../../src/batch/_claims.ts";
import { parseStat, runsSince } from "../../src/batch/_proc.ts";

const claim = {
  pid: 7,
  host: "n",
  started: "2026-01-01T00:00:00.000Z",
  pid_start: "99",
  boot_id: "b",
  pid_ns: "pid:[1]",
  token: "t",
  renewed: "2026-01-01T00:00:00.000Z",
  expires: "2026-01-01T00:01:00.000Z",
};

Deno.test("parseClaim() reads a whole claim and nothing else", () => {
  assertEquals(parseClaim(JSON.stringify({ ...claim, extra: 1 })), claim);
  assertEquals(claimLeaseMs(claim), 60_000);
  for (
    const text of [
      "null",
      "[]",
      "{}",
      "7",
      '"x"',
      '{"pid": 7',
      JSON.stringify({ ...claim, pid: 0 }),
      JSON.stringify({ ...claim, pid: 1.5 }),
      JSON.stringify({ ...claim, host: 3 }),
      JSON.stringify({ ...claim, token: "" }),
      JSON.stringify({ ...claim, expires: "later" }),
    ]
  ) assertEquals(parseClaim(text), undefined, text);
});

Deno.test("parseStat() counts fields after the last ')' and runsSince() refuses zombies and other start times", () => {
  const stat = (state: string) => `42 (a) b) ${state} 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9876 0 0`;
  assertEquals(parseStat(stat("S")), { state: "S", start: "9876" });
  assertEquals(runsSince(parseStat(stat("S")), "9876"), true);
  assertEquals(runsSince(parseStat(stat("Z")), "9876"), false);
  assertEquals(runsSince(parseStat(stat("S")), "9875"), false);
  assertEquals(runsSince(undefined, "9876"), false);
  assertEquals(parseStat("garbage"), undefined);
});

Deno.test("leaseMs() reads CLAUDIUS_LEASE_SECONDS, 60 s by default, at most a day, and names the variable when it is bad", () => {
  assertEquals(leaseMs({}), 60_000);
  assertEquals(leaseMs({ CLAUDIUS_LEASE_SECONDS: "2.5" }), 2500);
  assertEquals(leaseMs({ CLAUDIUS_LEASE_SECONDS: "86400" }), 86_400_000);
  // 1e7 s overflowed the renewal timer (it fired at once, over and over); 1e20 gave no expiry date.
  for (const bad of ["0", "-1", "x", "Infinity", "86401", "1e7", "1e20"]) {
    assertThrows(
      () => leaseMs({ CLAUDIUS_LEASE_SECONDS: bad }),
      ConfigError,
      `CLAUDIUS_LEASE_SECONDS must be a number of seconds from 1 to 86400 (a day), got '${bad}'`,
    );
  }
});

Deno.test("Lease: a write runs only while the claim is this process's; a claim not confirmed for most of its lease stops", async () => {
  const out = await Deno.makeTempDir({ prefix: "claudius-lease-" });
  const lock = await DirLock.open(out);
  let now = Date.parse("2030-01-01T00:00:00Z");
  const claims = new Claims(out, lock, { leaseMs: 60_000, now: () => now });
  try {
    const lease = await claims.claim("a");
    assert(lease instanceof Lease);
    assertEquals(await lease.hold(() => Promise.resolve("written")), "written");
    now += 44_000;
    lease.check(); // within three quarters of the lease
    now += 2_000;
    assertThrows(() => lease.check(), LeaseLost, "was last confirmed 46 s ago, most of its 60 s lease");
    assert(lease.signal.aborted);
    let wrote = false;
    await assertRejects(() => lease.hold(() => Promise.resolve(void (wrote = true))), LeaseLost);
    assertEquals(wrote, false);

    // Taken over: found at the next write, which does not happen.
    const b = await claims.claim("b");
    assert(b instanceof Lease);
    const taker = JSON.parse(await Deno.readTextFile(claims.path("b")));
    await Deno.writeTextFile(
      claims.path("b"),
      JSON.stringify({ ...taker, pid: 4242, host: "nodec", token: "theirs" }),
    );
    await assertRejects(
      () => b.hold(() => Promise.resolve(void (wrote = true))),
      LeaseLost,
      "was taken over by pid 4242 on nodec while this ran",
    );
    assertEquals(wrote, false);
    assert(!(await lock.with(() => claims.heldLocked("b"))));
  } finally {
    claims.close();
    lock.close();
  }
});
