// The run's lock in the cluster (run-lock.ts decides, this reads and writes the Lease). A run that
// may write looks first (a read): held by another run, it fails at once naming the holder, or
// waits up to `timeoutMs`. Once its plan writes something it takes the lock, guarded by the
// Lease it looked at (one write when nobody holds it): if anyone took the lock in between, the
// run learns that what it read may be stale and reads again. It renews the Lease every third of
// its duration while it lasts and releases it at the end (kept, without a holder, so the next
// run can tell whether anyone ran meanwhile; a destroy deletes it). A run whose plan changes
// nothing writes no Lease. Where the Lease cannot be kept (the namespace does not exist yet, the
// user may not write Leases), the run goes on without it, saying why for the latter: the
// inventory's guarded writes still keep two runs from losing each other's objects.

import { hostname, userInfo } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, briefApiError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import { InventoryLockedError } from "../model/errors.js";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";
import { decideLease, heldMessage, holderIdentity, holderOf, leaseBody, lockRef, describeInventory, releasedLease, RENEW_EVERY_MS } from "./run-lock.js";

export interface LockOptions {
  /** `--lock-timeout`: wait this long for a held lock (absent or 0: fail at once). */
  timeoutMs?: number;
  /** What the holder runs, for the identity: "apply", "destroy", "migrate". */
  command: string;
  signal?: AbortSignal;
  /** Told why the run goes on without the lock, or that it lost it. */
  onWarning: (message: string) => void;
  /** Told each time the run waits a little longer for the lock. */
  onWaiting?: (message: string) => void;
  now?: () => Date;
}

export interface RunLock {
  /** Stops renewing and releases the Lease (only ours: guarded by its resourceVersion); `remove`: deletes it (a destroy). */
  release(o?: { remove?: boolean }): Promise<void>;
}

const NO_LOCK: RunLock = { release: async () => undefined };

/** The Lease a run looked at before it read anything (undefined: there was none, or it could not be read). */
export interface SeenLease {
  lease?: KubeObject;
}

/**
 * Before a run reads anything: fails at once (or waits up to `timeoutMs`) while another run holds
 * the lock. Reads only: a run that turns out to change nothing never writes the Lease.
 */
export async function awaitFreeLock(cluster: Cluster, info: InventoryInfo, o: LockOptions): Promise<SeenLease> {
  const ref = lockRef(info);
  const me = identity(o.command);
  const started = clock(o).getTime();
  for (;;) {
    const lease = await cluster.get(ref, o.signal).catch((err: unknown) => {
      if (err instanceof ApiError) return undefined; // acquireRunLock says why, if the run must write
      throw err;
    });
    const decision = decideLease(lease, clock(o), me);
    if (decision.action === "take") return lease ? { lease } : {};
    await waitOrFail(info, decision, started, o);
  }
}

/**
 * Takes the lock for a run about to write, guarded by the Lease the run looked at first (`seen`).
 * `stale`: another run took the lock since (it waited for it, or one came and went), so what this
 * run read before may be out of date: the caller reads again.
 */
