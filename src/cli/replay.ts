/**
 * `claudius replay TRAJECTORY`: play a recorded run back through claudius's loop, no model and no
 * commands (each call answered with the recorded response, each command with its recorded output),
 * and exit 0 only if every message claudius sends with each call and every message it records is
 * the recorded one, byte for byte; else print the first difference.
 *
 * @module
 */
import { type CommandSpec, flag, parseCommandLine, UsageError } from "../lib/flags.ts";
import { renderHelp } from "../lib/help.ts";
import { sameFile } from "../lib/files.ts";
import { resolvePath } from "../lib/paths.ts";
import { readUtf8File } from "../lib/text_file.ts";
import type { Host } from "../core/host.ts";
import {
  checkSource,
  type ConfigSource,
  type ConfigTree,
  loadSpec,
  mergeTrees,
  resolveConfig,
} from "../core/config/load.ts";
import { configSchema } from "./schema.ts";
import { upstreamLookup } from "./_shared.ts";
import { EPISODE_FLAGS } from "./run_flags.ts";
import { readRecording, type Recording } from "../features/replay/recording.ts";
import { REGISTRY } from "./classes.ts";
import { replay, type ReplayOutcome } from "../features/replay/replay_run.ts";
import { isPlainObject } from "../lib/json.ts";
import type { RecordedConfig } from "../features/resume/recorded_config.ts";
import { isRestartNote, recordedAgent, resumedPhases } from "./replay_parts.ts";

/** The flags of `claudius replay`. */
export const REPLAY_FLAGS = {
  config: flag({
    ...EPISODE_FLAGS.config,
    doc: "a config spec on top of the recorded config (does the change leave what the model sees as it " +
      "was?); repeatable",
  }),
  task: flag({
    type: "string",
    short: "t",
    value: "TEXT",
    doc: "the task, when it cannot be read back from the recorded instance message",
  }),
  "task-file": flag({ type: "string", value: "FILE", complete: "file", doc: "read the task from FILE" }),
  output: flag({
    type: "string",
    short: "o",
    value: "FILE",
    complete: "file",
    doc: "keep the trajectory claudius records while replaying (default: none is kept)",
  }),
  help: EPISODE_FLAGS.help,
} as const;

/** `claudius replay`. */
export const SPEC: CommandSpec<typeof REPLAY_FLAGS> = {
  name: "claudius replay",
  summary: "play a trajectory back through the loop; exit 0 only if every message is the same",
  usage: ["TRAJECTORY [options]"],
  examples: [
    ["claudius replay runs/x.traj.json", "is every message what claudius sends and records?"],
    ["claudius replay up.traj.json -c my.yaml", "does my config change what the model sees?"],
  ],
  description: "Runs claudius's own loop on a recorded run, claudius's or upstream mini-swe-agent's, " +
    "without a model or commands: each model call gets the recorded response (the model class still " +
    "builds the message from it), each command the output its observation recorded (extra.raw_output). " +
    "Every message sent with each call and every message recorded is compared with the trajectory's, " +
    "as JSON text, byte for byte, key order included; only extra.timestamp (a clock reading) is taken " +
    "from the recording. The recorded config is used (upstream's class names mapped), -c specs on top; " +
    "the task and the uname fields, which trajectories do not record, are read back from the first two " +
    "messages. A trajectory without raw outputs cannot be replayed: ProgramBench's runner drops " +
    "raw_output, upstream v1 never kept it.",
  flags: REPLAY_FLAGS,
  positionals: { min: 1, max: 1, name: "TRAJECTORY (a trajectory file)" },
  sections: [[
    "Exit codes",
    "0 every message the same; 1 a difference (the first is printed); 2 a trajectory that cannot be " +
    "replayed, or bad flags.",
  ]],
};

/** A recorded config with the specs on top, resolved; upstream classes without a counterpart refused. */
async function replayConfig(recording: Recording, recorded: RecordedConfig, specs: string[], host: Host) {
  const schema = configSchema();
  const configDir = host.env.MSWEA_CONFIG_DIR;
  const io = {
    schema,
    builtinDir: host.builtinDir,
    upstream: upstreamLookup(host),
    readTextFile: readUtf8File,
    ...(configDir ? { configDir } : {}),
  };
  const base: ConfigSource = {
    spec: recording.path,
    path: recording.path,
    data: structuredClone(recorded.tree!),
  };
  const sources = [base];
  for (const spec of specs) sources.push(await loadSpec(spec, io, host.err));
  for (const source of sources) await checkSource(schema, source, host.err);
  const merged = mergeTrees(...sources.map((s) => s.data));
  const unnamed = recorded.unknownClasses.filter(({ key }) => {
    const [section = "", selector = ""] = key.split(".");
    return !isPlainObject(merged[section]) || (merged[section] as ConfigTree)[selector] === undefined;
  });
  if (unnamed.length > 0) {
    const types = unnamed.map(({ key, type, why }) =>
      `${key.split(".")[0]}_type '${type}'${why ? ` (${why})` : ""}`
    );
    throw new UsageError(
      `Cannot replay ${recording.path}: its ${types.join(" and ")} ${
        unnamed.length === 1 ? "is" : "are"
      } no ` +
        `claudius class: name ${unnamed.length === 1 ? "one" : "them"} with ` +
        unnamed.map(({ key }) => `-c ${key}=...`).join(" "),
    );
  }
  return resolveConfig(sources, { schema, hostEnv: host.env, warn: host.err });
}

