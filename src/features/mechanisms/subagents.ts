/**
 * Sub-agents (Daemon's): the model writes a task file and runs `claudius TASK_FILE` as a command on
 * its own; the harness runs a child agent headless on that task, in the same environment (same
 * working directory, same container) with the same model and config, and hands back its ending and
 * a patch of what it changed. The child runs in the harness process, not inside the sandbox: the
 * sandbox needs neither the claudius program, nor network access to the model endpoint, nor the API
 * key (which the model could otherwise read there).
 *
 * The child's trajectory is written beside the parent's (`<stem>.sub<N>.traj.json`, its patch as
 * `<stem>.sub<N>.patch`) and links back (`info.parent`); the parent lists its children in
 * `info.mechanisms.subagents.children`. Costs and model calls roll up into the parent's
 * (`info.model_stats`), and the parent's remaining limits cap the child's.
 *
 * @module
 */
import { DefaultAgent, type RunResult } from "../../core/agent.ts";
import { TrajectoryWriter } from "../../core/trajectory.ts";
import { trajectoryInfo } from "../../core/trajectory_info.ts";
import { OUTPUT_SECRET_MIN_LENGTH } from "../../core/redact.ts";
import { SecretRedactor } from "../../core/secret_redactor.ts";
import { renderTemplate } from "../../lib/python/template/template.ts";
import type { ExecOutput, Message, Model } from "../../core/types.ts";
import type { Loop, Mechanism, MechanismContext } from "./mechanism.ts";
import { shellQuote } from "./_window.ts";
import { SAFE_DIFF_OPTIONS, SAFE_GIT } from "../../lib/safe_git.ts";

/**
 * Prints a git tree id of the working directory as it is (untracked files included, `.gitignore`
 * respected) without touching the repository's index or HEAD; exits non-zero outside a repository.
 * It runs where the model's commands run, with git's own programs off ({@link SAFE_GIT}).
 */
const SNAPSHOT = [
  SAFE_GIT,
  "g rev-parse --show-toplevel >/dev/null 2>&1 || exit 3",
  'idx="$(mktemp)" || exit 1',
  "trap 'rm -f \"$idx\"' EXIT",
  'cp "$(g rev-parse --git-path index)" "$idx" 2>/dev/null || rm -f "$idx"',
  'GIT_INDEX_FILE="$idx" g add -A . >/dev/null 2>&1 && GIT_INDEX_FILE="$idx" g write-tree',
].join("\n");

const diffCommand = (before: string, after: string) =>
  `${SAFE_GIT}\ng diff --binary ${SAFE_DIFF_OPTIONS} ${before} ${after}`;

/** One child, as the parent's `info.mechanisms.subagents.children` lists it. */
export interface ChildRecord {
  trajectory: string;
  task_file: string;
  exit_status: string;
  instance_cost: number;
  api_calls: number;
  patch?: string;
}

