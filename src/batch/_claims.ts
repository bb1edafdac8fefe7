/**
 * Several `claudius batch` processes may share one output directory (shards on several machines, a
 * Slurm requeue or a pod retry on another node, a rerun started while the first still runs): an
 * instance is run by whoever claims it. A claim is a lease, the file `<out>/.claims/<id>.json`
 * naming its process (pid, host, pid space, start time) and when it expires; its holder renews it
 * every quarter of the lease while the instance runs. Claims are made, renewed and given back under
 * one lock on `<out>/.claudius.lock` (`flock`, released by the kernel when a process dies), which
 * also guards every read-modify-write of the shared result files.
 *
 * A claim is taken over when it has expired, whatever host wrote it; at once when its process is
 * of this pid space (same boot, same pid namespace) and is gone, a zombie, or another process with
 * the same pid (its start time differs); and at once when the file is not a well-formed claim.
 *
 * A holder writes an instance's files only through its {@link Lease}: each write (a trajectory save,
 * an artifact's rename, the removals before a run) runs under the lock with the claim checked, so a
 * process that lost its claim (it was frozen past its lease, its clock lags) never writes them again;
 * and before each model call the lease must have been confirmed within three quarters of its
 * length, so a process that woke up past it starts nothing. A holder whose claim was taken over, or
 * that cannot renew it (the claims directory became read-only), stops the instance at once and
 * says why ({@link LeaseLost}).
 *
 * @module
 */
import { exitMessage } from "../core/errors.ts";
import { writeFileAtomic } from "../lib/files.ts";
import { type ProcessIdentity, processStatus, runsSince, selfIdentity } from "./_proc.ts";
import {
  type Claim,
  claimLeaseMs,
  describeHolder,
  type DirLock,
  type Holder,
  LeaseLost,
  parseClaim,
  type Sighting,
} from "./_claim_file.ts";

export {
  type Claim,
  claimLeaseMs,
  DEFAULT_LEASE_SECONDS,
  describeHolder,
  DirLock,
  type Holder,
  LEASE_ENV,
  LeaseLost,
  leaseMs,
  parseClaim,
  type Sighting,
} from "./_claim_file.ts";

/** How {@link Claims} leases. */
export interface ClaimsOptions {
  /** Lease length (see {@link leaseMs}); renewed every quarter of it. */
  leaseMs: number;
  /** Wall clock in milliseconds (default `Date.now`). */
  now?: () => number;
  /** Warnings (a renewal that could not be written). */
  log?: (line: string) => void;
}

interface Held {
  claim: Claim;
  lease: Lease;
  /** When the claim was last written or found this process's own (this process's clock). */
  confirmed: number;
}

/**
 * This process's hold on one instance's claim ({@link Claims.claim}): what the instance's run
 * writes and starts goes through it.
 */
export class Lease {
  /** The instance. */
  readonly id: string;
  /** Its claim file. */
  readonly path: string;
  readonly #lost = new AbortController();
  readonly #claims: Claims;

  /** @internal made by {@link Claims.claim} */
  constructor(claims: Claims, id: string, path: string) {
    this.#claims = claims;
    this.id = id;
    this.path = path;
  }

  /** Aborted, with a {@link LeaseLost} saying why, once the claim is lost or cannot be renewed. */
  get signal(): AbortSignal {
    return this.#lost.signal;
  }

  /**
   * Before starting anything for the instance (a model call): throws the {@link LeaseLost} when the
   * claim is lost, or was last confirmed three quarters of a lease ago or more (this process was
   * stopped meanwhile, or its renewals fail): another process may be about to take it over.
   */
  check(): void {
    this.#claims.checkLease(this);
    this.#lost.signal.throwIfAborted();
  }

  /**
   * Run `write` (a write of the instance's files) holding the directory's lock, the claim found this
   * process's own (and renewed when a renewal is due).
   * @throws {LeaseLost} writing nothing, when the claim is lost
   */
  hold<T>(write: () => Promise<T>): Promise<T> {
    return this.#claims.holdLease(this, write);
  }

  /** @internal */
  lose(reason: LeaseLost): void {
    if (!this.#lost.signal.aborted) this.#lost.abort(reason);
  }
}

/** This process's claims in one output directory, renewed while held. */
export class Claims {
  readonly #dir: string;
  readonly #lock: DirLock;
  readonly #leaseMs: number;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  readonly #held = new Map<string, Held>();
  #me: Promise<ProcessIdentity> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #renewing = false;

