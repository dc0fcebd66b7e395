// What a long wait is still waiting for (kpt prints nothing while it waits). Pure: the events
// printer decides when, these functions decide what.

import type { WaitEvent, WaitingEvent, WaitReason } from "../model/events.js";
import { formatRef, type ObjRef } from "../model/ref.js";

/** First report after this long in one wait phase... */
const FIRST_WAITING_REPORT_MS = 5_000;
/** ...then at most one report per this interval, so logs stay readable. */
const WAITING_REPORT_INTERVAL_MS = 30_000;
/** Objects named on one line; the rest are counted. */
const MAX_NAMED = 5;

/** Whether a `waiting` event at `elapsedMs` deserves a line, given when the last one was printed. */
export function shouldReportWaiting(lastReportedMs: number | undefined, elapsedMs: number): boolean {
  if (lastReportedMs === undefined) return elapsedMs >= FIRST_WAITING_REPORT_MS;
  return elapsedMs - lastReportedMs >= WAITING_REPORT_INTERVAL_MS;
}

/**
 * `waiting for 2 resource(s) to reconcile (0:35 elapsed, timeout 2m): deployment.apps/web
 * (Available: 1/3), statefulset.apps/db (Ready: 0/1)`; `to be deleted` for prune/destroy waits.
 */
export function formatWaitingLine(e: WaitingEvent, goal: "reconcile" | "delete"): string {
  const named = e.pending.slice(0, MAX_NAMED).map((p) => `${formatRef(p.ref)} (${p.message || p.status})`);
  if (e.pending.length > MAX_NAMED) named.push(`and ${e.pending.length - MAX_NAMED} more`);
  const timing = formatTiming(e.elapsedMs, e.timeoutMs);
  return `waiting for ${e.pending.length} resource(s) ${GOAL_WORDS[goal]} (${timing}): ${named.join(", ")}`;
}

/** What a wait waits for, as its lines say it. */
export const GOAL_WORDS = { reconcile: "to reconcile", delete: "to be deleted" } as const;

/** `0:35 elapsed, timeout 2m`, or `0:35 elapsed` without a timeout. */
export function formatTiming(elapsedMs: number, timeoutMs: number | undefined): string {
  const elapsed = `${formatElapsed(elapsedMs)} elapsed`;
  return timeoutMs !== undefined ? `${elapsed}, timeout ${formatDuration(timeoutMs)}` : elapsed;
}

/** `0:05`, `12:30`, `1:02:03`: a stopwatch. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** `2m`, `1m30s`, `1h`, `500ms`: how the user wrote the timeout flag (Go's duration style, zero parts dropped). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const parts = [h > 0 ? `${h}h` : "", m > 0 ? `${m}m` : "", s > 0 ? `${Number(s.toFixed(3))}s` : ""];
  return parts.join("");
}

/** `pod/web-65d64b78b8-jbq52: Pending: Unschedulable (0/3 nodes are available: ...)`; without a ref, just what it says. */
export function formatReason(r: WaitReason): string {
  const what = r.detail ? `${r.message} (${r.detail})` : r.message;
  return r.ref ? `${formatRef(r.ref)}: ${what}` : what;
}

/** One line per reason, for logs: `deployment.apps/web waiting on pod/web-...: Pending: Unschedulable (...)`. */
export function formatReasonLine(owner: ObjRef, r: WaitReason): string {
  return r.ref ? `${formatRef(owner)} waiting on ${formatReason(r)}` : `${formatRef(owner)} waiting: ${formatReason(r)}`;
}

/**
 * What identifies a reason line, so a printer prints it again only when its text changes: the
 * other object it is about, or (an object being deleted has several at once: conditions,
 * finalizers) what it says.
 */
export function reasonKey(owner: ObjRef, r: WaitReason): string {
  return `${formatRef(owner)} ${r.ref ? formatRef(r.ref) : r.message}`;
}

/**
 * When a wait times out: every object still waiting with its last known status and what it was
 * waiting on, so the reason is in the log even when nothing changed for minutes.
 */
export function formatTimeoutSummary(timedOut: readonly WaitEvent[], goal: "reconcile" | "delete"): string[] {
  if (timedOut.length === 0) return [];
  const lines = [`timed out waiting for ${timedOut.length} resource(s) ${GOAL_WORDS[goal]}; last known state:`];
  for (const e of timedOut) {
    lines.push(`  ${formatRef(e.ref)}: ${e.message || "no status"}`);
    for (const r of e.reasons ?? []) lines.push(`    ${r.ref ? `waiting on ${formatReason(r)}` : formatReason(r)}`);
  }
  return lines;
}
