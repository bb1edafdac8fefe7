/**
 * A batch instance that `claudius resume` went on with: its trajectory chain (`<id>.traj.json`, then
 * `<id>.resume1.traj.json`, `<id>.resume2.traj.json`, ...; the newest holds where it stands), and the
 * lease a resume takes on it, so that a batch rerun leaves the instance to the resume (and the resume
 * refuses an instance a batch is running).
 *
 * @module
 */
import { Claims, describeHolder, DirLock, Lease, leaseMs } from "./_claims.ts";
import { prediction, ResultFiles, trajectoryState } from "./_results.ts";
import { rescuesOf } from "./_rescued.ts";

/** `<id>.resumeN.traj.json` beside `<id>.traj.json`: N of the file. */
const RESUMED = /^(.*)\.resume(\d+)\.traj\.json$/;

/**
 * The newest trajectory of an instance: the resumed one with the highest N, else `base` or a rescue
 * file of it (see `_rescued.ts`), whichever was written last.
 * @param base `<dir>/<id>/<id>.traj.json`
 */
export async function newestTrajectory(base: string): Promise<string> {
  const dir = base.slice(0, base.lastIndexOf("/"));
  const stem = base.slice(dir.length + 1).replace(/\.traj\.json$/, "");
  let best = base;
  let bestN = 0;
  try {
    for await (const e of Deno.readDir(dir)) {
      const m = RESUMED.exec(e.name);
      if (!m || m[1] !== stem || !e.isFile) continue;
      const n = Number(m[2]);
      if (n > bestN) [best, bestN] = [`${dir}/${e.name}`, n];
    }
  } catch {
    // No directory yet: the instance never ran.
  }
  if (bestN > 0) return best;
  const [rescue] = await rescuesOf(base);
  if (rescue === undefined) return base;
  const mtime = async (p: string) => {
    const s = await Deno.stat(p).catch(() => undefined);
    return s?.isFile ? s.mtime?.getTime() ?? 0 : -1;
  };
  return (await mtime(rescue)) > (await mtime(base)) ? rescue : base;
}

/** Remove an instance's resumed and rescued trajectories (before the batch runs it anew from the start). */
export async function removeResumed(base: string): Promise<void> {
  for (const rescue of await rescuesOf(base)) await Deno.remove(rescue).catch(() => {});
  const dir = base.slice(0, base.lastIndexOf("/"));
  const stem = base.slice(dir.length + 1).replace(/\.traj\.json$/, "");
  try {
    for await (const e of Deno.readDir(dir)) {
      if (RESUMED.exec(e.name)?.[1] === stem) await Deno.remove(`${dir}/${e.name}`).catch(() => {});
    }
  } catch {
    // Nothing to remove.
  }
}

/** A lease on one instance of a batch output directory, held by a resume. */
export interface InstanceLease {
  /**
   * Give the instance back to the batch, having recorded in its `preds.json` (when the batch keeps
   * one) the prediction of `trajectory` when it finished, as a batch worker records it.
   */
  release(trajectory: string): Promise<void>;
}

/**
 * Where a trajectory sits in a batch output directory: `<out>/<id>/<id>[.resumeN].traj.json` whose
 * `<out>` holds a batch's lock file; undefined for a trajectory of no batch.
 */
export async function batchInstanceOf(path: string, id: string): Promise<{ outDir: string } | undefined> {
  const m = /^(.*)\/([^/]+)\/([^/]+)$/.exec(path);
  if (!m || m[2] !== id || !(m[3] === `${id}.traj.json` || RESUMED.exec(m[3] ?? "")?.[1] === id)) {
    return undefined;
  }
  const outDir = m[1] ?? "";
  const isBatch = await Deno.stat(`${outDir}/.claudius.lock`).then((s) => s.isFile, () => false);
  return isBatch ? { outDir } : undefined;
}

/**
 * Claim instance `id` of the batch in `outDir` as a batch worker would (renewed while held), so that
 * no batch runs it meanwhile.
 * @param onLost called if a batch takes the claim over (its lease expired: this process stalled)
 * @returns the lease, or the description of the live process that holds the instance
 */
export async function leaseInstance(
  outDir: string,
  id: string,
  hostEnv: Record<string, string>,
  onLost: () => void,
): Promise<InstanceLease | { heldBy: string }> {
  const lock = await DirLock.open(outDir);
  const claims = new Claims(outDir, lock, { leaseMs: leaseMs(hostEnv) });
  const lease = await claims.claim(id);
  if (!(lease instanceof Lease)) {
    claims.close();
    lock.close();
    return { heldBy: describeHolder(lease.claim) };
  }
  lease.signal.addEventListener("abort", onLost, { once: true });
  return {
    release: async (trajectory) => {
      try {
        const state = await trajectoryState(trajectory);
        const hasPreds = await Deno.stat(`${outDir}/preds.json`).then((s) => s.isFile, () => false);
        if (state?.finished && hasPreds) {
          const files = new ResultFiles(outDir, Date.now(), lock);
          files.setPrediction(prediction(id, state.modelName, state.submission, state.bestOfK));
          await files.close();
        }
      } finally {
        await claims.release(id);
        claims.close();
        lock.close();
      }
    },
  };
}
