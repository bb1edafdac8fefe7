/**
 * A batch's pool of workers over its queue: each worker takes an instance, claims it in its output
 * directory (or leaves it to the process that holds it), runs it as one {@link runEpisode} and
 * records its outcome, until the queue is empty, the batch is stopped or a global limit is reached.
 *
 * @module
 */
import { runsOnHost } from "../core/environments/classes.ts";
import type { ImageUse } from "./run_record.ts";
import { type EpisodeDeps, runEpisode } from "../core/episode.ts";
import { GlobalLimits } from "../core/extra/global_limits.ts";
import { redactText } from "../core/redact.ts";
import { episodeSecrets, SecretRedactor } from "../core/secret_redactor.ts";
import type { Environment, Message } from "../core/types.ts";
import { asError, errorMessage } from "../lib/errors.ts";
import { escapeControls } from "../lib/safe_text.ts";
import { claimLeaseMs, describeHolder, type Holder, Lease, LeaseLost } from "./_claims.ts";
import { EngineHealth } from "./_engine_health.ts";
import { type Output, outputKey, skipFinished, summaryOf, trajPath, type Work } from "./_outputs.ts";
import { WorkQueue } from "./_queue.ts";
import { newestTrajectory, removeResumed } from "./resumed.ts";
import { bringHome, rescueDir } from "./_rescued.ts";
import { prediction, trajectoryState, writeSetupFailure } from "./_results.ts";
import { forceClose, workerSlots } from "./_workers.ts";
import { instanceConfig } from "./instance_config.ts";
import { instanceTask } from "./instances.ts";
import type { ModeRules } from "./modes.ts";
import { BatchProgress } from "./progress.ts";
import type { Instance } from "./select.ts";
import type { ArmsOptions, ArmsSummary, BatchDeps } from "./types.ts";

/** What the pool runs, decided before it starts. */
export interface BatchPlan {
  options: ArmsOptions;
  deps: BatchDeps;
  /** Outputs are arms (`<out>/<arm>`): keys and messages name the arm. */
  nested: boolean;
  rules: ModeRules;
  /** Run finished instances again (`--redo-existing`, `--instance`). */
  redo: boolean;
  selected: Instance[];
  /** Trials of each instance (each trial an output directory of every arm). */
  trials: number;
  /** Instances in the file, before the selection. */
  total: number;
  /** Notes logged first: the shard's, and the shared working directory warning. */
  shardNote: string | undefined;
  shared: string | undefined;
  startedAt: number;
  now: () => number;
}

/** What an episode showed of itself while it ran (for the progress line and the outcome). */
interface Watched {
  steps: number;
  cost: number;
  env: Environment | undefined;
  modelBuilt: boolean;
  /** The container image it ran in, for `run.json`. */
  image?: ImageUse;
}

/** The model a reply's response names (its `model`), for `run.json`. */
function servedName(m: Message): string | undefined {
  const extra = m.extra as { response?: { model?: unknown } } | undefined;
  const model = m.object === "response" ? (m as { model?: unknown }).model : extra?.response?.model;
  return typeof model === "string" && model ? model : undefined;
}

/** The workers of one batch invocation and what they share. */
export class BatchRun {
  readonly #plan: BatchPlan;
  readonly #outputs: Output[];
  readonly #progress: BatchProgress;
  readonly #limits: GlobalLimits;
  readonly #live = new Set<Environment>();
  readonly #health: EngineHealth;
  readonly #notes = new Set<string>();
  readonly #tag = Array.from(
    crypto.getRandomValues(new Uint8Array(3)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
  readonly #queue: WorkQueue<Work>;
  /** A line as the batch may print it: the keys, in any of their forms, redacted. */
  readonly #shown: (text: string) => string;
  #counter = 0;

  constructor(plan: BatchPlan, outputs: Output[]) {
    this.#plan = plan;
    this.#outputs = outputs;
    const { deps, selected } = plan;
    // Trial by trial, instance-major: each instance under every arm before the next instance.
    const todo = Array.from({ length: plan.trials }, (_, t) => t + 1).flatMap((k) =>
      selected.flatMap((inst) =>
        outputs.filter((o) => (o.trial ?? 1) === k && o.todo.has(inst.instance_id))
          .map((output) => ({ inst, output, looks: 0 }))
      )
    );
    // What the batch prints (stdout, a Slurm log) never holds a key: a failing startup command's output
    // is quoted in its instance's line.
    const keys = new SecretRedactor(
      outputs.flatMap((o) => episodeSecrets(deps.hostEnv, o.config.model).outputSecrets),
    );
    this.#shown = (text) => redactText(keys.text(text));
    this.#progress = new BatchProgress(todo.length, {
      write: (text) => deps.write(this.#shown(text)),
      live: deps.live,
      ...(deps.rows ? { rows: deps.rows } : {}),
      now: plan.now,
    });
    this.#limits = GlobalLimits.fromEnv(deps.hostEnv);
    this.#queue = new WorkQueue<Work>(todo, plan.now);
    const slots = workerSlots(Math.max(1, plan.options.workers), plan.options.dockerHosts);
    this.#health = new EngineHealth(slots.map((host) => host ?? ""));
  }

