/**
 * `claudius batch`: many episodes in one process. A pool of async workers (each bound to a docker
 * host when several are given) takes instances from one queue; every instance is one
 * {@link runEpisode} with its own abort controller and its trajectory in `<out>/<id>/<id>.traj.json`.
 * `preds.json` and the exit-status summary are rewritten atomically as instances finish. A rerun
 * skips finished instances (see `classifyTrajectory`) and redoes the rest.
 *
 * @module
 */
import type { ResolvedConfig } from "../config.ts";
import { exitMessage } from "../errors.ts";
import { resolvePath, runEpisode } from "../run.ts";
import { renderTemplate } from "../template.ts";
import { TrajectoryWriter } from "../trajectory.ts";
import type { Environment, Message } from "../types.ts";
import { instanceTask, loadInstances, swebenchImageName } from "./instances.ts";
import { type Instance, selectInstances, type Selection } from "./select.ts";
import { type Prediction, ResultFiles, trajectoryState } from "./_results.ts";
import { Claims, DirLock } from "./_claims.ts";
import { BatchProgress } from "./progress.ts";
import { GlobalLimits } from "../global_limits.ts";
import { type BatchMode, MODES } from "./modes.ts";

/** A docker engine and how many workers use it (undefined: a share of `workers`). */
export interface DockerHostSpec {
  host: string;
  capacity?: number;
}

/** What a batch runs. */
export interface BatchOptions {
  /** Instances file (JSON array / JSONL) or directory of task files. */
  instancesPath: string;
  /** Output directory (created). */
  outDir: string;
  /** Concurrent episodes (split over hosts without a capacity). */
  workers: number;
  /** The merged config every instance starts from. */
  config: ResolvedConfig;
  selection: Selection;
  /** Redo finished instances too. */
  redoExisting: boolean;
  /** Engines to spread containers over (empty: the default engine). */
  dockerHosts: DockerHostSpec[];
  verbose: boolean;
  /** A benchmark run as upstream's runner does it (see `modes.ts`); default `plain`. */
  mode?: BatchMode;
}

/** Everything impure a batch needs (main.ts passes the real ones). */
export interface BatchDeps {
  hostEnv: Record<string, string>;
  /** Directory relative paths are resolved against. */
  cwd: string;
  /** Progress output (stdout). */
  write: (text: string) => void;
  /** True when the output is a terminal: live display. */
  live: boolean;
  /** Terminal rows, for the live display. */
  rows?: () => number;
  /** Warnings and errors (stderr). */
  log: (line: string) => void;
  /** First signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT): start nothing more, end running episodes. */
  signal?: AbortSignal;
  /** Second signal: close every environment (bounded) and return at once. */
  force?: AbortSignal;
  now?: () => number;
}

/** How a batch ended. */
export interface BatchSummary {
  /** Instances after selection. */
  selected: number;
  /** Skipped because already finished. */
  skipped: number;
  /** Ids run by this invocation, by exit status. */
  byStatus: Record<string, string[]>;
  /** Ids of this invocation that are not finished (infrastructure failures, interrupted). */
  unfinished: string[];
  /** Selected ids never started (the batch was stopped). */
  notStarted: string[];
  /** Selected ids another live process was running (`<id> (pid P on H)`), left to it. */
  elsewhere: string[];
  /** The batch was stopped by a signal. */
  interrupted: boolean;
  /** `MSWEA_GLOBAL_COST_LIMIT` / `MSWEA_GLOBAL_CALL_LIMIT` was reached: no instance was started after. */
  globalLimitReached: boolean;
  /** `preds.json`, or "" when the mode writes none. */
  predsPath: string;
  /** This invocation's exit-status file; undefined when no instance ended (none was written). */
  statusesPath: string | undefined;
  elapsedMs: number;
  /** Some instance ran best-of-k (`mechanisms.reroll`): its result is not pass@1. */
  notPassAt1: boolean;
}

/** Seconds a forced stop may spend removing environments. */
const FORCE_CLOSE_SECONDS = 20;

