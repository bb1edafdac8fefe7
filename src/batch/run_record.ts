/**
 * `<out>/run.json`: what a reader needs to reproduce a batch's rows, one entry per invocation that ran
 * in the directory (a rerun, a shard, a second process each add theirs): claudius's version, the
 * command line with secrets redacted, each config file's digest and the prompts' source, the model as
 * configured and as the responses named it, each image and the digest its engine reports, the price
 * table. Written when the invocation starts, again as its instances finish and when it ends, under
 * the directory's lock and replaced whole, so it is whole JSON at every moment.
 *
 * @module
 */
import { runCommand } from "../lib/process.ts";
import { writeFileAtomic } from "../lib/files.ts";
import type { Json } from "../core/types.ts";
import type { DirLock } from "./_claims.ts";

/** The file's format, its first key. */
export const RUN_FORMAT = "claudius-run-1";

/** What the command knows of the invocation when it starts. */
export interface RunFacts {
  claudius_version: string;
  /** The upstream release whose behaviour claudius reproduces. */
  mini_version: string;
  /** The command line as typed (the program's face first), credentials `[REDACTED]`. */
  command_line: string[];
  cwd: string;
  /** Each config source: its spec, and for a file its path, sha256 and what it is (see `provenance.ts`). */
  config_files: { [key: string]: Json }[];
  /** Where the prompts came from (`info.prompts` of each trajectory). */
  prompts: { [key: string]: Json };
  /** `model.model_name` as configured (before any instance's rendering). */
  model: string;
  /** The price table that prices calls whose provider reports no cost. */
  price_table: string;
  /** The ablation arm this directory is (`--arm NAME=SPEC`). */
  arm?: string;
  /** The trial this directory is (`--trials K`). */
  trial?: number;
}

/** An image and what its engine reports for it. */
interface ImageFacts {
  /** The engine's id of the image (`sha256:...`), or null when it could not be asked. */
  id: string | null;
  /** Its registry digests (`name@sha256:...`). */
  repo_digests: string[];
  /** The engine (`docker`, `podman`, with its `DOCKER_HOST`). */
  engine: string;
  /** Why it could not be asked. */
  error?: string;
}

/** Where an instance's container came from. */
export interface ImageUse {
  image: string;
  /** The engine CLI (`docker`, `podman`). */
  executable: string;
  /** `DOCKER_HOST` of the engine, if any. */
  host?: string;
}

/** This invocation's entry in `run.json`, kept up to date. */
export class RunRecord {
  readonly #path: string;
  readonly #lock: DirLock;
  readonly #id: string;
  readonly #entry: { [key: string]: Json };
  readonly #served = new Map<string, number>();
  readonly #images = new Map<string, Promise<ImageFacts>>();
  readonly #env: Record<string, string>;

  private constructor(
    dir: string,
    lock: DirLock,
    entry: { [key: string]: Json },
    env: Record<string, string>,
  ) {
    this.#path = `${dir}/run.json`;
    this.#lock = lock;
    this.#id = String(entry.invocation);
    this.#entry = entry;
    this.#env = env;
  }

  /**
   * Add this invocation's entry to `<dir>/run.json` (the file is made when there is none).
   * @param startedAt milliseconds since the epoch
   */
  static async open(
    dir: string,
    lock: DirLock,
    facts: RunFacts,
    startedAt: number,
    env: Record<string, string>,
  ): Promise<RunRecord> {
    const entry: { [key: string]: Json } = {
      invocation: crypto.randomUUID(),
      started_at: new Date(startedAt).toISOString(),
      ended_at: null,
      pid: Deno.pid,
      hostname: Deno.hostname(),
      ...facts,
      model: { configured: facts.model, served: {} },
      images: {},
    };
    const record = new RunRecord(dir, lock, entry, env);
    await record.flush();
    return record;
  }

  /** A response named this model (`model` of its body). */
  served(name: string): void {
    this.#served.set(name, (this.#served.get(name) ?? 0) + 1);
  }

  /** An instance ran in a container of this image: its engine is asked for the digest, once. */
  image(use: ImageUse): void {
    const key = `${use.executable}|${use.host ?? ""}|${use.image}`;
    if (!this.#images.has(key)) this.#images.set(key, inspect(use, this.#env));
  }

  /** Write the entry as it stands (under the directory's lock, the file replaced whole). */
  async flush(): Promise<void> {
    const images: { [key: string]: Json } = {};
    for (const [key, facts] of this.#images) {
      const name = key.slice(key.lastIndexOf("|") + 1);
      images[name] = { ...await facts } as unknown as Json;
    }
    this.#entry.images = images;
    this.#entry.model = {
      configured: (this.#entry.model as { configured: Json }).configured,
      served: Object.fromEntries(this.#served),
    };
    await this.#lock.with(async () => {
      const text = await Deno.readTextFile(this.#path).catch(() => "");
      let invocations: Json[] = [];
      try {
        const data = JSON.parse(text);
        if (Array.isArray(data?.invocations)) invocations = data.invocations;
      } catch { /* none yet, or not ours: started anew */ }
      const mine = invocations.findIndex((e) => (e as { invocation?: string })?.invocation === this.#id);
      if (mine >= 0) invocations[mine] = this.#entry;
      else invocations.push(this.#entry);
      await writeFileAtomic(this.#path, JSON.stringify({ format: RUN_FORMAT, invocations }, null, 2) + "\n");
    });
  }

  /** The invocation ended: its end time, and the entry written a last time. */
  async close(endedAt: number): Promise<void> {
    this.#entry.ended_at = new Date(endedAt).toISOString();
    await this.flush();
  }
}

/** The engine's id and registry digests of an image (`docker image inspect`). */
async function inspect(use: ImageUse, env: Record<string, string>): Promise<ImageFacts> {
  const engine = use.host ? `${use.executable} (DOCKER_HOST=${use.host})` : use.executable;
  const r = await runCommand(
    [use.executable, "image", "inspect", "--format", "{{json .Id}} {{json .RepoDigests}}", use.image],
    { timeoutSeconds: 60, env: { ...env, ...(use.host ? { DOCKER_HOST: use.host } : {}) } },
  ).catch((e) => ({ exitCode: -1, output: String(e) }));
  const text = "output" in r ? String(r.output).trim() : "";
  const [id, ...rest] = text.split(" ");
  try {
    if (r.exitCode !== 0) throw new Error(text.split("\n")[0] || `exit ${r.exitCode}`);
    const digests = JSON.parse(rest.join(" ") || "[]");
    return { id: JSON.parse(id ?? "null"), repo_digests: Array.isArray(digests) ? digests : [], engine };
  } catch (e) {
    return { id: null, repo_digests: [], engine, error: (e as Error).message.slice(0, 300) };
  }
}
