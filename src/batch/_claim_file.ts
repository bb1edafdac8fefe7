/**
 * A claim file as batch processes share it: its shape, how it is read, the lease length, and the
 * output directory's lock under which claims are made, renewed and given back (see `_claims.ts`).
 *
 * @module
 */
import { ConfigError, InterruptAgentFlow } from "../core/errors.ts";

/** The variable that sets the lease length in seconds. */
export const LEASE_ENV = "CLAUDIUS_LEASE_SECONDS";
/** The lease length when {@link LEASE_ENV} is not set. */
export const DEFAULT_LEASE_SECONDS = 60;

/**
 * The longest lease, a day: a dead claimant's instances wait that long, and a quarter of it (the
 * renewal) stays far inside a timer's 2^31 - 1 ms (longer ones fired at once, or gave no date).
 */
export const MAX_LEASE_SECONDS = 86_400;

/** Who holds an instance, as its claim file says (every field required). */
export interface Claim {
  pid: number;
  host: string;
  /** When the claiming process started the instance (ISO 8601). */
  started: string;
  /** The process's start time in clock ticks since boot: tells pid reuse. */
  pid_start: string;
  /** The kernel's boot id and the pid namespace: where `pid` means this process. */
  boot_id: string;
  pid_ns: string;
  /** Unique to this claim: its holder knows it is still its own. */
  token: string;
  /** Last renewal and the end of the lease (ISO 8601, the holder's clock). */
  renewed: string;
  expires: string;
}

/** A live claim of another process, as {@link Claims.claim} found it. */
export interface Holder {
  claim: Claim;
  /** Its process runs in this pid space and was seen running; otherwise only its lease is known. */
  verified: boolean;
}

/** A claim as this process saw it, and when (its clock). */
export interface Sighting {
  claim: Claim;
  at: number;
}

/** The lease length a claim was written with (its holder's clock on both ends: no skew). */
export function claimLeaseMs(claim: Claim): number {
  return Math.max(0, Date.parse(claim.expires) - Date.parse(claim.renewed));
}

/** The instance's claim was taken over by another process: this one stops it and records nothing. */
export class LeaseLost extends InterruptAgentFlow {}

/** `pid P on H`, for messages. */
export function describeHolder(claim: Claim): string {
  return `pid ${claim.pid} on ${claim.host}`;
}

/**
 * The lease length in milliseconds from {@link LEASE_ENV} (default {@link DEFAULT_LEASE_SECONDS}).
 * @throws {ConfigError} when it is not a number of seconds from 1 to {@link MAX_LEASE_SECONDS}
 */
export function leaseMs(env: Record<string, string>): number {
  const raw = env[LEASE_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_LEASE_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > MAX_LEASE_SECONDS) {
    throw new ConfigError(
      `${LEASE_ENV} must be a number of seconds from 1 to ${MAX_LEASE_SECONDS} (a day), got '${raw}'`,
    );
  }
  return seconds * 1000;
}

/**
 * A claim file's text as a claim, or undefined when it is not one (torn, `null`, `[]`, a field
 * missing or of the wrong type, an unreadable time): such a file holds nothing.
 */
export function parseClaim(text: string): Claim | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const { pid, host, started, pid_start, boot_id, pid_ns, token, renewed, expires }: Record<string, unknown> =
    {
      ...v,
    };
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (
    !isString(host) || !isString(started) || !isString(pid_start) || !isString(boot_id) ||
    !isString(pid_ns) || !isString(token) || token === "" || !isString(renewed) || !isString(expires) ||
    !Number.isFinite(Date.parse(expires))
  ) return undefined;
  return { pid, host, started, pid_start, boot_id, pid_ns, token, renewed, expires };
}

const isString = (v: unknown): v is string => typeof v === "string";

/** An exclusive lock on an output directory, shared by every batch process working in it. */
export class DirLock {
  #file: Deno.FsFile;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Open (create) the directory's lock file.
   * @param dir the output directory (exists)
   * @throws {ConfigError} naming it when something other than a regular file has its name (opening a
   *   pipe for writing waits for a reader, for ever and deaf to signals)
   */
  static async open(dir: string): Promise<DirLock> {
    const path = `${dir}/.claudius.lock`;
    const there = await Deno.lstat(path).catch(() => undefined);
    if (there && !there.isFile) {
      const what = there.isDirectory
        ? "a directory"
        : there.isSymlink
        ? "a symbolic link"
        : "a pipe, device or socket";
      throw new ConfigError(`Cannot lock ${dir}: ${path} is ${what}, not a file; remove it and run again`);
    }
    return new DirLock(await Deno.open(path, { create: true, write: true }));
  }

  /** Run `fn` holding the lock (one holder at a time, in this process and across processes). */
  with<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      await this.#file.lock(true);
      try {
        return await fn();
      } finally {
        await this.#file.unlock();
      }
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Release the lock file. */
  close(): void {
    this.#file.close();
  }
}