/**
 * Assign worker slots to hosts: hosts with a capacity get that many slots, the others share
 * `workers` round robin; slots are interleaved so consecutive workers use different hosts.
 * No hosts: `workers` slots on the default engine (undefined).
 */
export function workerSlots(workers: number, hosts: DockerHostSpec[]): (string | undefined)[] {
  if (hosts.length === 0) return Array.from({ length: workers }, () => undefined);
  const shared = hosts.filter((h) => h.capacity === undefined);
  const counts = hosts.map((h) =>
    h.capacity ?? Math.floor(workers / shared.length) + (shared.indexOf(h) < workers % shared.length ? 1 : 0)
  );
  const slots: string[] = [];
  for (let round = 0; slots.length < counts.reduce((a, b) => a + b, 0); round++) {
    hosts.forEach((h, k) => round < counts[k]! && slots.push(h.host));
  }
  return slots;
}

/**
 * The config of one instance: `environment.image` (container classes), `environment.cwd`,
 * `run.env_startup_command` and `model.script` are rendered as templates over the record (its
 * fields at the top level, as upstream renders the startup command, and as `instance`). Without a
 * configured image, a container class uses `image_name` or SWE-bench's naming; without a
 * configured cwd, the local environment works in `<out>/<id>/workspace`.
 */
export function instanceConfig(base: ResolvedConfig, instance: Instance, outDir: string): ResolvedConfig {
  const config = structuredClone(base);
  const vars = { ...instance, instance };
  const render = (name: "environment" | "run" | "model", key: string) => {
    const section: Record<string, unknown> = config[name];
    const value = section[key];
    if (typeof value === "string") section[key] = renderTemplate(value, vars, `${name}.${key}`);
  };
  const env = config.environment;
  const cls = String(env.environment_class);
  if (cls === "docker" || cls === "podman") {
    if (typeof env.image === "string" && env.image !== "") render("environment", "image");
    else env.image = swebenchImageName(instance);
  }
  if (typeof env.cwd === "string" && env.cwd !== "") render("environment", "cwd");
  else if (cls === "local") env.cwd = `${outDir}/${instance.instance_id}/workspace`;
  render("run", "env_startup_command");
  render("model", "script");
  return config;
}

/**
 * Run a batch.
 * @throws {ConfigError} bad instances file; {@link UsageError} bad selection
 */
