/**
 * Which instances a batch runs, in which order: `--shuffle` (seeded), `--filter`, `--slice`, then
 * `--shard`. The first three are upstream mini-swe-agent's, in upstream's order and with upstream's
 * results: the shuffle sorts by `instance_id` and then shuffles with Python's own generator
 * (MT19937 seeded like `random.seed(n)`, `random.shuffle`'s algorithm), so `--shuffle` picks the
 * same order as upstream for the same seed (42 by default).
 *
 * @module
 */
import { UsageError } from "../lib/flags.ts";
import { compilePyRegex, type PyRegex, PyRegexError } from "../lib/python/pyregex/pyregex.ts";

/** A batch instance: `instance_id` plus any other fields of its record. */
export type Instance = Record<string, unknown> & { instance_id: string };

/** How to select instances (every field optional; the order of application is fixed). */
export interface Selection {
  /** Sort by id, then shuffle with this seed (Python's `random.seed(seed); random.shuffle`). */
  shuffleSeed?: number;
  /** Keep ids matching this regex at their start (Python's `re.match`). */
  filter?: string;
  /** Python slice `a:b` or `a:b:c` (negative and empty bounds as in Python). */
  slice?: string;
  /** 1-based shard `i` of `n`: positions i-1, i-1+n, i-1+2n, ... of what is left. */
  shard?: { index: number; count: number };
  /**
   * One instance, as upstream's `swebench-single -i`: its id, or a number indexing the ids in sorted
   * order. Applied first; the rest of the selection then applies to it.
   */
  instance?: string;
}

/**
 * Apply a selection: shuffle, then filter, then slice (upstream's order), then shard.
 *
 * @example
 * ```ts
 * const ids = ["a", "b", "c", "d"].map((instance_id) => ({ instance_id }));
 * selectInstances(ids, { slice: "1:", shard: { index: 1, count: 2 } }).map((i) => i.instance_id);
 * // ["b", "d"]
 * ```
 * @throws {UsageError} for a bad regex or slice
 */
export function selectInstances(instances: Instance[], selection: Selection): Instance[] {
  let out = ordered(instances, selection);
  if (selection.filter !== undefined && selection.filter !== "") {
    const re = compileFilter(selection.filter);
    out = out.filter((i) => re.match(i.instance_id) !== null);
  }
  return cut(out, selection);
}

/** Seconds `--filter` may take over all the ids before the batch gives up on it. */
export const FILTER_SECONDS = 30;

/** The worker module's path in the program (`Host.programFile(FILTER_WORKER)` is where this claudius has it). */
export const FILTER_WORKER = "src/batch/_filter_worker.ts";

/**
 * {@link selectInstances} with `--filter` matched in a worker thread running `options.worker`
 * ({@link FILTER_WORKER}; without it, in this thread), so that a pattern that
 * backtracks catastrophically (`(a+)+$`) can neither keep the process deaf to signals nor hang it:
 * an abort of `signal` (SIGTERM) stops the match and selects nothing, and a match that is not done
 * within {@link FILTER_SECONDS} is a usage error naming the id it was on.
 *
 * @throws {UsageError} for a bad regex or slice, or a filter that did not finish in time
 */
export async function selectInstancesGuarded(
  instances: Instance[],
  selection: Selection,
  options: { worker?: URL; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<Instance[]> {
  const spec = selection.filter;
  if (spec === undefined || spec === "" || !options.worker) return selectInstances(instances, selection);
  compileFilter(spec); // a bad pattern is a usage error here, as without the worker
  const out = ordered(instances, selection);
  const ids = out.map((i) => i.instance_id);
  const progress = new Int32Array(new SharedArrayBuffer(4));
  let worker: Worker;
  try {
    worker = new Worker(options.worker.href, { type: "module" });
  } catch {
    return selectInstances(instances, selection); // no worker here: matched in this thread
  }
  const timeoutMs = options.timeoutMs ?? FILTER_SECONDS * 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  try {
    const keep = await new Promise<Set<number> | null>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<{ keep: number[] }>) => resolve(new Set(e.data.keep));
      worker.onerror = (e) => (e.preventDefault(), reject(new Error(`Cannot match --filter: ${e.message}`)));
      onAbort = () => resolve(null);
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      timer = setTimeout(() => {
        const at = ids[Atomics.load(progress, 0)] ?? "";
        reject(
          new UsageError(
            `--filter '${spec}' did not finish within ${timeoutMs / 1000} s (still on instance '${at}'): ` +
              "the pattern backtracks too much; simplify it (no nested repeats such as (a+)+)",
          ),
        );
      }, timeoutMs);
      worker.postMessage({ spec, ids, progress });
    });
    return keep === null ? [] : cut(out.filter((_, k) => keep.has(k)), selection);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    worker.terminate();
  }
}

