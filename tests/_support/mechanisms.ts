/**
 * Shared set-up of the mechanism tests: the scripted client, the real model layer, real bash in a
 * temporary directory (or a given environment), the mechanisms built from a `mechanisms` section,
 * and the trajectory written to disk as `runEpisode` writes it.
 */
import { DefaultAgent } from "../../src/core/agent.ts";
import type { AgentConfig } from "../../src/core/agent.ts";
import { resolveKeys } from "../../src/core/config/keys.ts";
import { LocalEnvironment } from "../../src/core/environments/local.ts";
import { MECHANISM_KEYS } from "../../src/features/mechanisms/keys.ts";
import { createMechanisms } from "../../src/features/mechanisms/mechanisms.ts";
import { CHAT_MODEL_KEYS, ChatModel } from "../../src/core/models/model.ts";
import { compileActionRegex } from "../../src/core/models/extra/_action_regex.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { ScriptedClient } from "../../src/core/models/extra/scripted.ts";
import { trajectoryInfo } from "../../src/core/trajectory_info.ts";
import { readTrajectory, TrajectoryWriter } from "../../src/core/trajectory.ts";
import type { Environment, Message, WireMessage } from "../../src/core/types.ts";
import * as PYREGEX from "../../src/lib/python/pyregex/pyregex.ts";

/** The agent section of the tests (short prompts). */
export const AGENT: AgentConfig = {
  system_template: "You are a test.",
  instance_template: "Task: {{task}}",
  step_limit: 0,
  cost_limit: 0,
  wall_time_limit_seconds: 0,
  max_consecutive_format_errors: 3,
  output_path: null,
};

/** Options of {@link setup}. */
export interface SetupOptions {
  text?: boolean;
  agent?: Partial<AgentConfig>;
  ask?: (question: string) => Promise<string | null>;
  /** An environment to use instead of a fresh local one (started by the caller). */
  env?: Environment;
  /** Files written into the working directory first. */
  files?: Record<string, string>;
  /** `git init` and commit the files first. */
  git?: boolean;
}

/** Run `bash -c script` in `cwd`; its output, or a thrown error when it fails. */
export async function bash(script: string, cwd: string): Promise<string> {
  const out = await new Deno.Command("bash", { args: ["-c", script], cwd, stdin: "null" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`Cannot run ${script}: ${text}`);
  return text;
}

/** An agent with the given mechanisms, its client, environment, working and output directories. */
export async function setup(
  replies: ScriptReply[],
  mechanisms: Record<string, unknown>,
  options: SetupOptions = {},
) {
  const cwd = await Deno.makeTempDir({ prefix: "claudius-mech-" });
  const out = await Deno.makeTempDir({ prefix: "claudius-mech-out-" });
  for (const [name, text] of Object.entries(options.files ?? {})) {
    await Deno.mkdir(`${cwd}/${name}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${cwd}/${name}`, text);
  }
  if (options.git) {
    await bash(
      "git init -q && git -c user.name=t -c user.email=t@t add -A && " +
        "git -c user.name=t -c user.email=t@t commit -qm init --allow-empty",
      cwd,
    );
  }
  const env = options.env ??
    new LocalEnvironment({ cwd, env: {}, timeout: 20, interpreter: ["bash", "-c"] }, {
      PATH: Deno.env.get("PATH")!,
    });
  if (!options.env) await env.start();
  const client = new ScriptedClient(replies, { model_name: "scripted", record: true });
  const format = options.text ? "text" : "toolcall";
  const regex = options.text ? compileActionRegex(CHAT_MODEL_KEYS.action_regex.default, PYREGEX) : undefined;
  const model = new ChatModel({}, client, format, "test", regex);
  const outputPath = `${out}/run.traj.json`;
  const config = resolveKeys(MECHANISM_KEYS, mechanisms, "mechanisms");
  const hooks = createMechanisms(config, {
    outputPath,
    format,
    ...(options.ask ? { ask: options.ask } : {}),
  });
  const writer = new TrajectoryWriter(outputPath);
  const agent = new DefaultAgent({ ...AGENT, ...options.agent }, model, env, {
    save: (a) => writer.save(a.messages, trajectoryInfo(a)),
    ...(hooks ? { hooks } : {}),
  });
  const run = async (task = "do it") => {
    try {
      return await agent.run(task);
    } finally {
      writer.close();
      if (!options.env) await env.close();
    }
  };
  const saved = async () => (await readTrajectory(outputPath)).data;
  return { agent, client, env, cwd, out, outputPath, run, saved };
}

/** The messages of each request, as the model received them. */
export function requestMessages(client: ScriptedClient): WireMessage[][] {
  return client.requests.map((r) => r.messages);
}

/** Role and content of each message (for compact comparisons). */
export function brief(messages: (Message | WireMessage)[]): [string, WireMessage["content"]][] {
  return messages.map((m) => [m.role, m.content]);
}
