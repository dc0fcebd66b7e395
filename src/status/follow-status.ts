// `live status`: the status of every object the cluster inventory lists, as a stream of status
// events: all of them once, then each change, until the poll-until condition holds.

import { setLongTimeout, type LongTimer } from "../util/long-timer.js";
import { EventChannel } from "../util/event-channel.js";
import { statusOfLive } from "./compute-status.js";
import type { Cluster } from "../cluster/types.js";
import type { StatusEvent } from "../model/events.js";
import { refKey, type ObjRef } from "../model/ref.js";
import { aggregateStatus } from "./aggregate.js";
import { LiveCache } from "./live-cache.js";
import type { ComputeStatusOptions, StatusResult } from "./types.js";

export type PollUntil = "known" | "current" | "deleted" | "forever";

export interface FollowStatusOptions {
  pollUntil?: PollUntil;
  timeoutMs?: number;
  pollPeriodMs?: number;
  signal?: AbortSignal;
  now?: () => Date;
  /** How statuses are computed beyond kstatus' defaults (the package's health rules). */
  statusOptions?: Omit<ComputeStatusOptions, "now">;
}

export function followStatus(cluster: Cluster, refs: ObjRef[], opts: FollowStatusOptions = {}): AsyncIterable<StatusEvent> {
  const channel = new EventChannel<StatusEvent>();
  const until = opts.pollUntil ?? "known";
  const now = opts.now ?? (() => new Date());
  const abort = new AbortController();
  opts.signal?.addEventListener("abort", () => abort.abort(), { once: true });
  // Watches start with the subscription below: a run whose first reads end it (poll-until known) makes none.
  const cache = new LiveCache(cluster, { pollPeriodMs: opts.pollPeriodMs, signal: abort.signal, watchOnDemand: true });
  const last = new Map<string, StatusEvent>();
  const wanted = new Set(refs.map(refKey));
  const unreadableKeys = new Set<string>();

  const publish = (ref: ObjRef) => {
    const object = cache.get(ref);
    // Not read (forbidden, its API unavailable): unknown, never "not found".
    const unreadable = object ? undefined : cache.readError(ref);
    if (unreadable) unreadableKeys.add(refKey(ref));
    else unreadableKeys.delete(refKey(ref));
    const r: StatusResult = unreadable ? { status: "Unknown", message: `cannot read its status: ${unreadable}` } : statusOfLive(object, now(), opts.statusOptions);
    const prev = last.get(refKey(ref));
    const heldBy = r.heldBy?.length ? { heldBy: r.heldBy } : {};
    if (prev && prev.status === r.status && prev.message === r.message && JSON.stringify(prev.heldBy) === JSON.stringify(heldBy.heldBy)) return;
    const ev: StatusEvent = { type: "status", ref, status: r.status, message: r.message, ...heldBy, ...(object ? { object } : {}) };
    last.set(refKey(ref), ev);
    channel.push(ev);
  };
  /** Whether the poll-until condition still waits on this object (forever: every object). */
  const stillAwaited = (ref: ObjRef) => {
    const s = last.get(refKey(ref))?.status;
    return until === "current" ? s !== "Current" : until === "deleted" ? s !== "NotFound" : until === "forever" || s === "Unknown";
  };
  const done = () => {
    const statuses = [...last.values()].map((e) => e.status);
    // An object that cannot be read is as known as it will get: waiting would never end.
    if (until === "known") return [...last.entries()].every(([key, e]) => e.status !== "Unknown" || unreadableKeys.has(key));
    if (until === "current") return aggregateStatus(statuses, "Current") === "Current";
    if (until === "deleted") return aggregateStatus(statuses, "NotFound") === "NotFound";
    return false;
  };

  (async () => {
    let timer: LongTimer | undefined;
    let ticker: NodeJS.Timeout | undefined;
    let unsubscribe = () => {};
    try {
      // The timeout bounds the whole run, the first read included: a list the server never
      // answers (an aggregated API that hangs, a kind caught mid-deletion) must not hold it.
      let timedOut = false;
      const stopped = new Promise<void>((resolve) => {
        if (opts.timeoutMs) timer = setLongTimeout(() => ((timedOut = true), resolve()), opts.timeoutMs);
        abort.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      await Promise.race([cache.follow(refs), stopped]);
      for (const r of refs) {
        if (cache.isRead(r)) publish(r);
        else channel.push({ type: "status", ref: r, status: "Unknown", message: timedOut ? "not read within the timeout: the API server has not answered the list of its kind" : "not read: interrupted before the API server answered" });
      }
      if (!timedOut && !abort.signal.aborted && !done()) {
        await Promise.race([
          stopped,
          new Promise<void>((resolve) => {
            const check = () => {
              if (done()) resolve();
            };
            unsubscribe = cache.subscribe((ref) => {
              if (!wanted.has(refKey(ref))) return;
              publish(ref);
              check();
            });
            ticker = setInterval(() => {
              for (const r of refs) publish(r); // time-based rules
              cache.refreshQuiet(refs.filter(stillAwaited)); // not only the watch (live-cache.ts)
              check();
            }, 1000);
            check();
          }),
        ]);
      }
      channel.close();
    } catch (err) {
      channel.fail(err);
    } finally {
      unsubscribe();
      timer?.clear();
      if (ticker) clearInterval(ticker);
      cache.close();
    }
  })();
  return channel;
}
