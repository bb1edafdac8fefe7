/**
 * The conformance scenarios (tests/testdata/conformance/) run by claudius, once per test process:
 * the trajectory claudius writes for each, beside the one upstream's own code wrote for it
 * (`<scenario>_upstream.traj.json`, made by gen_conformance.py).
 *
 * @module
 */
import { startFakeServer } from "../../_support/fake_server.ts";
import { loadScript } from "../../../src/core/models/extra/_script.ts";

const DIR = new URL("../../testdata/conformance/", import.meta.url).pathname;
const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

/** The golden scenarios by name. */
export const SCENARIOS = ["toolcall", "text"] as const;

/** One scenario as claudius ran it. */
export interface GoldenRun {
  /** claudius's trajectory of the scenario. */
  claudius: string;
  /** upstream's trajectory of the same scenario. */
  upstream: string;
  /** Machine-specific values claudius wrote and the placeholders upstream's file has instead. */
  placeholders: [string, string][];
}

async function uname(flag: string): Promise<string> {
  const out = await new Deno.Command("uname", { args: [flag] }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

async function run(scenario: string): Promise<GoldenRun> {
  const golden = JSON.parse(await Deno.readTextFile(`${DIR}${scenario}_golden.json`));
  const server = await startFakeServer(await loadScript(`${DIR}${golden.replies}`));
  const dir = await Deno.makeTempDir({ prefix: `claudius-golden-${scenario}-` });
  const cwd = `${dir}/ws`;
  try {
    const args = ["run", "-A", MAIN, "--task", golden.task, "-m", "test-model"];
    args.push("--model-class", golden.model_class, "--base-url", server.url);
    args.push("-c", golden.config.replace(/\.yaml$/, ""), "-c", "environment.timeout=2");
    args.push("--create-cwd", "--cwd", cwd, "-o", `${dir}/${scenario}.traj.json`);
    const out = await new Deno.Command(Deno.execPath(), { args, env: { NO_COLOR: "1" }, stdin: "null" })
      .output();
    if (out.code !== 0) {
      throw new Error(`claudius exited ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    }
  } finally {
    await server.close();
  }
  return {
    claudius: `${dir}/${scenario}.traj.json`,
    upstream: `${DIR}${scenario}_upstream.traj.json`,
    placeholders: [
      [cwd, "<CWD>"],
      [await uname("-v"), "<VERSION>"],
      [await uname("-r"), "<RELEASE>"],
      [await uname("-n"), "<NODE>"],
    ],
  };
}

const runs = new Map<string, Promise<GoldenRun>>();

/** Run the scenario with claudius (once per process) and return both trajectories' paths. */
export function goldenRun(scenario: string): Promise<GoldenRun> {
  let p = runs.get(scenario);
  if (!p) runs.set(scenario, p = run(scenario));
  return p;
}

/** Replace machine-specific values in any JSON-able value by upstream's placeholders. */
export function withPlaceholders<T>(value: T, placeholders: [string, string][]): T {
  let text = JSON.stringify(value);
  for (const [real, name] of placeholders) text = text.replaceAll(JSON.stringify(real).slice(1, -1), name);
  return JSON.parse(text);
}
