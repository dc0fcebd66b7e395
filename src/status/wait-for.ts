// Waits until a set of objects reaches a status (Current after apply, gone after prune/delete),
// driven by the live cache's watch events, not by polling. Emits kpt's wait events, status
// events on every change, and `waiting` progress so a long wait is never silent.

import { setLongTimeout } from "../util/long-timer.js";
import type { EngineEvent, KStatus, WaitReason } from "../model/events.js";
import { refKey, type ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { describeWaitingFor, isReconciled } from "./aggregate.js";
import { NOT_FOUND, statusOfLive } from "./compute-status.js";
import type { LiveCache } from "./live-cache.js";
import type { ComputeStatusOptions, DesiredStatus, StatusResult } from "./types.js";
import { MAX_EXPLAINED, type WaitExplainer } from "./wait-explainer.js";

/** How long an object waits before kpt-ts looks at what it waits on (most are ready sooner). */
export const EXPLAIN_AFTER_MS = 2_000;

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

export interface WaitOptions {
  desired: DesiredStatus;
  wave: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  emit: (e: EngineEvent) => void;
  now?: () => Date;
  /** How often time-based rules are re-checked and progress is reported. */
  tickMs?: number;
  /** Tells what slow objects wait on (their Pods, ...); only for waits until Current. */
  explainer?: Pick<WaitExplainer, "explain" | "canExplain">;
  explainAfterMs?: number;
  /** How statuses are computed beyond kstatus' defaults (the run's health rules). */
  statusOptions?: Omit<ComputeStatusOptions, "now">;
  /** After how long without a change a waited-for object is read again directly (live-cache.ts' QUIET_REREAD_MS). */
  quietRereadMs?: number;
}


export async function waitFor(cache: LiveCache, targets: WaitTarget[], opts: WaitOptions): Promise<Map<string, WaitOutcome>> {
  const now = opts.now ?? (() => new Date());
  const outcomes = new Map<string, WaitOutcome>();
  const pending = new Map<string, { target: WaitTarget; result: StatusResult; reasons?: WaitReason[] }>();
  const started = Date.now();
  const emit = opts.emit;

  const evaluate = (t: WaitTarget): { result: StatusResult; done?: WaitOutcome } => {
    const live = cache.get(t.ref);
    const unreadable = !live ? cache.readError(t.ref) : undefined;
    if (unreadable) return { result: { status: "Unknown", message: `cannot read its status: ${unreadable}` }, done: "Failed" };
    if (opts.desired === "NotFound") {
      if (!live || (t.uid && live.metadata.uid !== t.uid)) return { result: NOT_FOUND, done: "Successful" };
      return { result: statusOfLive(live, now(), opts.statusOptions) };
    }
    // Applied, then gone: another run of the package (a destroy, a prune) or someone else deleted
    // it. It will not become Current; waiting for it would never end.
    if (!live) return { result: { status: "NotFound", message: "it was deleted after this run applied it (another run of this package, or someone else, deleted it): apply again" }, done: "Failed" };
    const result = statusOfLive(live, now(), t.complete ? { ...opts.statusOptions, jobsMustComplete: true } : opts.statusOptions);
    if (isReconciled(result.status, "Current", { liveGeneration: live?.metadata.generation, appliedGeneration: t.minGeneration })) return { result, done: "Successful" };
    if (result.status === "Failed") return { result, done: "Failed" };
    return { result };
  };

  const statusEvent = (t: WaitTarget, r: StatusResult) => {
    const object = cache.get(t.ref);
    emit({ type: "status", ref: t.ref, status: r.status as KStatus, message: r.message, ...(r.heldBy?.length ? { heldBy: r.heldBy } : {}), ...(object ? { object } : {}) });
  };
  // What holds an object being deleted is its wait's reason (the explainer's, for waits until Current).
  const holds = (r: StatusResult): { reasons?: WaitReason[] } => (opts.desired === "NotFound" && r.heldBy?.length ? { reasons: r.heldBy } : {});

  for (const t of targets) {
    const { result, done } = evaluate(t);
    statusEvent(t, result);
    if (done) {
      outcomes.set(refKey(t.ref), done);
      emit({ type: "wait", ref: t.ref, status: done, ...(done === "Failed" ? { message: result.message } : {}) });
    } else {
      pending.set(refKey(t.ref), { target: t, result, ...holds(result) });
      emit({ type: "wait", ref: t.ref, status: "Pending", message: describeWaitingFor(result, opts.desired) });
    }
  }
  if (pending.size === 0) return outcomes;

  const progress = () =>
    emit({
      type: "waiting",
      wave: opts.wave,
      pending: [...pending.values()].map(({ target, result, reasons }) => ({
        ref: target.ref,
        status: result.status,
        message: describeWaitingFor(result, opts.desired),
        ...(reasons?.length ? { reasons } : {}),
      })),
      total: targets.length,
      elapsedMs: Date.now() - started,
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    });

  await new Promise<void>((resolve) => {
    let finished = false;
    let ownTimers: { clear(): void }[] = [];
    const recheck = (key: string) => {
      const p = pending.get(key);
      if (!p) return;
      const { result, done } = evaluate(p.target);
      if (result.status !== p.result.status || result.message !== p.result.message || !sameReasons(p.result.heldBy, result.heldBy ?? [])) {
        p.result = result;
        if (opts.desired === "NotFound") p.reasons = result.heldBy;
        statusEvent(p.target, result);
      }
      if (done) {
        pending.delete(key);
        outcomes.set(key, done);
        // A failure keeps what it was last seen waiting on (a failed Job's Pods are often gone by now).
        emit({ type: "wait", ref: p.target.ref, status: done, ...(done === "Failed" ? { message: result.message, ...(p.reasons?.length ? { reasons: p.reasons } : {}) } : {}) });
        if (pending.size === 0) finish();
      }
    };
    const finish = (rest?: WaitOutcome) => {
      if (finished) return;
      finished = true;
      unsubscribe();
      clearInterval(ticker);
      timer?.clear();
      for (const t of ownTimers) t.clear();
      opts.signal?.removeEventListener("abort", onAbort);
      if (rest) {
        for (const [key, p] of pending) {
          outcomes.set(key, rest);
          const reasons = rest === "Timeout" && p.reasons?.length ? { reasons: p.reasons } : {};
          emit({ type: "wait", ref: p.target.ref, status: rest, ...(rest === "Timeout" ? { message: describeWaitingFor(p.result, opts.desired), ...reasons } : {}) });
        }
        pending.clear();
      }
      resolve();
    };
    // What slow objects wait on: read only while something waits, and only for kinds that say more.
    const explainer = opts.desired === "Current" ? opts.explainer : undefined;
    const explain = () => {
      if (!explainer || finished || Date.now() - started < (opts.explainAfterMs ?? EXPLAIN_AFTER_MS)) return;
      const waiting = [...pending.values()]
        .map((p) => cache.get(p.target.ref))
        .filter((o): o is KubeObject => o !== undefined && explainer.canExplain(o))
        .slice(0, MAX_EXPLAINED);
      if (waiting.length === 0) return;
      explainer.explain(waiting).then(
        (found) => {
          if (!found || finished) return;
          let changed = false;
          for (const [key, reasons] of found) {
            const p = pending.get(key);
            if (!p || sameReasons(p.reasons, reasons)) continue;
            p.reasons = reasons;
            changed = true;
          }
          if (changed) progress();
        },
        () => undefined, // best effort: a wait goes on without its explanation
      );
    };
    const unsubscribe = cache.subscribe((ref) => recheck(refKey(ref)));
    let ticks = 0;
    const tickMs = opts.tickMs ?? 1000;
    const ticker = setInterval(() => {
      for (const key of [...pending.keys()]) recheck(key); // time-based rules (Pod scheduling window)
      // Not only the watch: what has looked the same for a while is read again (live-cache.ts).
      cache.refreshQuiet([...pending.values()].map((p) => p.target.ref), opts.quietRereadMs);
      explain();
      if (!finished && ++ticks % 2 === 0) progress();
    }, tickMs);
    // An object's own timeout ends only its wait; the wait's own ends the others'.
    const expire = (key: string) => {
      const p = pending.get(key);
      if (!p || finished) return;
      pending.delete(key);
      outcomes.set(key, "Timeout");
      const waiting = describeWaitingFor(p.result, opts.desired);
      const message = p.target.timeoutNote ? `${waiting}${waiting ? "; " : ""}${p.target.timeoutNote}` : waiting;
      emit({ type: "wait", ref: p.target.ref, status: "Timeout", message, ...(p.reasons?.length ? { reasons: p.reasons } : {}) });
      if (pending.size === 0) finish();
    };
    ownTimers = [...pending].filter(([, p]) => p.target.timeoutMs).map(([key, p]) => setLongTimeout(() => expire(key), p.target.timeoutMs!));
    const hasOwn = ownTimers.length > 0;
    const timer = opts.timeoutMs
      ? setLongTimeout(() => {
          if (!hasOwn) return finish("Timeout");
          for (const [key, p] of [...pending]) if (!p.target.timeoutMs) expire(key);
        }, opts.timeoutMs)
      : undefined;
    const onAbort = () => finish("Skipped");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    // A change may have landed between the first evaluation and subscribing.
    for (const key of [...pending.keys()]) recheck(key);
  });
  return outcomes;
}

function sameReasons(a: readonly WaitReason[] | undefined, b: readonly WaitReason[]): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b);
}
