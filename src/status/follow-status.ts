// `live status`: the status of every object the cluster inventory lists, as a stream of status
// events: all of them once, then each change, until the poll-until condition holds.

import { setLongTimeout, type LongTimer } from "../util/long-timer.js";
import { EventChannel } from "../util/event-channel.js";
import { statusOfLive } from "./compute-status.js";
import type { Cluster } from "../cluster/types.js";
import type { StatusEvent } from "../events.js";
import { refKey, type ObjRef } from "../object/ref.js";
import { aggregateStatus } from "./aggregate.js";
import { LiveCache } from "./live-cache.js";
import type { ComputeStatusOptions } from "./types.js";

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
  const cache = new LiveCache(cluster, { pollPeriodMs: opts.pollPeriodMs, signal: abort.signal });
  const last = new Map<string, StatusEvent>();
  const wanted = new Set(refs.map(refKey));

  const publish = (ref: ObjRef) => {
    const object = cache.get(ref);
    const r = statusOfLive(object, now(), opts.statusOptions);
    const prev = last.get(refKey(ref));
    if (prev && prev.status === r.status && prev.message === r.message) return;
    const ev: StatusEvent = { type: "status", ref, status: r.status, message: r.message, ...(object ? { object } : {}) };
    last.set(refKey(ref), ev);
    channel.push(ev);
  };
  const done = () => {
    const statuses = [...last.values()].map((e) => e.status);
    if (until === "known") return !statuses.includes("Unknown");
    if (until === "current") return aggregateStatus(statuses, "Current") === "Current";
    if (until === "deleted") return aggregateStatus(statuses, "NotFound") === "NotFound";
    return false;
  };

  (async () => {
    let timer: LongTimer | undefined;
    let ticker: NodeJS.Timeout | undefined;
    try {
      await cache.follow(refs);
      for (const r of refs) publish(r);
      if (!done()) {
        await new Promise<void>((resolve) => {
          const finish = () => {
            unsubscribe();
            resolve();
          };
          const check = () => {
            if (done()) finish();
          };
          const unsubscribe = cache.subscribe((ref) => {
            if (!wanted.has(refKey(ref))) return;
            publish(ref);
            check();
          });
          ticker = setInterval(() => {
            for (const r of refs) publish(r); // time-based rules
            check();
          }, 1000);
          if (opts.timeoutMs) timer = setLongTimeout(finish, opts.timeoutMs);
          abort.signal.addEventListener("abort", finish, { once: true });
          check();
        });
      }
      channel.close();
    } catch (err) {
      channel.fail(err);
    } finally {
      timer?.clear();
      if (ticker) clearInterval(ticker);
      cache.close();
    }
  })();
  return channel;
}
