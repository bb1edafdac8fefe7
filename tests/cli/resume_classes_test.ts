/**
 * A class is its module and its row: a model class and an environment class that only this test
 * defines, added to the registries as rows (injected, nothing patched), run by an episode, and the
 * run's trajectory resumed by `claudius resume` in process, which reads the new classes' recorded
 * types back from the rows and goes on with them.
 */
import { assert, assertEquals } from "../_support/assert.ts";
import { configIO } from "../_support/episode.ts";
import { REGISTRY } from "../../src/cli/classes.ts";
import { configSchema } from "../../src/cli/schema.ts";
import { resumeCommand } from "../../src/cli/resume.ts";
import { parseResumeArgs } from "../../src/cli/resume_flags.ts";
import type { Keys } from "../../src/core/config/keys.ts";
import { loadConfig } from "../../src/core/config/load.ts";
import { type Registry, runEpisode } from "../../src/core/episode.ts";
import type { EnvironmentContext, EnvironmentRow } from "../../src/core/environments/classes.ts";
import { LOCAL_KEYS, LocalEnvironment } from "../../src/core/environments/local.ts";
import type { ModelContext, ModelRow } from "../../src/core/models/classes.ts";
import { CHAT_MODEL_KEYS, ChatModel } from "../../src/core/models/model.ts";
import { ScriptedClient } from "../../src/core/models/extra/scripted.ts";
import type { Host } from "../../src/core/host.ts";
import type { Action, Environment, ExecOutput, Vars } from "../../src/core/types.ts";

/** An environment of this test only: local, and every command also noted in its `journal` file. */
class JournalEnvironment implements Environment {
  readonly type = "test.environments.JournalEnvironment";
  readonly config: Record<string, unknown>;
  readonly #local: LocalEnvironment;

  constructor(config: Record<string, unknown>, hostEnv: Record<string, string>) {
    const { journal, ...local } = config;
    this.#local = new LocalEnvironment(local, hostEnv);
    this.config = { ...this.#local.config, journal };
  }

  start(signal?: AbortSignal): Promise<void> {
    return this.#local.start(signal);
  }

  async execute(action: Action, signal?: AbortSignal): Promise<ExecOutput> {
    await Deno.writeTextFile(String(this.config.journal), `${action.command}\n`, { append: true });
    return await this.#local.execute(action, signal);
  }

  templateVars(): Vars {
    return { ...this.#local.templateVars(), journal: this.config.journal };
  }

  close(): Promise<void> {
    return this.#local.close();
  }
}

const JOURNAL_ROW: EnvironmentRow = {
  type: "test.environments.JournalEnvironment",
  keys: { ...LOCAL_KEYS, journal: { type: "string", required: "name the journal", doc: "The journal." } },
  doc: "local, with a journal of the commands",
  host: true,
  load: () =>
    Promise.resolve({
      createEnvironment: ({ own, deps }: EnvironmentContext) => new JournalEnvironment(own, deps.hostEnv),
    }),
};

/** A model of this test only: tool calls of the commands its `commands` key lists, one per call. */
const CANNED_KEYS = {
  ...CHAT_MODEL_KEYS,
  commands: { type: "string[]", required: "list the commands", doc: "What it answers, in turn." },
} as const satisfies Keys;

const CANNED_ROW: ModelRow = {
  type: "test.models.CannedModel",
  keys: CANNED_KEYS,
  doc: "answers the commands it is given",
  group: "test",
  format: "toolcall",
  load: () =>
    Promise.resolve({
      createModel: ({ own, row, priorCalls }: ModelContext) => {
        const commands = (own.commands as string[]).map((c) => ({ commands: [c] }));
        const client = new ScriptedClient(commands, { model_name: "canned", first: priorCalls });
        return Promise.resolve(new ChatModel(own, client, "toolcall", row.type));
      },
    }),
};

const registry: Registry = {
  ...REGISTRY,
  models: { ...REGISTRY.models, canned: CANNED_ROW },
  environments: { ...REGISTRY.environments, journal: JOURNAL_ROW },
};

/** A host for a command run in this process: no terminal, stderr collected. */
function testHost(cwd: string, err: string[]): Host {
  return {
    env: {},
    cwd,
    commandLine: ["claudius", "resume"],
    builtinDir: configIO().builtinDir,
    programFile: (path) => new URL(`../../${path}`, import.meta.url),
    origin: "checkout (test)",
    stdin: Deno.stdin,
    stdout: Deno.stdout,
    terminal: { stdin: false, stdout: false, stderr: false },
    out: () => {},
    err: (line) => err.push(line),
    errText: () => {},
    consoleSize: () => ({ columns: 80, rows: 24 }),
    machine: () => ({ cpus: 1, memory: 1 << 30 }),
    onSignal: () => () => {},
    exit: (code) => {
      throw new Error(`exit ${code}`);
    },
  };
}

Deno.test("a model class and an environment class added as rows run, and claudius resume goes on with them", async () => {
  const dir = await Deno.makeTempDir();
  const journal = `${dir}/journal.txt`;
  const commands = ["echo one", "echo two", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"];
  const overrides = {
    agent: { step_limit: 2 },
    run: { create_cwd: true },
    model: { model_class: "canned", commands },
    environment: { environment_class: "journal", journal, cwd: `${dir}/work` },
  };
  const io = configIO({ schema: configSchema(registry) });
  const { config } = await loadConfig(["default"], io, () => {}, { overrides });
  const first = `${dir}/first.traj.json`;
  const deps = { hostEnv: {}, log: () => {}, runId: "t", cwd: dir, classes: registry };
  const ran = await runEpisode(config, { task: "count", outputPath: first }, deps);
  assertEquals(ran.result.exit_status, "LimitsExceeded");
  const recorded = JSON.parse(await Deno.readTextFile(first)).info.config;
  assertEquals([recorded.model_type, recorded.environment_type], [CANNED_ROW.type, JOURNAL_ROW.type]);

  // Resumed with a higher limit: the recorded types name the new rows, and the script goes on at call 3.
  const err: string[] = [];
  const flags = parseResumeArgs([first, "-c", "agent.step_limit=5", "-o", `${dir}/second.traj.json`]);
  assert(flags !== "help");
  const code = await resumeCommand(flags, testHost(dir, err), registry);
  assertEquals(code, 0, err.join("\n"));
  const second = JSON.parse(await Deno.readTextFile(`${dir}/second.traj.json`));
  assertEquals(second.info.exit_status, "Submitted");
  assertEquals([second.info.config.model_type, second.info.config.environment_type], [
    CANNED_ROW.type,
    JOURNAL_ROW.type,
  ]);
  assertEquals(await Deno.readTextFile(journal), commands.join("\n") + "\n");
});