export async function acquireRunLock(cluster: Cluster, info: InventoryInfo, o: LockOptions, seen: SeenLease = {}): Promise<{ lock: RunLock; stale: boolean }> {
  const ref = lockRef(info);
  const me = identity(o.command);
  const started = clock(o);
  let stale = false;
  let current = seen.lease;
  let known = true;
  for (;;) {
    try {
      if (!known) current = await cluster.get(ref, o.signal);
      const decision = decideLease(current, clock(o), me);
      if (decision.action === "take") {
        const body = leaseBody(ref, me, started, clock(o), current);
        // Not cut short by an interruption: the server may take a write whose answer never comes,
        // and a run that does not know it holds the Lease cannot release it (the next run would
        // wait out its duration). The run stops right after, releasing it.
        const stored = current ? await cluster.update(body) : await cluster.create(body);
        return { lock: new HeldLock(cluster, ref, me, started, stored, o), stale };
      }
      await waitOrFail(info, decision, started.getTime(), o);
      known = false;
      stale = true;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Someone created, changed or deleted it since this run looked: read it again, and the rest too.
      if (err.status === 409 || (err.notFound && err.missingNamespace === undefined)) {
        known = false;
        stale = true;
        continue;
      }
      // A first apply whose namespace does not exist yet: it creates it; the inventory's guarded
      // creation stops a second first apply before it changes anything.
      if (err.missingNamespace !== undefined || err.namespaceTerminating) return { lock: NO_LOCK, stale };
      const why = err.status === 403 ? `${briefApiError(err)} (grant get, create, update and delete on leases.coordination.k8s.io in namespace ${info.namespace} to keep runs apart)` : briefApiError(err);
      o.onWarning(`this run does not hold the lock of the inventory ${describeInventory(info)} (Lease ${info.namespace}/${ref.name}): ${why}; another run of the package at the same time is not kept out`);
      return { lock: NO_LOCK, stale };
    }
  }
}

/** Held: fail now (exit 2, naming the holder), or wait a little while `timeoutMs` allows. */
async function waitOrFail(info: InventoryInfo, decision: Extract<ReturnType<typeof decideLease>, { action: "wait" }>, startedMs: number, o: LockOptions): Promise<void> {
  const now = clock(o);
  const remaining = startedMs + (o.timeoutMs ?? 0) - now.getTime();
  if (remaining <= 0) throw new InventoryLockedError(heldMessage(info, decision.holder, decision.expiresInMs, now, o.timeoutMs ? now.getTime() - startedMs : undefined));
  o.onWaiting?.(`waiting for the lock of the inventory ${describeInventory(info)}: held by ${decision.holder.identity}`);
  await sleep(Math.min(500, remaining, Math.max(50, decision.expiresInMs)), undefined, { signal: o.signal });
}

function clock(o: LockOptions): Date {
  return o.now?.() ?? new Date();
}

function identity(command: string): string {
  return holderIdentity({ user: osUser(), host: hostname(), pid: process.pid, command });
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? "";
  }
}

class HeldLock implements RunLock {
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> = Promise.resolve();
  private lost = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly ref: ReturnType<typeof lockRef>,
    private readonly me: string,
    private readonly acquired: Date,
    private stored: KubeObject,
    private readonly o: LockOptions,
  ) {
    this.timer = setInterval(() => {
      this.renewing = this.renew();
    }, RENEW_EVERY_MS);
    this.timer.unref?.();
  }

  private async renew(): Promise<void> {
    if (this.lost) return;
    try {
      this.stored = await this.cluster.update(leaseBody(this.ref, this.me, this.acquired, clock(this.o), this.stored));
    } catch (err) {
      if (!(err instanceof ApiError)) return;
      // Its namespace is being deleted (a destroy of the package that brought it): nothing to keep.
      if (err.notFound || err.namespaceTerminating) return void (this.lost = true);
      if (err.status !== 409) return; // tried again at the next tick
      const current = await this.cluster.get(this.ref).catch(() => undefined);
      if (current && holderOf(current)?.identity === this.me) {
        this.stored = current;
        return;
      }
      this.lost = true;
      const holder = holderOf(current);
      this.o.onWarning(`this run lost the lock of its inventory (Lease ${this.ref.namespace}/${this.ref.name}) to ${holder?.identity ?? "nobody"}: it could not renew it in time; another run may be writing the same objects now`);
    }
  }

  async release(o: { remove?: boolean } = {}): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
    if (this.lost) return;
    // Only ours: a run that took it over after ours expired keeps it (both are guarded).
    if (o.remove) await this.cluster.delete(this.ref, { uid: this.stored.metadata.uid, resourceVersion: this.stored.metadata.resourceVersion }).catch(() => undefined);
    else await this.cluster.update(releasedLease(this.stored, clock(this.o))).catch(() => undefined);
  }
}
