// The lines of kpt's book: cli-utils' events formatter as it was before the phase format
// (v0.29, early 2022), with the few additions kpt-ts needs (skip reasons, skipped applies).
// Pure: event in, line out.

import type { ApplyEvent, PruneEvent, RunStats, StatusEvent, WaitEvent, WaitStatus } from "../model/events.js";
import { formatRef } from "../model/ref.js";

/** `service/web created`, or the apply's error. */
export function formatApplyLine(e: ApplyEvent): string {
  const id = formatRef(e.ref);
  if (e.status === "Failed") return `${id} apply failed: ${e.error ?? "unknown error"}`;
  if (e.status === "Skipped") return withReason(`${id} apply skipped`, e.error);
  return `${id} ${e.operation ?? "applied"}`;
}

/** `configmap/cm1 pruned`, `namespace/ns deleted`; the legacy `deletion failed:` wording is kept. */
export function formatPruneLine(e: PruneEvent): string {
  const id = formatRef(e.ref);
  const prune = e.type === "prune";
  if (e.status === "Failed") return `${id} ${prune ? "prune failed" : "deletion failed"}: ${e.error ?? "unknown error"}`;
  if (e.status === "Skipped") return withReason(`${id} ${prune ? "prune" : "delete"} skipped`, e.error);
  return `${id} ${prune ? "pruned" : "deleted"}`;
}

/** `service/web reconciled`; a failure or timeout also says what the object was still doing. */
export function formatWaitLine(e: WaitEvent): string {
  const line = `${formatRef(e.ref)} ${WAIT_WORDS[e.status]}`;
  return e.status === "Failed" || e.status === "Timeout" ? withReason(line, e.message) : line;
}

const WAIT_WORDS: Record<WaitStatus, string> = { Pending: "reconcile pending", Successful: "reconciled", Skipped: "reconcile skipped", Failed: "reconcile failed", Timeout: "reconcile timeout" };

/**
 * `deployment.apps/wordpress is Current: Deployment is available. Replicas: 1`; an object being
 * deleted also says what holds it (beyond kpt): `namespace/app is Terminating: Resource scheduled
 * for deletion; held by finalizer kubernetes`.
 */
export function formatStatusLine(e: Pick<StatusEvent, "ref" | "status" | "message" | "heldBy">): string {
  return `${formatRef(e.ref)} is ${e.status}: ${statusMessage(e)}`;
}

/** The status message with what holds a terminating object, for text and tables (JSON keeps kstatus' own). */
export function statusMessage(e: Pick<StatusEvent, "message" | "heldBy">): string {
  return e.heldBy?.length ? `${e.message}; held by ${e.heldBy.map((r) => r.message).join("; ")}` : e.message;
}

/** `6 resource(s) applied. 6 created, 0 unchanged, 0 configured, 0 failed`, and (new) `, N skipped` when there were any. */
export function formatApplySummary(s: RunStats): string {
  const a = s.apply;
  let line =
    `${a.successful + a.skipped + a.failed} resource(s) applied. ` +
    `${a.created} created, ${a.unchanged} unchanged, ${a.configured} configured, ${a.failed} failed`;
  if (a.skipped > 0) line += `, ${a.skipped} skipped`;
  return line;
}

export function formatPruneSummary(s: RunStats): string {
  const p = s.prune;
  // The book's wording (kpt's docs, quoted by our issue): `0 resource(s) pruned, 0 skipped, 0 failed`.
  return `${p.successful} resource(s) pruned, ${p.skipped} skipped, ${p.failed} failed`;
}

export function formatDeleteSummary(s: RunStats): string {
  const d = s.delete;
  return `${d.successful} resource(s) deleted, ${d.skipped} skipped, ${d.failed} failed to delete`;
}

export function formatWaitSummary(s: RunStats): string {
  const w = s.wait;
  return `${w.successful} resource(s) reconciled, ${w.skipped} skipped, ${w.failed} failed to reconcile, ${w.timeout} timed out`;
}

function withReason(line: string, reason: string | undefined): string {
  return reason ? `${line}: ${reason}` : line;
}
