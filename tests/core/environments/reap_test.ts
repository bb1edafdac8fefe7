/**
 * reapContainers() and `claudius reap` against real engines, Docker and Podman (each test under
 * both, see tests/_support/engines.ts): containers labelled as claudius labels them, for this machine
 * and others. Without an engine its tests are ignored, except when `CI` is set: there they fail.
 */
import { assertEquals, assertMatch } from "../../_support/assert.ts";
import { reapContainers } from "../../../src/core/environments/extra/reap.ts";
import { machineOwner, type Owner, ownerLabelArgs } from "../../../src/core/environments/extra/_engine.ts";
import { cli, type Engine, engineTest, TINY } from "../../_support/engines.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];

async function run(e: Engine, ...args: string[]): Promise<string> {
  const r = await cli(e, args);
  if (r.code !== 0) throw new Error(`Cannot run ${e.name} ${args[0]}: ${r.out}`);
  return r.out;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

/** Containers as claudius labels them: `name` -> owner labels (or only `claudius.pid` when no owner). */
async function startLabelled(
  e: Engine,
  tag: string,
  containers: Record<string, { owner: Owner | null; pid: number }>,
): Promise<string[]> {
  for (const [name, { owner, pid }] of Object.entries(containers)) {
    const labels = owner ? ownerLabelArgs(owner, pid) : ["--label", `claudius.pid=${pid}`];
    await run(
      e,
      "run",
      "-d",
      "--rm",
      "--name",
      name,
      "--label",
      `claudius.run=${tag}`,
      ...labels,
      TINY,
      "sleep",
      "60",
    );
  }
  return Object.keys(containers);
}

async function left(e: Engine, tag: string): Promise<string[]> {
  return (await run(e, "ps", "-a", "--filter", `label=claudius.run=${tag}`, "--format", "{{.Names}}"))
    .split("\n").filter((n) => n !== "").sort();
}

engineTest(
  "reapContainers() removes this machine's dead runs and keeps live ones and other machines'",
  async (e) => {
    const tag = `reap${Date.now().toString(36)}`;
    const me = await machineOwner();
    const elsewhere = { host: "other-host", machine: "0123456789abcdef", boot: me.boot };
    const dead = await deadPid();
    const names = await startLabelled(e, tag, {
      [`${tag}-dead`]: { owner: me, pid: dead },
      [`${tag}-init`]: { owner: me, pid: 1 },
      [`${tag}-live`]: { owner: me, pid: Deno.pid },
      [`${tag}-rebooted`]: { owner: { ...me, boot: "an-earlier-boot" }, pid: Deno.pid },
      [`${tag}-elsewhere`]: { owner: elsewhere, pid: dead },
      [`${tag}-unlabelled`]: { owner: null, pid: dead },
    });
    try {
      const report = await reapContainers(e.name);
      const mine = (ids: string[]) => ids.filter((n) => n.startsWith(tag)).sort();
      assertEquals(mine(report.removed), [`${tag}-dead`, `${tag}-init`, `${tag}-rebooted`]);
      assertEquals(mine(report.otherHosts), [`${tag}-elsewhere`, `${tag}-unlabelled`]);
      assertEquals(await left(e, tag), [`${tag}-elsewhere`, `${tag}-live`, `${tag}-unlabelled`]);
    } finally {
      await run(e, "rm", "-f", ...names).catch(() => "");
    }
  },
);

engineTest(
  "claudius reap --all-hosts also removes other machines' containers, and says what it kept without",
  async (e) => {
    const tag = `reapall${Date.now().toString(36)}`;
    const me = await machineOwner();
    const names = await startLabelled(e, tag, {
      [`${tag}-elsewhere`]: { owner: { host: "other-host", machine: "0123", boot: "x" }, pid: Deno.pid },
      [`${tag}-live`]: { owner: me, pid: Deno.pid },
    });
    const reap = async (...flags: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...PERMS,
          MAIN,
          "reap",
          ...(e.name === "podman" ? ["--executable", "podman"] : []),
          ...flags,
        ],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const d = new TextDecoder();
      return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
    };
    try {
      const plain = await reap();
      assertEquals(plain.code, 0, plain.stderr);
      assertMatch(
        plain.stderr,
        new RegExp(`kept \\d+ container\\(s\\) of runs on other machines .*--all-hosts.*${tag}-elsewhere`),
      );
      assertEquals(await left(e, tag), [`${tag}-elsewhere`, `${tag}-live`]);
      const all = await reap("--all-hosts");
      assertEquals(all.code, 0, all.stderr);
      assertMatch(all.stdout, new RegExp(`removed ${tag}-elsewhere`));
      assertEquals(await left(e, tag), [`${tag}-live`]);
    } finally {
      await run(e, "rm", "-f", ...names).catch(() => "");
    }
  },
);
