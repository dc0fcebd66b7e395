// batch/Job (kstatus jobConditions). A started Job is Current while it runs: waiting for a
// Job to finish is not what "reconciled" means, only a Failed condition is a failure.

import type { KubeObject } from "../../model/kube-object.js";
import { readConditions } from "../conditions.js";
import { intField, stringField } from "../fields.js";
import { current, failed, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

export function jobStatus(obj: KubeObject): StatusResult {
  const { completions, succeeded, active, failedCount } = jobCounts(obj);

  // The first decisive condition wins, in the object's order.
  for (const c of readConditions(obj)) {
    if (c.status !== "True") continue;
    if (c.type === "Complete") return current(`Job Completed. succeeded: ${succeeded}/${completions}`);
    if (c.type === "Failed") return failed("JobFailed", `Job Failed. failed: ${failedCount}/${completions}`);
    // A suspended Job makes no progress until resumed; waiting on it would only time out.
    if (c.type === "Suspended") return current("Job is suspended");
  }
  if (stringField(obj, "status.startTime", "") === "") return inProgress("JobNotStarted", "Job not started");
  return current(`Job in progress. success:${succeeded}, active: ${active}, failed: ${failedCount}`);
}

/**
 * A Job that must complete (`kpt-ts.dev/wait: complete`, `--wait-for-jobs`, a hook): InProgress
 * until its `Complete` condition, Failed once it fails (its `Failed` condition, or the
 * `FailureTarget` the Job controller sets first), with the controller's reason and message
 * (BackoffLimitExceeded, DeadlineExceeded, ...).
 */
export function jobCompletionStatus(obj: KubeObject): StatusResult {
  const { completions, succeeded, active, failedCount } = jobCounts(obj);
  const conditions = readConditions(obj).filter((c) => c.status === "True");
  const complete = conditions.find((c) => c.type === "Complete");
  if (complete) return current(`Job completed. succeeded: ${succeeded}/${completions}`);
  const failure = conditions.find((c) => c.type === "Failed") ?? conditions.find((c) => c.type === "FailureTarget");
  if (failure) {
    const reason = failure.reason || "JobFailed";
    return failed(reason, `Job failed: ${reason}${failure.message ? `: ${failure.message}` : ""}${failedCount ? ` (failed pods: ${failedCount})` : ""}`);
  }
  if (conditions.some((c) => c.type === "Suspended")) return inProgress("JobSuspended", "Job is suspended: it cannot complete until it is resumed");
  if (stringField(obj, "status.startTime", "") === "") return inProgress("JobNotStarted", "Job not started");
  return inProgress("JobNotComplete", `Job not complete yet. succeeded: ${succeeded}/${completions}, active: ${active}, failed: ${failedCount}`);
}

/** The counts both Job rules print (completions defaults to parallelism, as the Job controller does). */
function jobCounts(obj: KubeObject): { completions: number; succeeded: number; active: number; failedCount: number } {
  const parallelism = intField(obj, "spec.parallelism", 1);
  return {
    completions: intField(obj, "spec.completions", parallelism),
    succeeded: intField(obj, "status.succeeded", 0),
    active: intField(obj, "status.active", 0),
    failedCount: intField(obj, "status.failed", 0),
  };
}