  /** Run every queued instance (a second signal, `deps.force`, closes the live environments). */
  async run(): Promise<ArmsSummary> {
    const { options, deps } = this.#plan;
    this.#announce();
    const slots = workerSlots(Math.max(1, options.workers), options.dockerHosts);
    const done = Promise.all(slots.map((host) => this.#worker(host)));
    let forced = false;
    if (deps.force) {
      const force = deps.force;
      const onForce = new Promise<void>((resolve) => {
        if (force.aborted) resolve();
        force.addEventListener("abort", () => resolve(), { once: true });
      });
      await Promise.race([done, onForce.then(() => (forced = true))]);
      if (forced) await forceClose(this.#live, done);
    } else {
      await done;
    }
    this.#progress.stop();
    for (const o of this.#outputs) {
      await o.files.close();
      await o.record?.close(this.#plan.now()).catch((e) =>
        deps.log(`warning: Cannot write run.json: ${errorMessage(e)}`)
      );
    }
    const end = {
      interrupted: this.#stopped() || forced,
      globalLimitReached: this.#limits.exceeded,
      enginesDown: this.#health.down,
      elapsedMs: this.#plan.now() - this.#plan.startedAt,
    };
    return {
      arms: this.#outputs.map((o) => ({
        name: o.name,
        ...(o.trial === undefined ? {} : { trial: o.trial }),
        outDir: o.dir,
        summary: summaryOf(o, end),
      })),
    };
  }

  #announce(): void {
    const { total, rules, shardNote, shared } = this.#plan;
    const progress = this.#progress;
    if (shardNote) progress.log(shardNote);
    for (const o of this.#outputs) {
      progress.log(
        `claudius batch: ${this.#where(o, ": ")}${o.selected.length} of ${total} instances ` +
          `selected, ${o.skipped} already finished, ${o.todo.size} to run -> ${o.dir}`,
      );
    }
    for (const line of new Set(this.#outputs.flatMap((o) => rules.notes(o.config)))) progress.log(line);
    if (shared) progress.log(shared);
    const announced = this.#limits.announcement();
    if (announced) progress.log(announced);
  }

  #stopped(): boolean {
    return this.#plan.deps.signal?.aborted === true;
  }