const stemOf = (path: string) => path.replace(/(\.traj)?\.json$/, "");
const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** The `subagents` switch. */
export function subagents(ctx: MechanismContext): Mechanism {
  const c = ctx.config.subagents;
  const depth = ctx.deps.depth ?? 0;
  const command = new RegExp(
    `^\\s*${c.command.replaceAll(".", "\\.")}\\s+(?:--task-file(?:\\s+|=))?('[^']*'|"[^"]*"|[^\\s'"]+)\\s*$`,
  );
  const children: ChildRecord[] = [];
  const failed = (output: string): ExecOutput => ({
    output: `${c.command}: ${output}\n`,
    returncode: 1,
    exception_info: "",
  });

  return {
    name: "subagents",
    start(loop) {
      if (depth + 1 > c.max_depth) return Promise.resolve({ subagents_instructions: "" });
      const vars = { ...loop.vars(), ...c };
      const text = renderTemplate(c.instructions, vars, "mechanisms.subagents.instructions");
      return Promise.resolve({ subagents_instructions: text });
    },
    async execute(action, loop) {
      const taskFile = command.exec(action.command)?.[1]?.replace(/^(['"])(.*)\1$/, "$2");
      if (taskFile === undefined) return undefined;
      if (depth + 1 > c.max_depth) {
        return failed(`sub-agents cannot start sub-agents here (max_depth ${c.max_depth})`);
      }
      if (c.max_count > 0 && children.length >= c.max_count) {
        return failed(`no more sub-agents: ${c.max_count} already ran (max_count)`);
      }
      const limits = childLimits(loop, c.step_limit);
      if (typeof limits === "string") return failed(limits);
      const read = await loop.execute({ command: `cat -- ${shellQuote(taskFile)}` });
      if (read.returncode !== 0) return failed(`cannot read ${taskFile}: ${read.output.trim()}`);
      if (!read.output.trim()) return failed(`${taskFile} is empty`);

      const n = children.length + 1;
      const path = `${stemOf(ctx.deps.outputPath)}.sub${n}.traj.json`;
      const before = await snapshot(loop);
      const child = await runChild(ctx, loop, { path, task: read.output, limits });
      const patch = before ? await patchSince(loop, before) : undefined;
      const record: ChildRecord = {
        trajectory: baseName(path),
        task_file: taskFile,
        exit_status: child.result.exit_status,
        instance_cost: child.cost,
        api_calls: child.nCalls,
      };
      if (patch !== undefined) {
        record.patch = `${baseName(stemOf(path))}.patch`;
        await Deno.writeTextFile(`${stemOf(path)}.patch`, child.redact(patch));
      }
      children.push(record);
      return childOutput(n, record, child, patch);
    },
    facts: () => ({ depth, children }),
  };
}

/** How a child run ended, what it cost, and how its outputs are redacted (as the parent's are). */
interface ChildRun {
  result: RunResult;
  cost: number;
  nCalls: number;
  redact: (text: string) => string;
}

/** Run a child agent headless on `task` in the parent's environment, saved to `path` as it goes. */
async function runChild(
  { config, deps, create }: MechanismContext,
  loop: Loop,
  run: { path: string; task: string; limits: Exclude<ReturnType<typeof childLimits>, string> },
): Promise<ChildRun> {
  const depth = deps.depth ?? 0;
  const writer = new TrajectoryWriter(run.path);
  const outputSecrets = deps.secrets?.filter((v) => v.length >= OUTPUT_SECRET_MIN_LENGTH);
  const redactor = new SecretRedactor(outputSecrets ?? []); // saved as the parent's are
  const shown = redactor.view<Message>();
  const shared = {
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.onMessage ? { onMessage: deps.onMessage } : {}),
  };
  const hooks = create(config, {
    outputPath: run.path,
    format: deps.format,
    depth: depth + 1,
    parent: { trajectory: baseName(deps.outputPath), depth },
    ...(deps.secrets ? { secrets: deps.secrets } : {}),
    ...shared,
  });
  const child = new DefaultAgent(
    { ...loop.config, ...run.limits, output_path: run.path },
    billedTo(loop),
    loop.env,
    {
      save: (a) => writer.save(shown(a.messages), redactor.value(trajectoryInfo(a, deps.secrets))),
      ...(outputSecrets ? { secrets: outputSecrets } : {}),
      ...shared,
      ...(hooks ? { hooks } : {}),
    },
  );
  const { task: _, ...vars } = loop.runVars;
  try {
    const result = await child.run(run.task, vars);
    return { result, cost: child.cost, nCalls: child.nCalls, redact: (text) => redactor.text(text) };
  } finally {
    writer.close();
  }
}

/** The patch from the tree `before` to the working directory now; undefined when git cannot say. */
async function patchSince(loop: Loop, before: string): Promise<string | undefined> {
  const after = await snapshot(loop);
  if (!after) return undefined;
  const diff = await loop.execute({ command: diffCommand(before, after) });
  return diff.returncode === 0 ? diff.output : undefined;
}

/** What the parent's model sees of a child: its ending, its submission and its patch. */
function childOutput(n: number, record: ChildRecord, child: ChildRun, patch: string | undefined): ExecOutput {
  const output = [
    `Sub-agent ${n} ended with ${child.result.exit_status} after ${child.nCalls} model calls ` +
    `($${child.cost.toFixed(4)}); its trajectory: ${record.trajectory}`,
    `<submission>\n${child.result.submission}</submission>`,
    patch === undefined
      ? "<patch>\n(none: the working directory is not a git repository, or git is missing)\n</patch>"
      : `<patch>\n${patch}</patch>`,
  ].join("\n");
  return {
    output: output + "\n",
    returncode: child.result.exit_status === "Submitted" ? 0 : 1,
    exception_info: "",
    extra: { subagent: record },
  };
}

/**
 * The parent's model as the child calls it: each call goes through the parent's loop, so the
 * parent's limits (and the global ones) hold for it, and it is counted and billed there too.
 */
function billedTo(loop: Loop): Model {
  const model = loop.model;
  return {
    config: model.config,
    type: model.type,
    query: (messages) => loop.call(messages, "tools"),
    ask: (messages) => loop.call(messages, "prose"),
    formatObservations: (message, outputs, vars) => model.formatObservations(message, outputs, vars),
    templateVars: () => model.templateVars(),
    ...(model.formatMessage ? { formatMessage: model.formatMessage.bind(model) } : {}),
  };
}

/** The child's limits: its own `step_limit` and what is left of the parent's; a string when nothing is left. */
function childLimits(
  loop: Loop,
  ownSteps: number,
): { step_limit: number; cost_limit: number; wall_time_limit_seconds: number } | string {
  const p = loop.config;
  const steps = p.step_limit > 0 ? p.step_limit - loop.nCalls : 0;
  const cost = p.cost_limit > 0 ? p.cost_limit - loop.cost : 0;
  const time = p.wall_time_limit_seconds > 0 ? p.wall_time_limit_seconds - loop.elapsedSeconds() : 0;
  if (p.step_limit > 0 && steps <= 0) return "no steps left for a sub-agent (loop.step_limit)";
  if (p.cost_limit > 0 && cost <= 0) return "no budget left for a sub-agent (loop.cost_limit)";
  if (p.wall_time_limit_seconds > 0 && time <= 0) return "no time left for a sub-agent";
  const step_limit = ownSteps > 0 && steps > 0 ? Math.min(ownSteps, steps) : ownSteps || steps;
  return { step_limit, cost_limit: cost, wall_time_limit_seconds: time };
}

/** A tree id of the working directory, or undefined outside a git repository (or without git). */
async function snapshot(loop: Loop): Promise<string | undefined> {
  const out = await loop.execute({ command: SNAPSHOT });
  const id = out.output.trim().split("\n").at(-1) ?? "";
  return out.returncode === 0 && /^[0-9a-f]{40,64}$/.test(id) ? id : undefined;
}