export async function runBatch(options: BatchOptions, deps: BatchDeps): Promise<BatchSummary> {
  const now = deps.now ?? Date.now;
  const startedAt = now();
  const outDir = resolvePath(options.outDir, deps.cwd);
  const rules = MODES[options.mode ?? "plain"];
  const all =
    (await loadInstances(resolvePath(options.instancesPath, deps.cwd), { taskRequired: rules.taskRequired }))
      .map((inst) => rules.prepare(inst, deps.hostEnv));
  const selected = selectInstances(all, options.selection);
  await Deno.mkdir(outDir, { recursive: true });
  const lock = await DirLock.open(outDir);
  const claims = new Claims(outDir, lock);
  const files = new ResultFiles(outDir, startedAt, lock, { preds: rules.writesPreds });
  const trajPath = (id: string) => `${outDir}/${id}/${id}.traj.json`;
  // `--instance` runs its instance whatever it left before, as upstream's swebench-single does.
  const redo = options.redoExisting || options.selection.instance !== undefined;
  const inPreds = redo || !rules.writesPreds ? new Set<string>() : await files.predictionIds();

  const todo: Instance[] = [];
  for (const inst of selected) {
    const id = inst.instance_id;
    const state = redo ? null : await trajectoryState(trajPath(id));
    if (!redo && await rules.done(`${outDir}/${id}`, state, inPreds.has(id))) {
      if (state?.finished) {
        files.setPrediction(prediction(id, state.modelName, state.submission, state.bestOfK));
      }
    } else todo.push(inst); // its prediction is dropped once this process claims it
  }
  await files.flush();
  let skipped = selected.length - todo.length;
  const progress = new BatchProgress(todo.length, {
    write: deps.write,
    live: deps.live,
    ...(deps.rows ? { rows: deps.rows } : {}),
    now,
  });
  progress.log(
    `claudius batch: ${selected.length} of ${all.length} instances selected, ${skipped} already finished, ` +
      `${todo.length} to run -> ${outDir}`,
  );

  for (const line of rules.notes(options.config)) progress.log(line);
  const globalLimits = GlobalLimits.fromEnv(deps.hostEnv);
  if (globalLimits.active) progress.log(globalLimits.describe());
  const slots = workerSlots(Math.max(1, options.workers), options.dockerHosts);
  const live = new Set<Environment>();
  const unfinished: string[] = [];
  const notes = new Set<string>();
  const elsewhere: string[] = [];
  /** Instances left to another process or found finished by one. */
  const passed = new Set<string>();
  const tag = Array.from(crypto.getRandomValues(new Uint8Array(3)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  let next = 0;
  let counter = 0;
  const stopped = () => deps.signal?.aborted === true;
  const fallbackModel = typeof options.config.model.model_name === "string"
    ? options.config.model.model_name
    : "";

  const runOne = async (inst: Instance, host: string | undefined) => {
    const id = inst.instance_id;
    const path = trajPath(id);
    const controller = new AbortController();
    const onStop = () => controller.abort(deps.signal?.reason);
    deps.signal?.addEventListener("abort", onStop, { once: true });
    let steps = 0;
    let cost = 0;
    let env: Environment | undefined;
    let modelBuilt = false;
    progress.start(id, host ?? "");
    let status: string;
    let error = "";
    try {
      await Deno.remove(path).catch(() => {});
      await rules.clear(`${outDir}/${id}`);
      const config = rules.configure(instanceConfig(options.config, inst, outDir), inst);
      if (String(config.environment.environment_class) === "local" && !options.config.environment.cwd) {
        await Deno.remove(String(config.environment.cwd), { recursive: true }).catch(() => {});
      }
      const r = await runEpisode(config, {
        task: instanceTask(inst, rules.taskRequired),
        outputPath: path,
        vars: { instance: inst },
        top: { instance_id: id },
        ...rules.episode,
      }, {
        hostEnv: deps.hostEnv,
        log: (line) => {
          if (options.verbose || /^(warning|error)/i.test(line)) progress.log(`[${id}] ${line}`);
          else if (line.startsWith("note:") && !notes.has(line)) progress.log((notes.add(line), line));
        },
        signal: controller.signal,
        onMessage: (m: Message) => {
          if (m.role === "assistant") steps++;
          cost += Number(m.extra?.cost ?? 0) || 0;
          progress.update(id, steps, cost);
        },
        runId: `b${tag}${++counter}`,
        cwd: deps.cwd,
        ...(host ? { dockerHost: host } : {}),
        onModel: () => (modelBuilt = true),
        onEnvironment: (e) => live.add(env = e),
        ...(deps.force ? { force: deps.force } : {}),
        globalLimits,
      });
      status = r.result.exit_status;
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      status = err.name;
      error = err.message;
      if (options.verbose) progress.log(`[${id}] ${err.stack ?? err.message}`);
      if ((await trajectoryState(path)) === null) await writeSetupFailure(path, id, err).catch(() => {});
    } finally {
      deps.signal?.removeEventListener("abort", onStop);
      if (env) live.delete(env);
    }
    const state = await trajectoryState(path);
    const { finished, patch } = await rules.outcome(`${outDir}/${id}`, state, modelBuilt);
    files.record(
      id,
      status,
      patch === null ? null : prediction(id, state?.modelName || fallbackModel, patch, state?.bestOfK),
    );
    if (!finished) unfinished.push(id);
    error ||= state?.error ?? "";
    progress.finish(id, status, status === "Submitted" ? "" : error.split("\n")[0]!.slice(0, 200));
    await files.flush();
  };

  /**
   * Claim an instance before running it; leave it to a live process holding it, and skip it when
   * another process finished it meanwhile (with --redo-existing: finished after this batch began).
   */
  const claimAndRun = async (inst: Instance, host: string | undefined) => {
    const id = inst.instance_id;
    const holder = await claims.claim(id);
    if (holder) {
      passed.add(id);
      elsewhere.push(`${id} (pid ${holder.pid} on ${holder.host})`);
      progress.skip(
        id,
        `running in another process (pid ${holder.pid} on ${holder.host}, claim ${claims.path(id)})`,
      );
      return;
    }
    try {
      const state = await trajectoryState(trajPath(id));
      const mtime = state?.finished ? (await Deno.stat(trajPath(id))).mtime?.getTime() ?? 0 : 0;
      const done = redo
        ? state?.finished === true && mtime >= startedAt
        : await rules.done(`${outDir}/${id}`, state, (await files.predictionIds()).has(id));
      if (done) {
        if (state?.finished) {
          files.setPrediction(prediction(id, state.modelName, state.submission, state.bestOfK));
        }
        skipped++;
        passed.add(id);
        progress.skip(id, "finished by another process meanwhile");
        await files.flush();
        return;
      }
      files.dropPrediction(id);
      await runOne(inst, host);
    } finally {
      await claims.release(id);
    }
  };

  const worker = async (host: string | undefined) => {
    while (!stopped() && !globalLimits.exceeded && next < todo.length) {
      const inst = todo[next++]!;
      try {
        await claimAndRun(inst, host);
      } catch (e) {
        deps.log(`error: instance ${inst.instance_id}: ${(e as Error).message}`);
      }
    }
  };

  const done = Promise.all(slots.map((host) => worker(host)));
  let forced = false;
  if (deps.force) {
    const force = deps.force;
    const onForce = new Promise<void>((resolve) => {
      if (force.aborted) resolve();
      force.addEventListener("abort", () => resolve(), { once: true });
    });
    await Promise.race([done, onForce.then(() => (forced = true))]);
    if (forced) await forceClose(live, done);
  } else {
    await done;
  }
  progress.stop();
  try {
    await files.close();
  } finally {
    lock.close();
  }
  const byStatus = files.byStatus;
  const started = new Set(Object.values(byStatus).flat());
  return {
    selected: selected.length,
    skipped,
    byStatus,
    unfinished,
    elsewhere,
    notStarted: todo.filter((i) => !started.has(i.instance_id) && !passed.has(i.instance_id))
      .map((i) => i.instance_id),
    interrupted: stopped() || forced,
    globalLimitReached: globalLimits.exceeded,
    predsPath: files.predsPath,
    notPassAt1: files.notPassAt1,
    statusesPath: files.statusesPath,
    elapsedMs: now() - startedAt,
  };
}

function prediction(id: string, model: string, patch: string, bestOfK?: number): Prediction {
  const pred: Prediction = { model_name_or_path: model, instance_id: id, model_patch: patch };
  if (bestOfK) pred.pass_at_1 = false;
  return pred;
}

/** A trajectory holding only the exit message of an instance whose setup failed before runEpisode. */
async function writeSetupFailure(path: string, id: string, err: Error): Promise<void> {
  const writer = new TrajectoryWriter(path, { top: { instance_id: id } });
  const exit = exitMessage(err.name, "", err.message);
  exit.extra = { ...exit.extra, exception_str: err.message, traceback: err.stack ?? "" };
  try {
    await writer.save([exit], { exit_status: err.name, submission: "" });
  } finally {
    writer.close();
  }
}

/**
 * Second signal: close every live environment at once (a container still starting is removed by
 * name, see `DockerEnvironment.close`), then let the workers record their endings, all within
 * {@link FORCE_CLOSE_SECONDS}.
 */
async function forceClose(live: Set<Environment>, workers: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((r) => (timer = setTimeout(r, FORCE_CLOSE_SECONDS * 1000)));
  try {
    await Promise.race([
      Promise.allSettled([...live].map((env) => env.close())).then(() => workers),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
