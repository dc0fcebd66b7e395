// apps/ReplicaSet and extensions/ReplicaSet (kstatus replicasetConditions).

import type { KubeObject } from "../../model/kube-object.js";
import { hasCondition, readConditions } from "../conditions.js";
import { intField } from "../fields.js";
import { current, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

export function replicaSetStatus(obj: KubeObject): StatusResult {
  // Still InProgress, not Failed: the failure is usually transient (quota, admission).
  if (hasCondition(readConditions(obj), "ReplicaFailure", "True")) {
    return inProgress("ReplicaFailure", "Replica Failure condition. Check Pods");
  }
  const spec = intField(obj, "spec.replicas", 1);
  const replicas = intField(obj, "status.replicas", 0);
  const ready = intField(obj, "status.readyReplicas", 0);
  const avail = intField(obj, "status.availableReplicas", 0);
  const labelled = intField(obj, "status.fullyLabeledReplicas", 0);

  if (spec > labelled) return inProgress("LessLabelled", `Labelled: ${labelled}/${spec}`);
  if (spec > avail) return inProgress("LessAvailable", `Available: ${avail}/${spec}`);
  if (spec > ready) return inProgress("LessReady", `Ready: ${ready}/${spec}`);
  if (replicas > spec) return inProgress("ExtraPods", `Pending termination: ${replicas - spec}`);
  return current(`ReplicaSet is available. Replicas: ${replicas}`);
}