  /**
   * @param outDir the output directory (exists)
   * @param lock the directory's lock
   * @param options lease length, clock, warnings
   */
  constructor(outDir: string, lock: DirLock, options: ClaimsOptions) {
    this.#dir = `${outDir}/.claims`;
    this.#lock = lock;
    this.#leaseMs = options.leaseMs;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? (() => {});
  }

  /** Milliseconds between renewals: a live holder's claim changes at least this often. */
  get renewMs(): number {
    return this.#leaseMs / 4;
  }

  /** Path of an instance's claim file. */
  path(id: string): string {
    return `${this.#dir}/${id}.json`;
  }

  /**
   * Claim `id` for this process (taking over a claim that holds nothing any more) and renew it
   * until {@link release}.
   * @param seen the claim found on `id` before: unchanged for its whole lease on this process's clock,
   *   it has expired whatever its holder's clock says
   * @returns this process's lease when claimed, else the live claim of another process
   */
  claim(id: string, seen?: Sighting): Promise<Lease | Holder> {
    return this.#lock.with(async () => {
      const on = await this.#read(id);
      const stale = on && seen && seen.claim.token === on.token && seen.claim.renewed === on.renewed &&
        this.#now() - seen.at >= claimLeaseMs(on);
      const holder = on && !stale && await this.#live(id, on);
      if (holder) return holder;
      const me = await (this.#me ??= selfIdentity());
      const now = this.#now();
      const mine: Claim = {
        pid: me.pid,
        host: me.host,
        started: new Date(now).toISOString(),
        pid_start: me.start,
        boot_id: me.bootId,
        pid_ns: me.pidNs,
        token: crypto.randomUUID(),
        renewed: new Date(now).toISOString(),
        expires: new Date(now + this.#leaseMs).toISOString(),
      };
      await Deno.mkdir(this.#dir, { recursive: true });
      await this.#write(id, mine); // replaces whatever held nothing
      const lease = new Lease(this, id, this.path(id));
      this.#held.set(id, { claim: mine, lease, confirmed: now });
      this.#timer ??= setInterval(() => void this.#renew(), this.renewMs);
      return lease;
    });
  }

  /** See {@link Lease.check}. @internal */
  checkLease(lease: Lease): void {
    const held = this.#held.get(lease.id);
    if (held?.lease !== lease) return; // lost (its reason is on the lease) or given back
    const since = this.#now() - held.confirmed;
    if (since >= this.#leaseMs * 3 / 4) {
      this.#lose(
        lease.id,
        held,
        new LeaseLost(exitMessage(
          "LeaseLost",
          "",
          `Stopped: the claim ${lease.path} was last confirmed ${seconds(since)} ago, most of its ` +
            `${seconds(this.#leaseMs)} lease (this process was stopped, or cannot renew it): another ` +
            "process may have taken it over",
        )),
      );
    }
  }

  /** See {@link Lease.hold}. @internal */
  holdLease<T>(lease: Lease, write: () => Promise<T>): Promise<T> {
    return this.#lock.with(async () => {
      lease.signal.throwIfAborted();
      const held = this.#held.get(lease.id);
      if (held?.lease !== lease) throw new LeaseLost(exitMessage("LeaseLost", "", "Stopped: not claimed"));
      const on = await this.#read(lease.id);
      if (on?.token !== held.claim.token) this.#lose(lease.id, held, this.#takenOver(lease.path, on));
      lease.signal.throwIfAborted();
      if (this.#now() - held.confirmed >= this.renewMs) await this.#renewOrLose(lease.id, held);
      lease.signal.throwIfAborted();
      return await write();
    });
  }

  /**
   * Whether `id`'s claim file is this process's claim now; call it holding the directory's lock (the
   * result files check each change they write for an instance this process runs).
   */
  async heldLocked(id: string): Promise<boolean> {
    const held = this.#held.get(id);
    return held !== undefined && (await this.#read(id))?.token === held.claim.token;
  }

  /** Give `id` back (after its results are written); a claim taken over meanwhile is left alone. */
  async release(id: string): Promise<void> {
    const held = this.#held.get(id);
    this.#forget(id);
    if (!held || held.lease.signal.aborted) return;
    await this.#lock.with(async () => {
      if ((await this.#read(id))?.token === held.claim.token) {
        await Deno.remove(this.path(id)).catch(() => {});
      }
    });
  }

  /** Stop renewing (claims still held are left to expire or to be found gone). */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #forget(id: string): void {
    this.#held.delete(id);
    if (this.#held.size === 0) this.close();
  }

