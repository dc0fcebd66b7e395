// The one status watcher: follows objects through the live cache until a stop condition holds,
// the timeout passes or the run is interrupted. Apply's and destroy's waits (wait-for.ts) and
// `live status` (follow-status.ts) are two stop conditions on it. An object is checked again on
// each change the cache's watches deliver and on every tick (time-based rules: a Pod's scheduling
// window); what is still awaited and has looked the same for a while is read again directly
// (live-cache.ts' refreshQuiet); a status is reported only when it differs from the last one.

import { setLongTimeout } from "../util/long-timer.js";
import type { StatusEvent, WaitReason } from "../model/events.js";
import type { KubeObject } from "../model/kube-object.js";
import { refKey, type ObjRef } from "../model/ref.js";
import type { LiveCache } from "../cluster/live-cache.js";
import { statusOfLive } from "./compute-status.js";
import type { ComputeStatusOptions, StatusResult } from "./types.js";

/** What the cache says of an object now: its state and status; `unreadable`: why its kind cannot be read (Unknown, never "not found"). */
interface Seen {
  live?: KubeObject;
  result: StatusResult;
  unreadable?: string;
}

/** An object still followed: the status reported last, and whether it was unreadable then. */
export interface Followed {
  ref: ObjRef;
  last: StatusResult;
  unreadable?: string;
}

type WatchEnd = "done" | "timeout" | "aborted";

export interface WatchOptions<O> {
  /** The status to report for what the cache says, and whether the object has reached its end (`settled`: it is no longer followed). */
  judge?(ref: ObjRef, seen: Seen): { result: StatusResult; settled?: O };
  /** Each status that differs from the one reported last for its object (the first one included). */
  onStatus(e: StatusEvent): void;
  /** An object not settled at its first look. */
  onWaiting?(ref: ObjRef, result: StatusResult): void;
  /** An object settled, or, when the watch ends first, `rest`'s outcome for it. */
  onSettled?(ref: ObjRef, outcome: O, last: StatusResult): void;
  /** How objects not settled end on timeout and on interrupt. */
  rest?: { timeout: O; aborted: O };
  /** The stop condition over the objects still followed; default: none is left. */
  done?(followed: ReadonlyMap<string, Followed>): boolean;
  /** Whether a followed object is still awaited (only those are read again when quiet); default: every one. */
  awaited?(f: Followed): boolean;
  /** After each tick's checks, while the watch goes on (progress, explanations). */
  onTick?(followed: ReadonlyMap<string, Followed>): void;
  timeoutMs?: number;
  /** An object's own timeout: it alone settles as `rest.timeout` then; the watch's timeout then ends only the objects without one. */
  timeoutOf?(ref: ObjRef): number | undefined;
  signal?: AbortSignal;
  /** How often time-based rules are re-checked. */
  tickMs?: number;
  /** After how long without a change an awaited object is read again directly (live-cache.ts' QUIET_REREAD_MS). */
  quietRereadMs?: number;
  now?: () => Date;
  /** How statuses are computed beyond kstatus' defaults (the run's health rules). */
  statusOptions?: Omit<ComputeStatusOptions, "now">;
  /** One object's, when they differ from `statusOptions` (a Job that must complete). */
  statusOptionsOf?(ref: ObjRef): Omit<ComputeStatusOptions, "now"> | undefined;
}

type WatchedCache = Pick<LiveCache, "get" | "readError" | "subscribe" | "refreshQuiet">;

