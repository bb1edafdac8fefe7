/**
 * Batch test fixtures: an instances file plus one scripted-model script per instance, in a
 * temporary directory, and the config that plays them (`model.script` is a template over the
 * instance, so parallel workers each replay their own instance's script).
 *
 * @module
 */
import { loadConfig, type ResolvedConfig } from "../../src/core/config/load.ts";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import { configIO } from "./episode.ts";

/** One scripted instance. */
export interface ScriptedInstance {
  id: string;
  replies: ScriptReply[];
  /** Extra record fields. */
  fields?: Record<string, unknown>;
}

/** Paths of a written batch fixture. */
export interface BatchFixture {
  dir: string;
  instances: string;
  scripts: string;
  out: string;
  /** `-c` specs selecting the scripted model and its per-instance scripts. */
  specs: string[];
}

/** A reply running `commands` (bash tool calls). */
export function step(...commands: string[]): ScriptReply {
  return { content: "step", commands };
}

/** A reply that submits `patch`. */
export function submit(patch: string): ScriptReply {
  return { content: "done", commands: [`printf 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\n%s' '${patch}'`] };
}

/** Write the instances file (JSONL) and the scripts. */
export async function writeBatch(instances: ScriptedInstance[], dir?: string): Promise<BatchFixture> {
  dir ??= await Deno.makeTempDir({ prefix: "claudius-batch-" });
  const scripts = `${dir}/scripts`;
  await Deno.mkdir(scripts, { recursive: true });
  const lines: string[] = [];
  for (const inst of instances) {
    lines.push(
      JSON.stringify({ instance_id: inst.id, problem_statement: `Task ${inst.id}`, ...inst.fields }),
    );
    await Deno.writeTextFile(`${scripts}/${inst.id}.json`, JSON.stringify(inst.replies));
  }
  await Deno.writeTextFile(`${dir}/instances.jsonl`, lines.join("\n") + "\n");
  return {
    dir,
    instances: `${dir}/instances.jsonl`,
    scripts,
    out: `${dir}/out`,
    specs: ["model.model_class=scripted", `model.script=${scripts}/{{instance.instance_id}}.json`],
  };
}

/** The built-in default config plus `specs`, as main.ts resolves it. */
export async function config(specs: string[]): Promise<ResolvedConfig> {
  const { config } = await loadConfig(["default", ...specs], configIO(), () => {});
  return config;
}