  /** Stop holding `id`: its lease is aborted with `reason` (its run stops and records nothing). */
  #lose(id: string, held: Held, reason: LeaseLost): void {
    if (this.#held.get(id) === held) this.#forget(id);
    held.lease.lose(reason);
  }

  /** Why a claim found replaced (by `by`, or removed) is lost; a clock far behind the taker's is named. */
  #takenOver(path: string, by: Claim | undefined): LeaseLost {
    if (!by) return leaseLost(undefined, path);
    const ahead = Date.parse(by.renewed) - this.#now();
    const clock = ahead >= this.#leaseMs / 4
      ? `, whose clock is ${seconds(ahead)} ahead of this one's (a machine whose clock lags has its claims ` +
        "expire early: keep the clocks in step, e.g. with NTP)"
      : "";
    return leaseLost(by, path, clock);
  }

  /** Renew `id`'s claim; one that cannot be written is lost at once (its instance stops, saying why). */
  async #renewOrLose(id: string, held: Held): Promise<void> {
    try {
      await this.#renewOne(id, held);
    } catch (e) {
      const why = (e instanceof Error ? e.message : String(e)).replaceAll("\n", " ");
      this.#log(`warning: Cannot renew the claim ${this.path(id)}: ${why}`);
      this.#lose(id, held, this.#cannotRenew(id, why));
    }
  }

  #cannotRenew(id: string, why: string): LeaseLost {
    return new LeaseLost(
      exitMessage("LeaseLost", "", `Stopped: cannot renew the claim ${this.path(id)}: ${why}`),
    );
  }

  /** Write `id`'s claim again with a new expiry. */
  async #renewOne(id: string, held: Held): Promise<void> {
    const now = this.#now();
    const next = {
      ...held.claim,
      renewed: new Date(now).toISOString(),
      expires: new Date(now + this.#leaseMs).toISOString(),
    };
    await this.#write(id, next);
    held.claim = next;
    held.confirmed = now;
  }

  async #read(id: string): Promise<Claim | undefined> {
    try {
      return parseClaim(await Deno.readTextFile(this.path(id)));
    } catch {
      return undefined; // missing or unreadable: holds nothing
    }
  }

  /** Write a claim file whole (a temporary file, then a rename over the old one). */
  #write(id: string, claim: Claim): Promise<void> {
    return writeFileAtomic(this.path(id), JSON.stringify(claim) + "\n");
  }

  /** The claim as a live holder, or undefined when it holds nothing any more. */
  async #live(id: string, claim: Claim): Promise<Holder | undefined> {
    if (Date.parse(claim.expires) <= this.#now()) return undefined;
    const me = await (this.#me ??= selfIdentity());
    const here = claim.boot_id !== "" && claim.boot_id === me.bootId && claim.pid_ns === me.pidNs;
    if (!here) return { claim, verified: false };
    if (claim.pid === me.pid) {
      // This very process: live only while it holds that claim (else a leftover of an earlier one).
      return this.#held.get(id)?.claim.token === claim.token ? { claim, verified: true } : undefined;
    }
    return runsSince(await processStatus(claim.pid), claim.pid_start) ? { claim, verified: true } : undefined;
  }

  /**
   * Renew every held claim. One found taken over, or that cannot be written (a read-only or full
   * claims directory), is lost at once: its instance stops, saying why.
   */
  async #renew(): Promise<void> {
    if (this.#renewing) return;
    this.#renewing = true;
    try {
      await this.#lock.with(async () => {
        for (const [id, held] of this.#held) {
          const on = await this.#read(id);
          if (on?.token !== held.claim.token) {
            this.#lose(id, held, this.#takenOver(this.path(id), on));
            continue;
          }
          await this.#renewOrLose(id, held);
        }
      });
    } catch (e) {
      // The lock itself failed: every claim is left unrenewed, so every instance stops.
      const why = (e instanceof Error ? e.message : String(e)).replaceAll("\n", " ");
      this.#log(`warning: Cannot renew claims in ${this.#dir}: ${why}`);
      for (const [id, held] of this.#held) this.#lose(id, held, this.#cannotRenew(id, why));
    } finally {
      this.#renewing = false;
    }
  }
}

/** The exit message of an instance whose claim was taken over (`why`: more about the taker). */
export function leaseLost(by: Claim | undefined, path: string, why = ""): LeaseLost {
  const what = by ? `was taken over by ${describeHolder(by)}${why}` : "was removed";
  return new LeaseLost(exitMessage("LeaseLost", "", `Stopped: the claim ${path} ${what} while this ran`));
}

/** Milliseconds as whole seconds for messages (`75 s`; `0.8 s` under one). */
function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}
