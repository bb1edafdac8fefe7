/**
 * Shared by the interactive tests: the scenarios and upstream's goldens
 * (tests/testdata/interactive/), and how recorded messages and requests are made comparable.
 */
import { load } from "js-yaml";
import type { ScriptReply } from "../../src/core/models/extra/_script.ts";
import type { Json } from "../../src/core/types.ts";

export const DIR = new URL("../testdata/interactive/", import.meta.url).pathname;

/** One scenario of scenarios.yaml. */
export interface Scenario {
  name: string;
  config: string;
  model_class: string;
  agent: Record<string, unknown>;
  replies?: ScriptReply[];
  replies_file?: string;
  inputs: string[];
  timeout?: number;
}

/** What upstream showed, asked and recorded (gen_interactive.py). */
export interface Golden {
  result: { exit_status: string; submission: string };
  transcript: [string, string][];
  messages: Json[];
  requests: Json[];
  final_agent_config: Record<string, unknown>;
  task: string;
}

/** The scenarios, with their replies loaded. */
export async function scenarios(): Promise<Scenario[]> {
  const list = load(await Deno.readTextFile(`${DIR}scenarios.yaml`)) as Scenario[];
  for (const s of list) {
    if (s.replies_file) s.replies = load(await Deno.readTextFile(`${DIR}${s.replies_file}`)) as ScriptReply[];
  }
  return list;
}

/** The golden of a scenario. */
export async function golden(name: string): Promise<Golden> {
  return JSON.parse(await Deno.readTextFile(`${DIR}${name}_golden.json`));
}

/** The prompts, notices and inputs of a transcript (messages left out, adjacent texts joined). */
export function dialogue(transcript: [string, string][]): [string, string][] {
  const out: [string, string][] = [];
  for (const [kind, text] of transcript) {
    if (kind === "msg") continue;
    const last = out.at(-1);
    if (kind === "ui" && last?.[0] === "ui") last[1] += text;
    else out.push([kind, text]);
  }
  return out;
}

async function uname(flag: string): Promise<string> {
  const out = await new Deno.Command("uname", { args: [flag] }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** Messages or requests with the machine's values as the goldens' placeholders, timestamps dropped. */
export async function normalise(value: unknown, cwd: string): Promise<Json> {
  let text = JSON.stringify(value).replaceAll(cwd, "<CWD>");
  for (const [flag, placeholder] of [["-v", "<VERSION>"], ["-r", "<RELEASE>"], ["-n", "<NODE>"]]) {
    text = text.replaceAll(JSON.stringify(await uname(flag!)).slice(1, -1), placeholder!);
  }
  const parsed = JSON.parse(text);
  for (const m of parsed) if (m && typeof m === "object") delete m.extra?.timestamp;
  return parsed;
}
