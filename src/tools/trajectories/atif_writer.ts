/**
 * Keeps an ATIF v1.7 copy of a running trajectory on disk (`run.atif_path`): after every step the
 * whole document is written to a temporary file beside it and renamed over it, so a reader (Harbor,
 * after killing the agent on a timeout) always finds a whole document. Each finished step is
 * serialised once. Its `session_id` is a UUID made for the run: unique per run (a Harbor trial), where
 * the trajectory's file name (`claudius.traj.json` in every trial) is not.
 *
 * @module
 */
import { absolutePath } from "../../lib/paths.ts";
import { ConfigError } from "../../core/errors.ts";
import { TRAJECTORY_FORMAT } from "../../core/trajectory.ts";
import type { Json } from "../../core/types.ts";
import { parseTrajectory } from "./parse_trajectory.ts";
import { toAtif } from "./to_atif.ts";
import { sameFile, writeFileAtomic } from "../../lib/files.ts";

/** Writes the ATIF copy of a trajectory after every step. */
export class AtifWriter {
  readonly path: string;
  readonly #top: Record<string, Json>;
  readonly #source: string;
  /** JSON of the steps known finished (all but the last written). */
  #stepJson: string[] = [];
  /** The document's `session_id`: a UUID of its own, so that no two runs (trials) share one. */
  readonly sessionId: string;

  /**
   * @param path where the ATIF document goes (parent directories are created)
   * @param trajectory the trajectory's path
   * @param top the trajectory's extra top-level keys (`instance_id`, kept in the root's `extra`)
   * @param sessionId the session id (default: a new random UUID, as Harbor mints for its own agents)
   */
  constructor(path: string, trajectory: string, top: Record<string, Json> = {}, sessionId?: string) {
    this.path = path;
    this.#source = trajectory;
    this.#top = top;
    this.sessionId = sessionId ?? crypto.randomUUID();
  }

  /**
   * Write the ATIF document for the trajectory's current messages and info.
   * @throws {Deno.errors.PermissionDenied} (or another I/O error) when the path cannot be written
   */
  async save(messages: readonly object[], info: object): Promise<void> {
    const t = parseTrajectory({ trajectory_format: TRAJECTORY_FORMAT, ...this.#top, messages, info }, {
      path: this.#source,
    });
    const { steps, ...root } = toAtif(t, { sessionId: this.sessionId });
    // Steps before the last are final (messages are only appended); the last may still grow.
    for (let i = this.#stepJson.length; i < steps.length - 1; i++) {
      this.#stepJson.push(JSON.stringify(steps[i]));
    }
    const last = steps.length ? JSON.stringify(steps.at(-1)) : undefined;
    const body = [...this.#stepJson.slice(0, Math.max(0, steps.length - 1)), ...(last ? [last] : [])];
    const head = JSON.stringify(root);
    const text = `${head.slice(0, -1)},"steps":[${body.join(",")}]}\n`;
    const dir = this.path.replace(/\/[^/]*$/, "");
    if (dir && dir !== this.path) await Deno.mkdir(dir, { recursive: true });
    await writeFileAtomic(this.path, text);
  }
}

/**
 * Check `run.atif_path` before anything runs: it must not be the trajectory itself (the ATIF copy,
 * rewritten after every step, would replace it) nor a directory.
 *
 * @param path the ATIF path as resolved against the trajectory's directory
 * @param trajectory the trajectory's path
 * @param cwd the directory relative paths start from
 * @param predecessor the trajectory a resumed run goes on from (never changed)
 * @throws {ConfigError} naming `run.atif_path` and what is wrong
 */
export async function checkAtifPath(
  path: string,
  trajectory: string,
  cwd: string,
  predecessor?: string,
): Promise<void> {
  const cannot = (why: string) => new ConfigError(`Cannot write run.atif_path '${path}': ${why}`);
  const [target, own] = [absolutePath(path, cwd), absolutePath(trajectory, cwd)];
  if (target === own || await sameFile(target, own)) {
    throw cannot(
      `it is the trajectory itself (${trajectory}), which the copy would replace; give another file`,
    );
  }
  if (
    predecessor !== undefined &&
    (target === absolutePath(predecessor, cwd) || await sameFile(target, predecessor))
  ) {
    throw cannot(
      `it is the trajectory being resumed (${predecessor}), which is never changed; give another file`,
    );
  }
  if ((await Deno.stat(target).catch(() => undefined))?.isDirectory) {
    throw cannot("it is a directory; give a file path");
  }
}