/** The lines saying what the replay found. */
export function outcomeLines(outcome: ReplayOutcome, path: string): string[] {
  const { session, messages } = outcome;
  const r = session.recording;
  const d = session.divergence;
  if (d === undefined) {
    const ending = session.loopEnding
      ? `ends ${r.exitStatus}`
      : `its ending (${r.exitStatus || "none recorded"}) came from outside the loop and is not compared`;
    const compared = session.loopEnding || r.exitIndex < 0 ? r.messages.length : r.exitIndex;
    return [
      `claudius replay: ${path}: the same, byte for byte: ${compared} messages, ${session.calls} model calls, ` +
      `${r.outputs.length} command outputs played back; ${ending}`,
    ];
  }
  const at = r.messages[d.index] ?? messages[d.index];
  const role = at
    ? String((at as { role?: string; type?: string }).role ?? (at as { type?: string }).type)
    : "none";
  const lines = [
    `claudius replay: ${path} differs at message ${d.index + 1} of ${outcome.total} (${role}), in ${d.where}`,
  ];
  if (d.field) {
    lines.push(`  field: ${d.field.path || "(the whole message)"}: ${d.field.what}`);
    lines.push(`  recorded: ${d.field.recorded}`, `  claudius: ${d.field.replayed}`);
  }
  if (d.note) lines.push(`  ${d.note}`);
  if (outcome.stopped && !d.note) lines.push(`  (${outcome.stopped})`);
  return lines;
}

/**
 * Run `claudius replay`.
 * @returns 0 when every message is the same, 1 at a difference
 * @throws {UsageError} for bad flags or a trajectory that cannot be replayed
 */
export async function main(argv: string[], host: Host): Promise<number> {
  const { values, positionals } = parseCommandLine(REPLAY_FLAGS, argv);
  if (values.help) return (host.out(renderHelp(SPEC) + "\n"), 0);
  if (positionals.length !== 1) {
    throw new UsageError(`replay needs one trajectory file, got ${positionals.length}`);
  }
  if (values.task !== undefined && values["task-file"] !== undefined) {
    throw new UsageError("replay takes --task or --task-file, not both");
  }
  const path = resolvePath(positionals[0]!, host.cwd);
  const taskFile = values["task-file"];
  const task = taskFile === undefined ? values.task : await readUtf8File(resolvePath(taskFile, host.cwd));
  const keep = values.output === undefined ? undefined : resolvePath(values.output, host.cwd);
  if (keep !== undefined && (keep === path || await sameFile(keep, path))) {
    throw new UsageError(
      `replay -o names the trajectory being replayed (${path}), which is never changed; give another file`,
    );
  }
  const recording = await readRecording(path, REGISTRY, isRestartNote);
  const specs = values.config ?? [];
  const config = await replayConfig(recording, recording.config, specs, host);
  const phases = await resumedPhases(
    recording,
    config,
    (recorded) => replayConfig(recording, recorded, specs, host),
    host.err,
  );
  const makeAgent = await recordedAgent(config);
  const dir = keep === undefined ? await Deno.makeTempDir({ prefix: "claudius-replay-" }) : undefined;
  try {
    const outcome = await replay({
      recording,
      config,
      ...(phases ? { phases } : {}),
      ...(makeAgent ? { makeAgent } : {}),
      outputPath: keep ?? `${dir}/replay.traj.json`,
      ...(task !== undefined ? { task } : {}),
      deps: { hostEnv: host.env, cwd: host.cwd, log: host.err },
    });
    const lines = outcomeLines(outcome, positionals[0]!);
    if (outcome.session.divergence) lines.forEach((l) => host.err(l));
    else lines.forEach((l) => host.out(l + "\n"));
    return outcome.session.divergence ? 1 : 0;
  } finally {
    if (dir !== undefined) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