export async function watchStatus<O>(cache: WatchedCache, refs: readonly ObjRef[], o: WatchOptions<O>): Promise<WatchEnd> {
  const now = o.now ?? (() => new Date());
  const followed = new Map<string, Followed>();
  const done = o.done ?? (() => followed.size === 0);

  /** Looks at one followed object again: reports a new status, settles it. */
  const check = (key: string, ref: ObjRef, first: boolean): void => {
    const live = cache.get(ref);
    const unreadable = live ? undefined : cache.readError(ref);
    const seen: Seen = { ...(live ? { live } : {}), result: unreadable ? { status: "Unknown", message: `cannot read its status: ${unreadable}` } : statusOfLive(live, now(), o.statusOptionsOf?.(ref) ?? o.statusOptions), ...(unreadable ? { unreadable } : {}) };
    const { result, settled } = o.judge ? o.judge(ref, seen) : { result: seen.result };
    const prev = followed.get(key);
    const fresh = !prev || changed(prev.last, result);
    if (fresh) o.onStatus({ type: "status", ref, status: result.status, message: result.message, ...(result.heldBy?.length ? { heldBy: result.heldBy } : {}), ...(live ? { object: live } : {}) });
    followed.set(key, { ref, last: fresh ? result : prev.last, ...(unreadable ? { unreadable } : {}) });
    if (settled !== undefined) {
      followed.delete(key);
      o.onSettled?.(ref, settled, result);
    } else if (first) o.onWaiting?.(ref, result);
  };

  for (const ref of refs) check(refKey(ref), ref, true);
  if (done(followed)) return "done";

  return new Promise<WatchEnd>((resolve) => {
    let ended = false;
    const end = (how: WatchEnd) => {
      if (ended) return;
      ended = true;
      unsubscribe();
      clearInterval(ticker);
      timer?.clear();
      for (const t of ownTimers) t.clear();
      o.signal?.removeEventListener("abort", onAbort);
      const rest = how === "timeout" ? o.rest?.timeout : how === "aborted" ? o.rest?.aborted : undefined;
      if (rest !== undefined) {
        for (const f of followed.values()) o.onSettled?.(f.ref, rest, f.last);
        followed.clear();
      }
      resolve(how);
    };
    const recheck = (key: string) => {
      const f = followed.get(key);
      if (ended || !f) return;
      check(key, f.ref, false);
      if (done(followed)) end("done");
    };
    const unsubscribe = cache.subscribe((ref) => recheck(refKey(ref)));
    const ticker = setInterval(() => {
      for (const [key, f] of [...followed]) check(key, f.ref, false); // time-based rules
      if (done(followed)) return end("done");
      // Not only the watch: what has looked the same for a while is read again (live-cache.ts).
      const awaited = [...followed.values()].filter((f) => o.awaited?.(f) ?? true);
      cache.refreshQuiet(awaited.map((f) => f.ref), o.quietRereadMs);
      o.onTick?.(followed);
    }, o.tickMs ?? 1000);
    /** Ends one object's watch at its timeout. */
    const expire = (key: string) => {
      const f = followed.get(key);
      if (ended || !f || !o.rest) return;
      followed.delete(key);
      o.onSettled?.(f.ref, o.rest.timeout, f.last);
      if (done(followed)) end("done");
    };
    const own = [...followed].flatMap(([key, f]) => {
      const ms = o.timeoutOf?.(f.ref);
      return ms ? [{ key, ms }] : [];
    });
    const ownKeys = new Set(own.map((t) => t.key));
    const ownTimers = own.map(({ key, ms }) => setLongTimeout(() => expire(key), ms));
    const timer = o.timeoutMs
      ? setLongTimeout(() => {
          if (ownKeys.size === 0) return end("timeout");
          for (const key of [...followed.keys()]) if (!ownKeys.has(key)) expire(key);
        }, o.timeoutMs)
      : undefined;
    const onAbort = () => end("aborted");
    o.signal?.addEventListener("abort", onAbort, { once: true });
    if (o.signal?.aborted) onAbort();
    // A change may have landed between the first look and subscribing.
    for (const key of [...followed.keys()]) recheck(key);
  });
}

function changed(a: StatusResult, b: StatusResult): boolean {
  return a.status !== b.status || a.message !== b.message || !sameReasons(a.heldBy, b.heldBy);
}

export function sameReasons(a: readonly WaitReason[] | undefined, b: readonly WaitReason[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}
