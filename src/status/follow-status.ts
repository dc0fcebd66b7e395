// `live status`: the status of every object the cluster inventory lists, as a stream of status
// events: all of them once, then each change (watch-status.ts), until the poll-until condition
// holds.

import { setLongTimeout } from "../util/long-timer.js";
import { EventChannel } from "../util/event-channel.js";
import type { Cluster } from "../cluster/types.js";
import type { StatusEvent } from "../model/events.js";
import type { ObjRef } from "../model/ref.js";
import { LiveCache } from "../cluster/live-cache.js";
import type { ComputeStatusOptions } from "./types.js";
import { watchStatus, type Followed } from "./watch-status.js";

type PollUntil = "known" | "current" | "deleted" | "forever";

export interface FollowStatusOptions {
  pollUntil?: PollUntil;
  timeoutMs?: number;
  pollPeriodMs?: number;
  signal?: AbortSignal;
  now?: () => Date;
  /** How statuses are computed beyond kstatus' defaults (the package's health rules). */
  statusOptions?: Omit<ComputeStatusOptions, "now">;
}

/** Whether the poll-until condition is met for one object (forever: never). */
const REACHED: Record<PollUntil, (f: Followed) => boolean> = {
  // An object that cannot be read is as known as it will get: waiting would never end.
  known: (f) => f.last.status !== "Unknown" || f.unreadable !== undefined,
  current: (f) => f.last.status === "Current",
  deleted: (f) => f.last.status === "NotFound",
  forever: () => false,
};

export function followStatus(cluster: Cluster, refs: ObjRef[], opts: FollowStatusOptions = {}): AsyncIterable<StatusEvent> {
  const channel = new EventChannel<StatusEvent>();
  const reached = REACHED[opts.pollUntil ?? "known"];
  // Watches start only once the watcher subscribes: a run whose first reads end it (poll-until known) makes none.
  const cache = new LiveCache(cluster, { pollPeriodMs: opts.pollPeriodMs, signal: opts.signal, watchOnDemand: true });
  // The timeout bounds the whole run, the first read included: a list the server never answers
  // (an aggregated API that hangs, a kind caught mid-deletion) must not hold it.
  const stop = new AbortController();
  let timedOut = false;
  const timer = opts.timeoutMs ? setLongTimeout(() => ((timedOut = true), stop.abort()), opts.timeoutMs) : undefined;
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();

  (async () => {
    try {
      const stopped = new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
      await Promise.race([cache.follow(refs), stopped]);
      const notRead = timedOut ? "not read within the timeout: the API server has not answered the list of its kind" : "not read: interrupted before the API server answered";
      await watchStatus(cache, refs, {
        ...opts,
        judge: (ref, seen) => (cache.isRead(ref) ? seen : { result: { status: "Unknown", message: notRead } }),
        onStatus: (e) => channel.push(e),
        done: (followed) => stop.signal.aborted || [...followed.values()].every(reached),
        awaited: (f) => !reached(f),
        timeoutMs: undefined,
        signal: stop.signal,
      });
      channel.close();
    } catch (err) {
      channel.fail(err);
    } finally {
      timer?.clear();
      opts.signal?.removeEventListener("abort", onAbort);
      cache.close();
    }
  })();
  return channel;
}
