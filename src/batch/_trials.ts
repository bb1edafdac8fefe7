/**
 * Repeated trials of a batch (`--trials K`): where each (arm, trial) writes, which (trial, instance)
 * units a shard runs, and the refusal to mix a one-trial layout with a layout of trials in one
 * directory. Each (arm, trial) is a batch output directory of its own (upstream's layout, its own
 * claims and result files), so the unit of work (arm, trial, instance) is claimed, resumed and
 * skipped as an instance is in a plain batch.
 *
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Instance } from "./select.ts";
import type { Shard } from "./shard.ts";
import type { Arm } from "./types.ts";

/** Most trials `--trials` takes. */
export const MAX_TRIALS = 1000;

/** The directory of trial k: `trial-<k>`. */
export function trialDir(k: number): string {
  return `trial-${k}`;
}

/** One output directory of a batch: an arm's trial (the trial undefined for a batch of one trial). */
export interface Place {
  arm: Arm;
  trial: number | undefined;
  dir: string;
}

/**
 * The output directories: per arm (`<root>/<arm>`, or `<root>` for the batch's own config, named ""),
 * then per trial (`.../trial-<k>` when there are several), arm by arm.
 */
export function places(arms: readonly Arm[], root: string, trials: number): Place[] {
  return arms.flatMap((arm): Place[] => {
    const base = arm.name ? `${root}/${arm.name}` : root;
    if (trials <= 1) return [{ arm, trial: undefined, dir: base }];
    return Array.from(
      { length: trials },
      (_, i) => ({ arm, trial: i + 1, dir: `${base}/${trialDir(i + 1)}` }),
    );
  });
}

/**
 * The instances each trial runs (index k - 1): every selected one, or with a shard its share of the
 * (trial, instance) units in trial-major order (positions I-1, I-1+N, ... of trial 1's instances, then
 * trial 2's, ...), so N shards split K trials of a few instances as evenly as many instances.
 */
export function trialInstances(selected: readonly Instance[], trials: number, shard?: Shard): Instance[][] {
  return Array.from(
    { length: trials },
    (_, t) =>
      selected.filter((_, i) => !shard || (t * selected.length + i) % shard.count === shard.index - 1),
  );
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/**
 * Refuse to write trials where a batch of one trial lives, and one trial where trials live: the rerun of
 * either would not find its finished work.
 * @throws {ConfigError} naming the directory and what to do
 */
export async function checkLayout(
  arms: readonly Arm[],
  root: string,
  trials: number,
  outFlag: string,
): Promise<void> {
  for (const { name } of arms) {
    const base = name ? `${root}/${name}` : root;
    const where = name ? `${outFlag}/${name}` : outFlag;
    if (trials > 1 && (await exists(`${base}/.claudius.lock`) || await exists(`${base}/preds.json`))) {
      throw new ConfigError(
        `Cannot run --trials ${trials} into '${where}': it holds a batch of one trial, whose rerun is ` +
          `'claudius batch' without --trials; give another -o for the trials (each goes to ${where}/trial-<k>/)`,
      );
    }
    if (trials <= 1) {
      const found: number[] = [];
      try {
        for await (const e of Deno.readDir(base)) {
          const k = /^trial-([1-9]\d*)$/.exec(e.name)?.[1];
          if (e.isDirectory && k && await exists(`${base}/${e.name}/.claudius.lock`)) found.push(Number(k));
        }
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
      if (found.length) {
        throw new ConfigError(
          `Cannot run one trial into '${where}': it holds trials (${where}/${
            trialDir(Math.min(...found))
          }/, ...); ` +
            `rerun them with --trials ${Math.max(...found)} (or more, to add trials), or give another -o`,
        );
      }
    }
  }
}
