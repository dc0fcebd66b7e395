// The lines of kpt's book: cli-utils' events formatter as it was before the phase format
// (v0.29, early 2022), with the few additions kpt-ts needs (skip reasons, skipped applies).
// Pure: event in, line out.

import type { ApplyEvent, PruneEvent, StatusEvent, WaitEvent } from "../events.js";
import { formatRef } from "../object/ref.js";
import type { RunTally } from "./tally.js";

/**
 * `service/web created`, or the apply's error. The legacy formatter printed the lower-cased
 * operation name, so server-side applies read `serversideapplied`.
 */
export function formatApplyLine(e: ApplyEvent): string {
  const id = formatRef(e.ref);
  if (e.status === "Failed") return `${id} apply failed: ${e.error ?? "unknown error"}`;
  if (e.status === "Skipped") return withReason(`${id} apply skipped`, e.error);
  return `${id} ${operationWord(e.operation)}`;
}

function operationWord(op: ApplyEvent["operation"]): string {
  if (op === "serverside-applied") return "serversideapplied";
  return op ?? "applied";
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
  const id = formatRef(e.ref);
  switch (e.status) {
    case "Pending":
      return `${id} reconcile pending`;
    case "Successful":
      return `${id} reconciled`;
    case "Skipped":
      return `${id} reconcile skipped`;
    case "Failed":
      return withReason(`${id} reconcile failed`, e.message);
    case "Timeout":
      return withReason(`${id} reconcile timeout`, e.message);
  }
}

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

/**
 * `6 resource(s) applied. 6 created, 0 unchanged, 0 configured, 0 failed`; like the legacy line,
 * `, N serverside applied` only when there were any, and (new) `, N skipped` likewise.
 */
export function formatApplySummary(t: RunTally): string {
  const a = t.stats.apply;
  let line =
    `${a.successful + a.skipped + a.failed} resource(s) applied. ` +
    `${a.created} created, ${a.unchanged} unchanged, ${a.configured} configured, ${a.failed} failed`;
  if (a.skipped > 0) line += `, ${a.skipped} skipped`;
  if (t.serversideApplied > 0) line += `, ${t.serversideApplied} serverside applied`;
  return line;
}

export function formatPruneSummary(t: RunTally): string {
  const p = t.stats.prune;
  // The book's wording (kpt's docs, quoted by our issue): `0 resource(s) pruned, 0 skipped, 0 failed`.
  return `${p.successful} resource(s) pruned, ${p.skipped} skipped, ${p.failed} failed`;
}

export function formatDeleteSummary(t: RunTally): string {
  const d = t.stats.delete;
  return `${d.successful} resource(s) deleted, ${d.skipped} skipped, ${d.failed} failed to delete`;
}

export function formatWaitSummary(t: RunTally): string {
  const w = t.stats.wait;
  return `${w.successful} resource(s) reconciled, ${w.skipped} skipped, ${w.failed} failed to reconcile, ${w.timeout} timed out`;
}

function withReason(line: string, reason: string | undefined): string {
  return reason ? `${line}: ${reason}` : line;
}
