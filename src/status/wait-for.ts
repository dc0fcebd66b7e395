// Apply's and destroy's waits: a set of objects watched (watch-status.ts) until each reaches its
// status (Current after apply, gone after prune/delete). Emits kpt's wait events, status events
// on every change, and `waiting` progress so a long wait is never silent.

import type { EngineEvent, WaitReason } from "../model/events.js";
import { refKey, type ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { DELETION_QUIET_REREAD_MS, type LiveCache } from "../cluster/live-cache.js";
import { describeWaitingFor, isReconciled } from "./aggregate.js";
import { NOT_FOUND } from "./compute-status.js";
import type { DesiredStatus, StatusResult } from "./types.js";
import { MAX_EXPLAINED, type WaitExplainer } from "./wait-explainer.js";
import { sameReasons, watchStatus, type Followed, type WatchOptions } from "./watch-status.js";

/** How long an object waits before kpt-ts looks at what it waits on (most are ready sooner). */
const EXPLAIN_AFTER_MS = 2_000;

export interface WaitTarget {
  ref: ObjRef;
  /** The generation our apply produced: a status read from an older object does not count. */
  minGeneration?: number;
  /** For deletes: the uid we deleted; a new object with another uid means ours is gone. */
  uid?: string;
  /** A Job that must complete to be Current (docs/lifecycle.md): Failed once it fails. */
  complete?: boolean;
  /** Its own timeout (`kpt-ts.dev/reconcile-timeout`), instead of the wait's; `timeoutNote` says so when it hits. */
  timeoutMs?: number;
  timeoutNote?: string;
}

export type WaitOutcome = "Successful" | "Failed" | "Timeout" | "Skipped";

interface WaitOptions extends Pick<WatchOptions<WaitOutcome>, "timeoutMs" | "signal" | "now" | "tickMs" | "statusOptions" | "quietRereadMs"> {
  desired: DesiredStatus;
  wave: number;
  emit: (e: EngineEvent) => void;
  /** Tells what slow objects wait on (their Pods, ...); only for waits until Current. */
  explainer?: Pick<WaitExplainer, "explain" | "canExplain">;
  explainAfterMs?: number;
}

export async function waitFor(cache: Pick<LiveCache, "get" | "readError" | "subscribe" | "refreshQuiet">, targets: WaitTarget[], opts: WaitOptions): Promise<ReadonlyMap<string, WaitOutcome>> {
  const { emit, desired } = opts;
  const byKey = new Map(targets.map((t) => [refKey(t.ref), t]));
  /** What a waiting object waits on: what holds it from going, or what the explainer found. */
  const explained = new Map<string, WaitReason[]>();
  const withReasons = (key: string, f: Pick<Followed, "last">) => {
    const reasons = desired === "NotFound" ? f.last.heldBy : explained.get(key);
    return reasons?.length ? { reasons } : {};
  };
  const outcomes = new Map<string, WaitOutcome>();
  const started = Date.now();
  let ticks = 0;

  const progress = (followed: ReadonlyMap<string, Followed>) =>
    emit({
      type: "waiting",
      wave: opts.wave,
      pending: [...followed].map(([key, f]) => ({ ref: f.ref, status: f.last.status, message: describeWaitingFor(f.last, desired), ...withReasons(key, f) })),
      total: targets.length,
      elapsedMs: Date.now() - started,
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    });

  // What slow objects wait on: read only while something waits, and only for kinds that say more.
  const explainer = desired === "Current" ? opts.explainer : undefined;
  const explain = (followed: ReadonlyMap<string, Followed>) => {
    if (!explainer || Date.now() - started < (opts.explainAfterMs ?? EXPLAIN_AFTER_MS)) return;
    const waiting = [...followed.values()]
      .map((f) => cache.get(f.ref))
      .filter((o): o is KubeObject => o !== undefined && explainer.canExplain(o))
      .slice(0, MAX_EXPLAINED);
    if (waiting.length === 0) return;
    explainer.explain(waiting).then(
      (found) => {
        if (!found || followed.size === 0) return;
        let changed = false;
        for (const [key, reasons] of found) {
          if (!followed.has(key) || sameReasons(explained.get(key), reasons)) continue;
          explained.set(key, reasons);
          changed = true;
        }
        if (changed) progress(followed);
      },
      () => undefined, // best effort: a wait goes on without its explanation
    );
  };

  await watchStatus<WaitOutcome>(
    cache,
    targets.map((t) => t.ref),
    {
      ...opts,
      // What a deletion waits for is probed sooner (live-cache.ts).
      quietRereadMs: opts.quietRereadMs ?? (desired === "NotFound" ? DELETION_QUIET_REREAD_MS : undefined),
      judge(ref, { live, result, unreadable }) {
        if (unreadable) return { result, settled: "Failed" };
        const t = byKey.get(refKey(ref))!;
        if (desired === "NotFound") return !live || (t.uid && live.metadata.uid !== t.uid) ? { result: NOT_FOUND, settled: "Successful" } : { result };
        // Applied, then gone: another run of the package (a destroy, a prune) or someone else deleted
        // it. It will not become Current; waiting for it would never end.
        if (!live) return { result: { status: "NotFound", message: "it was deleted after this run applied it (another run of this package, or someone else, deleted it): apply again" }, settled: "Failed" };
        if (isReconciled(result.status, "Current", { liveGeneration: live.metadata.generation, appliedGeneration: t.minGeneration })) return { result, settled: "Successful" };
        return result.status === "Failed" ? { result, settled: "Failed" } : { result };
      },
      onStatus: emit,
      onWaiting: (ref, result) => emit({ type: "wait", ref, status: "Pending", message: describeWaitingFor(result, desired) }),
      onSettled(ref, outcome, last) {
        const key = refKey(ref);
        outcomes.set(key, outcome);
        // A failure keeps what it was last seen waiting on (a failed Job's Pods are often gone by now).
        const more = outcome === "Failed" ? { message: last.message, ...withReasons(key, { last }) } : outcome === "Timeout" ? { message: timeoutMessage(last, byKey.get(key)!, desired), ...withReasons(key, { last }) } : {};
        emit({ type: "wait", ref, status: outcome, ...more });
      },
      timeoutOf: (ref) => byKey.get(refKey(ref))?.timeoutMs,
      statusOptionsOf: (ref) => (byKey.get(refKey(ref))?.complete ? { ...opts.statusOptions, jobsMustComplete: true } : undefined),
      rest: { timeout: "Timeout", aborted: "Skipped" },
      onTick(followed) {
        explain(followed);
        if (++ticks % 2 === 0) progress(followed);
      },
    },
  );
  return outcomes;
}

/** What a timed-out object waited for; an object's own timeout says so. */
function timeoutMessage(last: StatusResult, t: WaitTarget, desired: DesiredStatus): string {
  const waiting = describeWaitingFor(last, desired);
  return t.timeoutNote ? `${waiting}${waiting ? "; " : ""}${t.timeoutNote}` : waiting;
}
