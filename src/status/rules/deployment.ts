// apps/Deployment and extensions/Deployment (kstatus deploymentConditions).

import type { KubeObject } from "../../model/kube-object.js";
import { readConditions } from "../conditions.js";
import { intField } from "../fields.js";
import { current, failed, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

/** The controller treats an unset progressDeadlineSeconds as MaxInt32 and then never sets Progressing. */
const NO_PROGRESS_DEADLINE = 2147483647;

export function deploymentStatus(obj: KubeObject): StatusResult {
  let progressing = intField(obj, "spec.progressDeadlineSeconds", NO_PROGRESS_DEADLINE) === NO_PROGRESS_DEADLINE;
  let available = false;
  for (const c of readConditions(obj)) {
    if (c.type === "Progressing") {
      // Any status: the controller flips Progressing to False with this reason.
      if (c.reason === "ProgressDeadlineExceeded") return failed(c.reason, "Progress deadline exceeded", c.message);
      if (c.status === "True" && c.reason === "NewReplicaSetAvailable") progressing = true;
    } else if (c.type === "Available" && c.status === "True") {
      available = true;
    }
  }

  const spec = intField(obj, "spec.replicas", 1);
  const replicas = intField(obj, "status.replicas", 0);
  const updated = intField(obj, "status.updatedReplicas", 0);
  const ready = intField(obj, "status.readyReplicas", 0);
  const avail = intField(obj, "status.availableReplicas", 0);

  if (spec > replicas) return inProgress("LessReplicas", `Replicas: ${replicas}/${spec}`);
  if (spec > updated) return inProgress("LessUpdated", `Updated: ${updated}/${spec}`);
  if (replicas > spec) return inProgress("ExtraPods", `Pending termination: ${replicas - spec}`);
  if (updated > avail) return inProgress("LessAvailable", `Available: ${avail}/${updated}`);
  if (spec > ready) return inProgress("LessReady", `Ready: ${ready}/${spec}`);
  if (!progressing) return inProgress("ReplicaSetNotAvailable", "ReplicaSet not Available");
  if (!available) return inProgress("DeploymentNotAvailable", "Deployment not Available");
  return current(`Deployment is available. Replicas: ${replicas}`);
}
