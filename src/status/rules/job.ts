// batch/Job (kstatus jobConditions). A started Job is Current while it runs: waiting for a
// Job to finish is not what "reconciled" means, only a Failed condition is a failure.

import type { KubeObject } from "../../model/kube-object.js";
import { readConditions } from "../conditions.js";
import { intField, stringField } from "../fields.js";
import { current, failed, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

export function jobStatus(obj: KubeObject): StatusResult {
  const parallelism = intField(obj, "spec.parallelism", 1);
  const completions = intField(obj, "spec.completions", parallelism);
  const succeeded = intField(obj, "status.succeeded", 0);
  const active = intField(obj, "status.active", 0);
  const failedCount = intField(obj, "status.failed", 0);

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