/** `--instance`, then `--shuffle`: the order the filter sees. */
function ordered(instances: Instance[], selection: Selection): Instance[] {
  let out = [...instances];
  if (selection.instance !== undefined) out = [pickInstance(out, selection.instance)];
  if (selection.shuffleSeed !== undefined) {
    out.sort((a, b) => compareCodePoints(a.instance_id, b.instance_id));
    pythonShuffle(out, selection.shuffleSeed);
  }
  return out;
}

/** `--slice`, then `--shard`: what is kept of the filtered list. */
function cut(instances: Instance[], selection: Selection): Instance[] {
  let out = instances;
  if (selection.slice !== undefined && selection.slice !== "") {
    out = pySlice(out, parseSlice(selection.slice));
  }
  if (selection.shard) {
    const { index, count } = selection.shard;
    out = out.filter((_, k) => k % count === index - 1);
  }
  return out;
}

/**
 * The instance `spec` names: an id, or (all digits) an index into the ids sorted as Python sorts them.
 * @throws {UsageError} when there is no such instance
 */
export function pickInstance(instances: Instance[], spec: string): Instance {
  const byId = instances.find((i) => i.instance_id === spec);
  if (byId) return byId;
  if (/^\d+$/.test(spec)) {
    const sorted = [...instances].sort((a, b) => compareCodePoints(a.instance_id, b.instance_id));
    const picked = sorted[Number(spec)];
    if (picked) return picked;
  }
  throw new UsageError(
    `--instance ${spec}: no instance has that id` +
      (/^\d+$/.test(spec) ? ` and there are only ${instances.length} instances` : ""),
  );
}

/**
 * Compile `--filter` as upstream applies it: a Python regex, `re.match` against each instance id.
 *
 * @example
 * ```ts
 * import { compileFilter } from "./select.ts";
 * compileFilter("(?i)django__").match("Django__django-1") !== null; // true
 * ```
 * @throws {UsageError} naming `--filter` when Python would reject the pattern or claudius cannot
 *   translate it exactly
 */
