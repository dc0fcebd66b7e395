// The one fold of a run's events. The engine's recorder keeps one (the dependency gate and the
// inventory's statuses read each object's outcome from it, the summary event carries its counts),
// every printer keeps one as the events stream past (kpt's cumulative group counts, the summary
// lines), the change record is made from one, and the exit code is its `failed`. Pure.

import type { ActionStats, EngineEvent, HookEvent, RunStats } from "./events.js";
import type { HookPhase } from "./lifecycle-keys.js";
import { refKey, type ObjRef } from "./ref.js";

/** How a write (apply, prune, delete) ended. */
export type Actuated = "Successful" | "Skipped" | "Failed";
/** How the wait after it ended. */
export type Reconciled = "Successful" | "Skipped" | "Failed" | "Timeout";

/** An object the run failed: its write, or the wait that followed (reconcile). */
export interface RunFailure {
  ref: ObjRef;
  action: "apply" | "prune" | "delete" | "reconcile" | "hook" | "replace";
  /** The error, or what the wait saw last (`timeout: Ready: 0/1` for a timeout). */
  error: string;
}

export function emptyStats(): RunStats {
  return {
    apply: { successful: 0, skipped: 0, failed: 0, created: 0, configured: 0, unchanged: 0 },
    prune: { successful: 0, skipped: 0, failed: 0 },
    delete: { successful: 0, skipped: 0, failed: 0 },
    wait: { successful: 0, skipped: 0, failed: 0, timeout: 0 },
    hook: { successful: 0, skipped: 0, failed: 0, timeout: 0 },
    replace: { successful: 0, skipped: 0, failed: 0 },
  };
}

/** A hook's outcome in a run (for the change record). */
export interface HookOutcome {
  phase: HookPhase;
  ref: ObjRef;
  status: HookEvent["status"];
}

/** True when the run must exit with kpt's result code 3: an object failed to apply, prune or delete, or failed or timed out reconciling. */
export function statsFailed(s: RunStats): boolean {
  return s.apply.failed + s.prune.failed + s.delete.failed + s.wait.failed + s.wait.timeout + (s.hook?.failed ?? 0) + (s.hook?.timeout ?? 0) + (s.replace?.failed ?? 0) > 0;
}

/** How many objects an action has reported a result for (kpt's `count`). */
export function countFor(s: RunStats, action: "Apply" | "Prune" | "Delete" | "Wait"): number {
  const a: ActionStats = action === "Apply" ? s.apply : action === "Prune" ? s.prune : action === "Delete" ? s.delete : s.wait;
  return a.successful + a.skipped + a.failed + (action === "Wait" ? s.wait.timeout : 0);
}

export class RunTally {
  readonly stats: RunStats = emptyStats();
  readonly failures: RunFailure[] = [];
  /** Each hook's outcome, in the order they ended (docs/lifecycle.md). */
  readonly hooks: HookOutcome[] = [];
  /** Objects replaced, with why. */
  readonly replaced: { ref: ObjRef; reason: string }[] = [];
  private hooksWritten = 0;
  private readonly actuation = new Map<string, Actuated>();
  private readonly reconcile = new Map<string, Reconciled>();

  /** Adds one event; only per-object results count (a wait's Pending does not). */
  add(e: EngineEvent): void {
    switch (e.type) {
      case "apply": {
        const s = this.stats.apply;
        count(s, e.status);
        if (e.status === "Successful") s[e.operation ?? "configured"]++;
        if (e.status === "Failed") this.failures.push({ ref: e.ref, action: "apply", error: e.error ?? "unknown error" });
        this.actuation.set(refKey(e.ref), e.status);
        return;
      }
      case "prune":
      case "delete":
        count(this.stats[e.type], e.status);
        if (e.status === "Failed") this.failures.push({ ref: e.ref, action: e.type, error: e.error ?? "unknown error" });
        this.actuation.set(refKey(e.ref), e.status);
        return;
      case "wait": {
        if (e.status === "Pending") return;
        const s = this.stats.wait;
        if (e.status === "Timeout") s.timeout++;
        else count(s, e.status);
        if (e.status === "Failed" || e.status === "Timeout") {
          this.failures.push({ ref: e.ref, action: "reconcile", error: e.status === "Timeout" ? `timeout${e.message ? `: ${e.message}` : ""}` : (e.message ?? "unknown error") });
        }
        this.reconcile.set(refKey(e.ref), e.status);
        return;
      }
      case "hook":
        return this.addHook(e);
      case "replace":
        count(this.stats.replace, e.status);
        if (e.status === "Successful") this.replaced.push({ ref: e.ref, reason: e.reason });
        else this.failures.push({ ref: e.ref, action: "replace", error: e.error ?? "unknown error" });
        return;
      default:
        return;
    }
  }

  /** A hook's outcome is its wait's, or its creation's when that failed (it is then never waited for). */
  private addHook(e: HookEvent): void {
    if (e.status !== "Skipped" && e.action !== "wait") this.hooksWritten++;
    const outcome = e.action === "wait" || (e.action === "create" && e.status === "Failed");
    if (!outcome) return;
    const s = this.stats.hook;
    if (e.status === "Timeout") s.timeout++;
    else count(s, e.status);
    this.hooks.push({ phase: e.phase, ref: e.ref, status: e.status });
    if (e.status === "Failed" || e.status === "Timeout") this.failures.push({ ref: e.ref, action: "hook", error: `${e.phase}: ${e.status === "Timeout" ? "timeout: " : ""}${e.message ?? "unknown error"}` });
  }

  actuated(ref: ObjRef): Actuated | undefined {
    return this.actuation.get(refKey(ref));
  }

  reconciled(ref: ObjRef): Reconciled | undefined {
    return this.reconcile.get(refKey(ref));
  }

  /**
   * The run wrote, or tried to write, an object: a create, an update or a delete, or one that
   * failed (a failed wait wrote nothing). The one answer to "did this run change anything".
   */
  get wrote(): boolean {
    const s = this.stats;
    return s.apply.created + s.apply.configured + s.apply.failed + s.prune.successful + s.prune.failed + s.delete.successful + s.delete.failed + this.hooksWritten + s.replace.successful + s.replace.failed > 0;
  }

  /** kpt's result code 3. */
  get failed(): boolean {
    return statsFailed(this.stats);
  }
}

function count(s: ActionStats, status: Actuated): void {
  if (status === "Successful") s.successful++;
  else if (status === "Skipped") s.skipped++;
  else s.failed++;
}
