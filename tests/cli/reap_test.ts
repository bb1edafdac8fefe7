/**
 * `claudius reap` as a subprocess against the real engines: it says what it looked at when it finds
 * nothing to remove (silence read as "clean" after a podman run, whose containers only
 * `--executable podman` finds).
 */
import { assertEquals, assertMatch } from "../_support/assert.ts";
import { ENGINES, inCI } from "../_support/engines.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PERMS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env", "--allow-net", "--allow-sys"];

async function reap(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, MAIN, "reap", ...args],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

for (const e of ENGINES) {
  Deno.test({
    name:
      `claudius reap [${e.name}]: removed containers on stdout, else one line saying which engine was clean`,
    ignore: !inCI && !e.available,
    fn: async () => {
      const args = e.name === "podman" ? ["--executable", "podman"] : [];
      // A first pass may remove what dead runs of other tests left; the second finds nothing.
      await reap(args);
      const r = await reap(args);
      assertEquals([r.code, r.stdout], [0, ""], r.stderr);
      assertMatch(
        r.stderr,
        e.name === "docker"
          ? /^claudius reap: nothing to remove on the default docker engine \(podman's: --executable podman\)\n$/
          : /^claudius reap: nothing to remove on the default podman engine\n$/,
      );
    },
  });
}
