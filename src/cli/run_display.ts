/**
 * What a single run shows on stderr: with `-v` every message whole (`display.ts`, loaded then); by
 * default the progress ({@link Progress}: at a terminal each step's commands and results, in a log one
 * line per command); with `-q` nothing but warnings and errors. An interactive run shows its own
 * screen. Then, unless `-q`, the summary with the commands to try next.
 *
 * @module
 */
import { runsOnHost } from "../core/environments/classes.ts";
import type { ResolvedConfig } from "../core/config/load.ts";
import type { Host } from "../core/host.ts";
import type { Environment, Message, StreamSink } from "../core/types.ts";
import { absolutePath, resolvePath } from "../lib/paths.ts";
import { Progress } from "./progress.ts";
import { type RunFlags, RUNS_DIR } from "./run_flags.ts";
import { shownPath } from "../lib/safe_text.ts";
import { DEFAULT_MODEL_CLASS, MODEL_CLASSES } from "../core/models/classes.ts";
import { PROVIDERS } from "../core/models/providers.ts";
import type { HeldRun } from "./summary.ts";

/**
 * Where an environment runs commands, in words: `workspace/x (local)`, `/testbed in a docker container
 * of python:3.12`.
 */
export function whereCommandsRun(cls: string, env: Environment, cwd: string): string {
  const dir = typeof env.config.cwd === "string" && env.config.cwd !== "" ? env.config.cwd : "/";
  if (runsOnHost(cls)) return `${shownPath(absolutePath(dir, cwd), cwd)} (${cls})`;
  const image = typeof env.config.image === "string" ? ` of ${env.config.image}` : "";
  const container = cls === "singularity" ? "a singularity sandbox" : `a ${cls} container`;
  return `${dir} in ${container}${image}`;
}

/** How the run is shown. */
export interface RunDisplay {
  /**
   * Receives every message as it is appended: the first is preceded by where commands run (the
   * run's first line, once the environment has started).
   */
  message: (m: Message) => void;
  /** Receives a streamed reply as it arrives (`-v` with `model.stream`). */
  stream?: StreamSink;
  /** The environment was built: where commands will run. */
  environment(env: Environment): void;
  /**
   * The end of the run: `status` is its exit status (the error's name when it failed); `held` the run
   * as it holds it, when it has it (else the file is read).
   */
  summary(status: string, note: string, outputPath: string, held?: HeldRun): Promise<void>;
}

/**
 * A note for a run that may spend without bound: a model that is not scripted nor a local server, no
 * `agent.cost_limit` and no `MSWEA_GLOBAL_COST_LIMIT` (the default config sets no cost limit;
 * upstream's mini.yaml sets $3).
 */
export function uncappedNote(config: ResolvedConfig, hostEnv: Record<string, string>): string | undefined {
  const { model, agent } = config;
  const cls = String(model.model_class ?? DEFAULT_MODEL_CLASS);
  const provider = String(model.model_name ?? "").split("/")[0] ?? "";
  const row = Object.hasOwn(MODEL_CLASSES, cls) ? MODEL_CLASSES[cls] : undefined;
  const free = row === undefined || row.group === "scripted" || PROVIDERS[provider]?.local === true;
  if (free || Number(agent.cost_limit ?? 0) > 0 || Number(hostEnv.MSWEA_GLOBAL_COST_LIMIT ?? 0) > 0) {
    return undefined;
  }
  return "note: no cost limit (agent.cost_limit 0); -l X stops the run at $X";
}

/**
 * The display of one run.
 * @param log writes one line to stderr (above an interactive prompt when there is one)
 * @param before a resumed run: the steps and cost of its predecessor
 */
export async function runDisplay(
  config: ResolvedConfig,
  flags: Pick<RunFlags, "verbose" | "quiet">,
  host: Host,
  log: (line: string) => void,
  before?: { steps: number; cost: number },
): Promise<RunDisplay> {
  const interactive = config.agent.agent_class === "interactive";
  const terminal = host.terminal.stderr;
  const color = terminal && !host.env.NO_COLOR;
  let message: ((m: Message) => void) | undefined;
  let stream: StreamSink | undefined;
  if (!interactive && !flags.quiet) {
    if (flags.verbose) {
      const { VerboseDisplay } = await import("./display.ts");
      const verbose = new VerboseDisplay(log, (text) => host.errText(text), color);
      message = (m) => verbose.message(m);
      stream = (e) => verbose.stream(e);
    } else {
      const columns = () => host.consoleSize().columns;
      const progress = new Progress(log, { terminal, color, columns, ...(before ? { before } : {}) });
      message = (m) => progress.message(m);
    }
  }
  const cls = String(config.environment.environment_class);
  let where: string | undefined;
  let begun = false;
  return {
    message: (m) => {
      // An exit message first: the run ended before its first step (a startup command failed).
      if (!begun && where && !flags.quiet && m.role !== "exit") {
        log(`claudius: commands run in ${where}`);
        const uncapped = terminal ? uncappedNote(config, host.env) : undefined;
        if (uncapped) log(uncapped);
      }
      begun = true;
      message?.(m);
    },
    ...(stream ? { stream } : {}),
    environment: (env) => (where = whereCommandsRun(cls, env, host.cwd)),
    summary: async (status, note, outputPath, held) => {
      if (flags.quiet) return;
      const { summaryLines } = await import("./summary.ts");
      const lines = await summaryLines({
        status,
        note,
        trajectory: resolvePath(outputPath, host.cwd),
        ...(held === undefined ? {} : { held }),
        cwd: host.cwd,
        ...(where ? { where } : {}),
        runsDir: resolvePath(RUNS_DIR, host.cwd),
        terminal,
        color,
      });
      for (const line of lines) log(line);
    },
  };
}