  #key(o: Output, id: string): string {
    return outputKey(o, id);
  }

  /** `arm A, trial K` of an output, then `after`; "" for a plain batch. */
  #where(o: Output, after: string): string {
    const words = [o.name ? `arm ${o.name}` : "", o.trial === undefined ? "" : `trial ${o.trial}`];
    const text = words.filter(Boolean).join(", ");
    return text ? text + after : "";
  }

  async #worker(host: string | undefined): Promise<void> {
    const { deps } = this.#plan;
    for (;;) {
      const work = await this.#queue.take(
        () => this.#stopped() || this.#limits.exceeded || this.#health.isDown(host ?? ""),
        deps.signal,
      );
      if (!work) return;
      let again: number | undefined;
      try {
        again = await this.#claimAndRun(work, host);
      } catch (e) {
        const arm = this.#where(work.output, "") && ` (${this.#where(work.output, "")})`;
        const why = this.#shown(errorMessage(e));
        deps.log(escapeControls(`error: instance ${work.inst.instance_id}${arm}: ${why}`));
      } finally {
        if (again === undefined) this.#queue.done();
        else this.#queue.later(work, again);
      }
    }
  }

  /**
   * Claim an instance and run it; skip it when another process finished it meanwhile (with
   * --redo-existing: finished after this batch began).
   * @returns milliseconds until the instance is to be looked at again, or undefined when settled
   */
  async #claimAndRun(work: Work, host: string | undefined): Promise<number | undefined> {
    const { inst, output: o } = work;
    const id = inst.instance_id;
    const lease = await o.claims.claim(id, work.seen);
    if (!(lease instanceof Lease)) return this.#heldElsewhere(work, lease);
    try {
      // A `claudius resume` of the instance went on in its own file: the newest of them says where it stands.
      const newest = await newestTrajectory(trajPath(o, id));
      const state = await trajectoryState(newest);
      const mtime = state?.finished ? (await Deno.stat(newest)).mtime?.getTime() ?? 0 : 0;
      const done = this.#plan.redo
        ? state?.finished === true && mtime >= this.#plan.startedAt
        : await this.#plan.rules.done(`${o.dir}/${id}`, state, (await o.files.predictionIds()).has(id));
      if (done) {
        skipFinished(o, id, state);
        o.passed.add(id);
        this.#progress.skip(this.#key(o, id), "finished by another process meanwhile");
        await o.files.flush();
        return undefined;
      }
      o.files.dropPrediction(id);
      await this.#runOne(inst, o, host, lease);
    } finally {
      await o.claims.release(id);
    }
    return lease.signal.aborted ? 0 : undefined;
  }

  /**
   * An instance another process holds: looked at again after the rest. It is left to that process
   * once the holder is seen alive at the end (its process here runs, or its lease was renewed
   * since first seen); an expired lease is taken over when the instance comes round again.
   * @returns milliseconds until the next look, or undefined when left to the holder
   */
  #heldElsewhere(work: Work, holder: Holder): number | undefined {
    const { inst: { instance_id: id }, output: o } = work;
    const key = this.#key(o, id);
    const c = holder.claim;
    const seen = work.seen?.claim;
    const renewed = seen !== undefined && (seen.token !== c.token || seen.renewed !== c.renewed);
    if (!seen || renewed) work.seen = { claim: c, at: this.#plan.now() };
    if (work.looks++ === 0) {
      this.#progress.log(
        `${key}: claimed by another process (${describeHolder(c)}): looked at again at the end`,
      );
      return 0;
    }
    if (!holder.verified && !renewed) {
      // Twice per renewal of the holder, and at its expiry.
      const untilExpiry = Date.parse(c.expires) - this.#plan.now() + 50;
      return Math.max(100, Math.min(claimLeaseMs(c) / 8, untilExpiry, 30_000));
    }
    o.passed.add(id);
    o.elsewhere.push(`${id} (${describeHolder(c)})`);
    this.#progress.skip(key, `running in another process (${describeHolder(c)}, claim ${o.claims.path(id)})`);
    return undefined;
  }

  /**
   * Run an instance this process holds: its files are written through `lease`, which stops the run
   * when the claim is lost (and nothing of it is recorded then).
   */
  async #runOne(inst: Instance, o: Output, host: string | undefined, lease: Lease): Promise<void> {
    const { deps, options } = this.#plan;
    const id = inst.instance_id;
    const key = this.#key(o, id);
    const path = trajPath(o, id);
    const controller = new AbortController();
    const onStop = () => controller.abort(deps.signal?.reason);
    const onLost = () => controller.abort(lease.signal.reason);
    lease.signal.addEventListener("abort", onLost, { once: true });
    deps.signal?.addEventListener("abort", onStop, { once: true });
    const watched: Watched = { steps: 0, cost: 0, env: undefined, modelBuilt: false };
    this.#progress.start(key, host ?? "");
    let status: string;
    let error = "";
    let trajectory = path;
    try {
      ({ status, trajectory } = await this.#episode(inst, o, key, host, lease, controller.signal, watched));
    } catch (e) {
      const err = asError(e);
      status = err.name;
      error = err.message;
      if (options.verbose) this.#progress.log(`[${key}] ${err.stack ?? err.message}`);
      if (!lease.signal.aborted) {
        await lease.hold(async () => {
          if ((await trajectoryState(path)) === null) await writeSetupFailure(path, id, err);
        }).catch(() => {});
      }
    } finally {
      deps.signal?.removeEventListener("abort", onStop);
      lease.signal.removeEventListener("abort", onLost);
      if (watched.env) this.#live.delete(watched.env);
    }
    // Still this process's, or another process runs it now and nothing of this run is recorded.
    await lease.hold(() => Promise.resolve()).catch(() => {});
    if (lease.signal.aborted) {
      const reason: unknown = lease.signal.reason;
      this.#progress.abandon(key, reason instanceof LeaseLost ? reason.message : "Stopped: lease lost");
      return;
    }
    if (trajectory !== path) trajectory = await this.#home(key, trajectory, path, lease);
    await this.#record(o, id, host, { status, error, watched, trajectory });
  }

  /** Put a rescued trajectory back at its path when it can; the path the trajectory is at then. */
  async #home(key: string, rescue: string, path: string, lease: Lease): Promise<string> {
    try {
      await lease.hold(() => bringHome(rescue, path));
      this.#progress.log(`[${key}] the trajectory is back at ${path}`);
      return path;
    } catch (e) {
      this.#progress.log(
        `[${key}] warning: the trajectory stays at ${rescue} (${path}: ${
          e instanceof Error ? e.message : e
        }); ` +
          "a rerun reads it there",
      );
      return rescue;
    }
  }

  /** One instance's episode, from a clean slate in its directory. @returns its exit status and trajectory */
  async #episode(
    inst: Instance,
    o: Output,
    key: string,
    host: string | undefined,
    lease: Lease,
    signal: AbortSignal,
    watched: Watched,
  ): Promise<{ status: string; trajectory: string }> {
    const { deps, rules } = this.#plan;
    const id = inst.instance_id;
    const path = trajPath(o, id);
    const config = rules.configure(instanceConfig(o.config, inst, o.dir, o.trial ?? 1), inst);
    const cls = String(config.environment.environment_class);
    await lease.hold(async () => {
      await Deno.remove(path).catch(() => {});
      await removeResumed(path); // run anew: what a resume of the last attempt wrote is of no use
      await rules.clear(`${o.dir}/${id}`);
      if (runsOnHost(cls) && !o.config.environment.cwd) {
        await Deno.remove(String(config.environment.cwd), { recursive: true }).catch(() => {});
      }
    });
    const episode = {
      task: instanceTask(inst, rules.taskRequired),
      outputPath: path,
      vars: { instance: inst },
      top: { instance_id: id },
      limits: this.#limits,
      rescueDir: rescueDir(path),
      ...(o.prompts ? { prompts: o.prompts } : {}),
      ...rules.episode,
    };
    const containers = ["docker", "podman"].includes(cls) && typeof config.environment.image === "string";
    if (containers) {
      const executable = String(config.environment.executable || cls);
      watched.image = { image: String(config.environment.image), executable, ...(host ? { host } : {}) };
    }
    const episodeDeps = { ...this.#episodeDeps(key, host, signal, watched, o), lease };
    const features = await deps.features(config, episode, {
      ...(rules.artifactsIf ? { artifactsIf: rules.artifactsIf } : {}),
      ...(deps.force ? { force: deps.force } : {}),
    }, episodeDeps);
    const r = await runEpisode(features.config, episode, episodeDeps, features.plug);
    return { status: r.result.exit_status, trajectory: r.trajectory };
  }

  #episodeDeps(
    key: string,
    host: string | undefined,
    signal: AbortSignal,
    watched: Watched,
    o: Output,
  ): EpisodeDeps {
    const { deps, options } = this.#plan;
    const progress = this.#progress;
    return {
      hostEnv: deps.hostEnv,
      log: (line) => {
        if (options.verbose || /^(warning|error)/i.test(line)) progress.log(`[${key}] ${line}`);
        else if (line.startsWith("note:") && !this.#notes.has(line)) {
          progress.log((this.#notes.add(line), line));
        }
      },
      signal,
      runId: `b${this.#tag}${++this.#counter}`,
      cwd: deps.cwd,
      ...(deps.classes ? { classes: deps.classes } : {}),
      ...(host ? { dockerHost: host } : {}),
      watch: {
        message: (m: Message) => {
          if (m.role === "assistant" || m.object === "response") watched.steps++;
          const served = servedName(m);
          if (served) o.record?.served(served);
          watched.cost += Number(m.extra?.cost ?? 0) || 0;
          progress.update(key, watched.steps, watched.cost);
        },
        model: () => (watched.modelBuilt = true),
        environment: (e) => this.#live.add(watched.env = e),
      },
    };
  }

  /** Record what an instance's run left: its status, its prediction, the engine's health. */
  async #record(
    o: Output,
    id: string,
    host: string | undefined,
    run: { status: string; error: string; watched: Watched; trajectory: string },
  ): Promise<void> {
    const { status, watched } = run;
    const state = await trajectoryState(run.trajectory);
    const { finished, patch } = await this.#plan.rules.outcome(`${o.dir}/${id}`, state, watched.modelBuilt);
    o.files.record(
      id,
      status,
      patch === null ? null : prediction(id, state?.modelName || o.fallbackModel, patch, state?.bestOfK),
    );
    if (!finished) o.unfinished.push(id);
    const error = run.error || (state?.error ?? "");
    const firstLine = error.split("\n", 1)[0] ?? "";
    this.#progress.finish(this.#key(o, id), status, status === "Submitted" ? "" : firstLine.slice(0, 200));
    await o.files.flush();
    // An engine that failed this instance (not its task) gets no more work once that repeats.
    if (watched.image) o.record?.image(watched.image);
    await o.record?.flush().catch((e) =>
      this.#progress.log(`warning: Cannot write run.json: ${errorMessage(e)}`)
    );
    const fault = watched.env?.engineFault?.();
    const setAside = this.#health.record(host ?? "", fault, state !== null && !state.failedStart);
    if (setAside) this.#progress.log(setAside);
  }
}
