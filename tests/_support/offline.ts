/**
 * A command run with no network but loopback: as root, in a network namespace of its own
 * (`unshare -n`, loopback brought up, nothing else), with the loopback fake server started inside it;
 * elsewhere (or where a container forbids namespaces), with every proxy variable and the npm registry
 * pointing at a closed port (Deno's fetches of npm packages and remote modules go through them); in
 * both, those variables are set. {@link offlineMode} says which.
 *
 * Run as a script (inside the namespace), it starts the server, runs the command and prints what it
 * did as JSON.
 *
 * @module
 */
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { startFakeServer } from "./fake_server.ts";

/** What {@link offline} runs. */
export interface OfflineCommand {
  cmd: string;
  args: string[];
  cwd: string;
  /** The whole environment of the command (nothing else is inherited). */
  env: Record<string, string>;
  /** Replies of a loopback fake server; its base URL is given to the command as `OPENAI_API_BASE`. */
  replies?: ScriptReply[];
}

/** What the command did. */
export interface OfflineResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Requests the fake server received. */
  requests: number;
}

const CLOSED = "http://127.0.0.1:9";

/** The variables that send Deno's (and most programs') outgoing requests to a closed port. */
const NO_WAY_OUT: Record<string, string> = {
  HTTP_PROXY: CLOSED,
  HTTPS_PROXY: CLOSED,
  ALL_PROXY: CLOSED,
  NO_PROXY: "127.0.0.1,localhost",
  NPM_CONFIG_REGISTRY: `${CLOSED}/`,
};

let mode: "namespace" | "proxy variables" | undefined;

/** How {@link offline} cuts the network here: a namespace where `unshare -n` works (root), else the variables. */
export function offlineMode(): "namespace" | "proxy variables" {
  if (mode === undefined) {
    let ok = false;
    try {
      ok = Deno.build.os === "linux" && Deno.uid() === 0 &&
        new Deno.Command("unshare", { args: ["-n", "true"], stderr: "null" }).outputSync().success;
    } catch {
      // no unshare here
    }
    mode = ok ? "namespace" : "proxy variables";
  }
  return mode;
}

/** Run `c` with no network but loopback (see the module doc). */
export async function offline(c: OfflineCommand): Promise<OfflineResult> {
  const spec = JSON.stringify({ ...c, env: { ...c.env, ...NO_WAY_OUT } });
  const self = new URL(import.meta.url).pathname;
  const deno = [Deno.execPath(), "run", "-A", self, spec];
  const [cmd, ...args] = offlineMode() === "namespace" ? ["unshare", "-n", ...deno] : deno;
  const out = await new Deno.Command(cmd!, { args, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`Cannot run offline (exit ${out.code}): ${new TextDecoder().decode(out.stderr)}${text}`);
  }
  return JSON.parse(text);
}

async function inside(c: OfflineCommand): Promise<OfflineResult> {
  if (offlineMode() === "namespace") {
    const up = await new Deno.Command("ip", { args: ["link", "set", "lo", "up"] }).output();
    if (!up.success) throw new Error(`Cannot bring loopback up: ${new TextDecoder().decode(up.stderr)}`);
  }
  const server = c.replies ? await startFakeServer(c.replies) : undefined;
  try {
    const out = await new Deno.Command(c.cmd, {
      args: c.args,
      cwd: c.cwd,
      clearEnv: true,
      env: { ...c.env, ...(server ? { OPENAI_API_BASE: server.url } : {}) },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const d = new TextDecoder();
    return {
      code: out.code,
      stdout: d.decode(out.stdout),
      stderr: d.decode(out.stderr),
      requests: server?.requests.length ?? 0,
    };
  } finally {
    await server?.close();
  }
}

if (import.meta.main) console.log(JSON.stringify(await inside(JSON.parse(Deno.args[0]!))));
