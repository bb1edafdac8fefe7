/**
 * Read many trajectory files and reduce each to what the caller needs, a few at a time, so a
 * thousand large files never sit in memory together; in worker threads when there are many.
 *
 * @module
 */
import { loadTrajectory } from "./load_trajectory.ts";
import {
  type MapperArg,
  type MapperName,
  type MapperResult,
  TRAJECTORY_MAPPERS,
} from "./trajectory_mappers.ts";
import type { Trajectory } from "./types.ts";

/** A file that could not be read as a trajectory. */
export interface ReadFailure {
  path: string;
  /** One line naming the file and what was wrong. */
  message: string;
}

/** What the mapping functions return: results in the order of `paths`, and the failures. */
export interface Mapped<T> {
  results: T[];
  failures: ReadFailure[];
}

type Slot<T> = { ok: T } | { fail: ReadFailure };

/** The failure of reading `path`, as one line naming it. */
export function readFailure(path: string, error: unknown): ReadFailure {
  const why = error instanceof Deno.errors.NotFound
    ? "no such file (or a broken link)"
    : error instanceof Deno.errors.IsADirectory
    ? "is a directory"
    : error instanceof Deno.errors.PermissionDenied
    ? "permission denied"
    : undefined;
  if (why) return { path, message: `Cannot read ${path}: ${why}` };
  const message = error instanceof Error ? error.message : String(error);
  return { path, message: message.includes(path) ? message : `Cannot read ${path}: ${message}` };
}

/** Load one file and map it, or its failure. */
async function mapOne<T>(path: string, fn: (t: Trajectory) => T): Promise<Slot<T>> {
  try {
    return { ok: fn(await loadTrajectory(path)) };
  } catch (e) {
    return { fail: readFailure(path, e) };
  }
}

function collect<T>(slots: Slot<T>[]): Mapped<T> {
  const results: T[] = [];
  const failures: ReadFailure[] = [];
  for (const slot of slots) {
    if ("ok" in slot) results.push(slot.ok);
    else failures.push(slot.fail);
  }
  return { results, failures };
}

/**
 * Load each file and map it with `fn` in this thread; unreadable files are collected as failures.
 *
 * @example
 * ```ts ignore
 * import { mapTrajectories } from "./map_trajectories.ts";
 * const { results, failures } = await mapTrajectories(paths, (t) => t.exit.status);
 * ```
 * @param paths the files (see `findTrajectories`)
 * @param fn reduces one trajectory (the trajectory itself is dropped afterwards)
 * @param concurrency files read at once (default 2)
 */
export async function mapTrajectories<T>(
  paths: readonly string[],
  fn: (t: Trajectory) => T,
  concurrency = 2,
): Promise<Mapped<T>> {
  const slots: Slot<T>[] = new Array(paths.length);
  const files = paths.entries(); // one iterator shared by the workers: each file is taken once
  const worker = async () => {
    for (const [i, path] of files) slots[i] = await mapOne(path, fn);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, paths.length)) }, worker));
  return collect(slots);
}

/** The worker module's path in the program (`Host.programFile(MAP_WORKER)` is where this claudius has it). */
export const MAP_WORKER = "src/tools/trajectories/_map_worker.ts";

/** Options of {@link mapTrajectoriesParallel}. */
export interface ParallelOptions {
  /** The worker module ({@link MAP_WORKER}, as `Host.programFile` finds it); without it, no worker threads. */
  worker?: URL;
  /** Worker threads (default: the CPU count, at most 4). */
  workers?: number;
  /** Fewer files than this are mapped in this thread (default 32: a worker takes ~50 ms to start). */
  minFiles?: number;
}