export function compileFilter(spec: string): PyRegex {
  try {
    return compilePyRegex(spec, { where: "--filter", groups: false });
  } catch (e) {
    if (e instanceof PyRegexError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * Parse `a:b` / `a:b:c` (each part optional, integers) into slice bounds.
 * @throws {UsageError} when it is not a slice
 */
export function parseSlice(spec: string): [number | null, number | null, number | null] {
  const parts = spec.split(":");
  if (
    parts.length < 2 || parts.length > 3 || parts.some((p) => p.trim() !== "" && !/^\s*-?\d+\s*$/.test(p))
  ) {
    throw new UsageError(`--slice must look like a:b or a:b:c (Python slice), got '${spec}'`);
  }
  const [a, b, c] = parts.map((p) => (p.trim() === "" ? null : Number(p)));
  if (c === 0) throw new UsageError(`--slice step cannot be zero, got '${spec}'`);
  return [a ?? null, b ?? null, c ?? null];
}

/**
 * Parse `i/n` (1 <= i <= n).
 * @throws {UsageError} when it is not a shard
 */
export function parseShard(spec: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard must be i/n with 1 <= i <= n, got '${spec}'`);
  }
  return { index, count };
}

/** Python's `list[a:b:c]`. */
function pySlice<T>(list: T[], [a, b, c]: [number | null, number | null, number | null]): T[] {
  const n = list.length;
  const step = c ?? 1;
  const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
  const norm = (v: number | null, dflt: number, lo: number, hi: number) =>
    v === null ? dflt : clamp(v < 0 ? v + n : v, lo, hi);
  if (step > 0) {
    const start = norm(a, 0, 0, n);
    const stop = norm(b, n, 0, n);
    return list.slice(start, Math.max(start, stop)).filter((_, k) => k % step === 0);
  }
  const start = norm(a, n - 1, -1, n - 1);
  const stop = norm(b, -1, -1, n - 1);
  // Indices start, start+step, ... down to just above stop: the run (stop, start] read backwards.
  return list.slice(stop + 1, Math.max(stop + 1, start + 1)).reverse().filter((_, k) => k % -step === 0);
}

/** Python's string order (code points, not UTF-16 units). */
function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a, (ch) => ch.codePointAt(0) ?? 0);
  const y = Array.from(b, (ch) => ch.codePointAt(0) ?? 0);
  for (const [i, cx] of x.entries()) {
    const cy = y[i];
    if (cy === undefined) break;
    if (cx !== cy) return cx - cy;
  }
  return x.length - y.length;
}

/** `random.seed(seed); random.shuffle(list)` exactly as CPython does it (in place). */
function pythonShuffle(list: Instance[], seed: number): void {
  const mt = new MersenneTwister(seed);
  for (let i = list.length - 1; i > 0; i--) {
    const j = mt.below(i + 1);
    const [x, y] = [list[i], list[j]];
    if (x === undefined || y === undefined) throw new RangeError(`Cannot swap ${i} and ${j}: out of range`);
    [list[i], list[j]] = [y, x];
  }
}

/** `words[i]`, which the twister only asks for in range. */
function word(words: ArrayLike<number>, i: number): number {
  const w = words[i];
  if (w === undefined) throw new RangeError(`Cannot read word ${i} of ${words.length}`);
  return w;
}

/** MT19937 as CPython's `random` module uses it (seeding by `init_by_array`, `getrandbits`). */
class MersenneTwister {
  readonly #mt = new Uint32Array(624);
  #index = 624;

  constructor(seed: number) {
    // random.seed(int): the absolute value split into 32-bit words, least significant first.
    let n = BigInt(Math.abs(Math.trunc(seed)));
    const key: number[] = [];
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    this.#initByArray(key);
  }

  #initGenrand(s: number): void {
    const mt = this.#mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = word(mt, i - 1) ^ (word(mt, i - 1) >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.#index = 624;
  }

  #initByArray(key: number[]): void {
    const mt = this.#mt;
    this.#initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(624, key.length); k > 0; k--) {
      const prev = word(mt, i - 1) ^ (word(mt, i - 1) >>> 30);
      mt[i] = ((word(mt, i) ^ Math.imul(prev, 1664525)) + word(key, j) + j) >>> 0;
      i++;
      j++;
      if (i >= 624) {
        mt[0] = word(mt, 623);
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k > 0; k--) {
      const prev = word(mt, i - 1) ^ (word(mt, i - 1) >>> 30);
      mt[i] = ((word(mt, i) ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) {
        mt[0] = word(mt, 623);
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  #next(): number {
    const mt = this.#mt;
    if (this.#index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (word(mt, k) & 0x80000000) | (word(mt, (k + 1) % 624) & 0x7fffffff);
        mt[k] = word(mt, (k + 397) % 624) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.#index = 0;
    }
    let y = word(mt, this.#index++);
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** Python's `_randbelow(n)` (n < 2**32): `getrandbits(n.bit_length())` until below n. */
  below(n: number): number {
    const k = 32 - Math.clz32(n);
    for (;;) {
      const r = this.#next() >>> (32 - k);
      if (r < n) return r;
    }
  }
}
