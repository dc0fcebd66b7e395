// The lines of kpt-ts' lifecycle events (docs/lifecycle.md), in the style of kpt's own
// (`<resource> <what happened>[: why]`): hooks as they are created, complete, fail and are
// deleted, objects deleted to be created again. Pure: event in, line out.

import type { HookEvent, ReplaceEvent, RunStats } from "../model/events.js";
import { formatRef } from "../model/ref.js";
import { formatReason } from "./waiting-line.js";

/**
 * `job.batch/db-migrate pre-apply hook created`, `... hook completed`, `... hook failed: Job
 * failed: BackoffLimitExceeded: ...; pod state: pod/db-migrate-x2k: Failed: Error`.
 */
export function formatHookLine(e: HookEvent): string {
  const id = `${formatRef(e.ref)} ${e.phase} hook`;
  switch (e.action) {
    case "delete-previous":
      return `${id} deleted (left by an earlier run)`;
    case "create":
      return e.status === "Successful" ? `${id} created` : `${id} failed: ${hookFailure(e)}`;
    case "delete":
      return e.status === "Successful" ? `${id} deleted (${e.message ?? "its delete policy"})` : `${id} deletion failed: ${e.message ?? "unknown error"}`;
    case "wait":
      if (e.status === "Successful") return `${id} ${e.ref.kind === "Job" ? "completed" : "reconciled"}`;
      if (e.status === "Skipped") return `${id} skipped${e.message ? `: ${e.message}` : ""}`;
      return `${id} ${e.status === "Timeout" ? "timeout" : "failed"}: ${hookFailure(e)}`;
  }
}

/** Why a hook failed, with what its Pods showed last (a Job's failure reason alone rarely says why). */
export function hookFailure(e: Pick<HookEvent, "message" | "reasons">): string {
  const pods = e.reasons?.length ? `; pod state: ${e.reasons.map(formatReason).join("; ")}` : "";
  return `${e.message || "unknown error"}${pods}`;
}

/** `job.batch/report deleted to be replaced: spec.template: field is immutable`; its apply line follows. */
export function formatReplaceLine(e: ReplaceEvent): string {
  const id = formatRef(e.ref);
  return e.status === "Successful" ? `${id} deleted to be replaced: ${e.reason}` : `${id} replace failed: ${e.error ?? "unknown error"}`;
}

/** `2 hook(s) run: 2 completed, 0 failed, 0 timed out` (and the skipped ones, when any); undefined when no hook ran. */
export function formatHookSummary(s: RunStats): string | undefined {
  const h = s.hook;
  const total = h.successful + h.failed + h.timeout + h.skipped;
  if (total === 0) return undefined;
  return `${total} hook(s) run: ${h.successful} completed, ${h.failed} failed, ${h.timeout} timed out${h.skipped ? `, ${h.skipped} skipped` : ""}`;
}
