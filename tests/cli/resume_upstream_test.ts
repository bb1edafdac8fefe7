/**
 * `claudius resume` of upstream's own trajectory files, as a subprocess against the loopback server,
 * with no `-c ..._class=` flag: upstream's recorded dotted class names pick claudius's classes, and
 * the resumed run sends byte for byte what upstream itself sent at that point (the conformance
 * golden, made by running upstream's Python code: tests/testdata/conformance/gen_conformance.py).
 */
import { assertEquals } from "../_support/assert.ts";
import { startFakeServer } from "../_support/fake_server.ts";
import { loadScript, type ScriptReply } from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const CONFORMANCE = new URL("../testdata/conformance/", import.meta.url).pathname;

async function uname(flag: string): Promise<string> {
  const out = await new Deno.Command("uname", { args: [flag] }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** The golden's placeholders for what differs between machines. */
async function normalise(value: unknown, cwd: string): Promise<Json> {
  let text = JSON.stringify(value).replaceAll(cwd, "<CWD>");
  for (const [flag, placeholder] of [["-v", "<VERSION>"], ["-r", "<RELEASE>"], ["-n", "<NODE>"]]) {
    text = text.replaceAll(JSON.stringify(await uname(flag!)).slice(1, -1), placeholder!);
  }
  return JSON.parse(text);
}

for (const scenario of ["toolcall", "text"]) {
  Deno.test(`claudius resume of upstream's own trajectory (${scenario} mode) needs no class flag and sends what upstream sent`, async () => {
    const golden = JSON.parse(await Deno.readTextFile(`${CONFORMANCE}${scenario}_golden.json`));
    const upstream = JSON.parse(await Deno.readTextFile(`${CONFORMANCE}${scenario}_upstream.traj.json`));
    const replies = await loadScript(`${CONFORMANCE}${golden.replies}`);
    // Upstream stopped at a step limit after four calls: its messages up to the fifth request, then
    // upstream's own LimitsExceeded ending.
    const calls = 4;
    const sent = golden.requests[calls].messages.length;
    const dir = await Deno.makeTempDir();
    const cwd = `${dir}/ws`;
    await Deno.mkdir(cwd);
    const cut = {
      ...upstream,
      info: {
        ...upstream.info,
        exit_status: "LimitsExceeded",
        submission: "",
        model_stats: { instance_cost: 0.04, api_calls: calls },
      },
      messages: [
        ...upstream.messages.slice(0, sent),
        { role: "exit", content: "LimitsExceeded", extra: { exit_status: "LimitsExceeded", submission: "" } },
      ],
    };
    assertEquals(cut.info.config.model_type.startsWith("minisweagent.models."), true);
    await Deno.writeTextFile(`${dir}/up.traj.json`, JSON.stringify(cut, null, 2).replaceAll("<CWD>", cwd));
    // The ids upstream's server gave these replies (they derive from each reply's place in the script).
    const later: ScriptReply[] = replies.slice(calls).map((r, i) => {
      if (!("commands" in r) || !r.commands) return r;
      const { commands, ...rest } = r;
      return {
        ...rest,
        tool_calls: commands.map((command, j) => ({
          id: `call_${calls + i}_${j}`,
          type: "function" as const,
          function: { name: "bash", arguments: JSON.stringify({ command }) },
        })),
      };
    });
    const server = await startFakeServer(later);
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "resume", "up.traj.json", "--base-url", server.url, "-o", "next.traj.json"],
        cwd: dir,
        env: { NO_COLOR: "1" },
        stdin: "null",
      }).output();
      assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
      const bodies = await normalise(server.requests.map((r) => r.body), cwd) as Json[];
      const want = golden.requests.slice(calls) as Json[];
      assertEquals(bodies, want);
      assertEquals(bodies.map((b) => JSON.stringify(b)), want.map((b) => JSON.stringify(b)));
      const next = JSON.parse(await Deno.readTextFile(`${dir}/next.traj.json`));
      assertEquals(next.info.exit_status, "Submitted");
      const { model_type, environment_type, agent_type } = next.info.config;
      assertEquals([model_type, environment_type, agent_type], [
        scenario === "text" ? "claudius.models.OpenAITextbasedModel" : "claudius.models.OpenAIModel",
        "claudius.environments.LocalEnvironment",
        "claudius.agent.DefaultAgent",
      ]);
    } finally {
      await server.close();
    }
  });
}