/**
 * Like {@link mapTrajectories} with a mapper named in `TRAJECTORY_MAPPERS`, spread over worker
 * threads running `options.worker` (each parses and maps whole files; results come back in the order
 * of `paths`). A worker that fails to start or dies hands its file back; with no worker left, the
 * rest is mapped here.
 *
 * @example
 * ```ts ignore
 * import { MAP_WORKER, mapTrajectoriesParallel } from "./map_trajectories.ts";
 * const { results } = await mapTrajectoriesParallel(paths, "stats", {}, { worker: host.programFile(MAP_WORKER) });
 * ```
 * @param paths the files
 * @param mapper the mapper's name
 * @param arg its argument (structured-cloneable)
 * @param options the worker module, worker count and threshold
 */
export async function mapTrajectoriesParallel<N extends MapperName>(
  paths: readonly string[],
  mapper: N,
  arg: MapperArg<N>,
  options: ParallelOptions = {},
): Promise<Mapped<MapperResult<N>>> {
  type R = MapperResult<N>;
  const f = TRAJECTORY_MAPPERS[mapper] as (t: Trajectory, a: MapperArg<N>) => R;
  const count = Math.min(options.workers ?? Math.min(navigator.hardwareConcurrency || 1, 4), paths.length);
  if (!options.worker || paths.length < (options.minFiles ?? 32) || count < 2) {
    return await mapTrajectories(paths, (t) => f(t, arg));
  }
  return collect(await new WorkerMap<R>(paths, (t) => f(t, arg), options.worker).run(count, { mapper, arg }));
}

/** Files spread over worker threads, each fed the next file when it answers; this thread takes over when none is left. */
class WorkerMap<R> {
  readonly #local: (t: Trajectory) => R;
  readonly #module: URL;
  readonly #slots: Slot<R>[];
  /** Files not taken yet: their index and path. */
  readonly #queue: [number, string][];
  readonly #done = Promise.withResolvers<void>();
  #pending: number;
  #alive = 0;

  /**
   * @param local the mapper, for the files mapped in this thread
   * @param module the worker module
   */
  constructor(paths: readonly string[], local: (t: Trajectory) => R, module: URL) {
    this.#local = local;
    this.#module = module;
    this.#slots = new Array(paths.length);
    this.#queue = [...paths.entries()];
    this.#pending = paths.length;
  }

  /** Map every file with `count` workers, each told its mapper first. */
  async run(count: number, setup: { mapper: MapperName; arg: unknown }): Promise<Slot<R>[]> {
    const workers: Worker[] = [];
    for (let k = 0; k < count; k++) {
      const worker = this.#start(setup);
      if (worker) workers.push(worker);
    }
    if (this.#alive === 0) await this.#mapHere();
    else await this.#done.promise;
    for (const w of workers) w.terminate();
    return this.#slots;
  }

  #settle(index: number, slot: Slot<R>): boolean {
    this.#slots[index] = slot;
    if (--this.#pending > 0) return false;
    this.#done.resolve();
    return true;
  }

  /** A worker that answers each file it is fed; one that fails hands its file back. */
  #start(setup: { mapper: MapperName; arg: unknown }): Worker | undefined {
    let worker: Worker;
    try {
      worker = new Worker(this.#module.href, { type: "module" });
    } catch {
      return undefined;
    }
    this.#alive++;
    let current: [number, string] | undefined;
    const feed = () => {
      current = this.#queue.shift();
      if (current !== undefined) worker.postMessage({ index: current[0], path: current[1] });
    };
    worker.onmessage = (e: MessageEvent) => {
      const m = e.data as { index: number; ok?: R; fail?: ReadFailure };
      if (!this.#settle(m.index, m.fail ? { fail: m.fail } : { ok: m.ok as R })) feed();
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      worker.terminate();
      if (current !== undefined) this.#queue.unshift(current);
      current = undefined;
      if (--this.#alive === 0) this.#mapHere();
    };
    worker.postMessage(setup);
    feed();
    return worker;
  }

  /** No worker left: map what remains in this thread. */
  async #mapHere(): Promise<void> {
    for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
      this.#settle(next[0], await mapOne(next[1], this.#local));
    }
  }
}
