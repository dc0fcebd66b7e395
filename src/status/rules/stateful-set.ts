// apps/StatefulSet (kstatus stsConditions). The controller sets no conditions, so only counts
// and revisions are read; a StatefulSet can never be Failed.

import type { KubeObject } from "../../model/kube-object.js";
import { intField, stringField } from "../fields.js";
import { current, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

export function statefulSetStatus(obj: KubeObject): StatusResult {
  // OnDelete means the user rolls pods by hand; there is nothing to wait for.
  if (stringField(obj, "spec.updateStrategy.type", "") === "OnDelete") {
    return current("StatefulSet is using the ondelete update strategy");
  }
  const spec = intField(obj, "spec.replicas", 1);
  const ready = intField(obj, "status.readyReplicas", 0);
  const currentReplicas = intField(obj, "status.currentReplicas", 0);
  const updated = intField(obj, "status.updatedReplicas", 0);
  const replicas = intField(obj, "status.replicas", 0);
  const partition = intField(obj, "spec.updateStrategy.rollingUpdate.partition", -1);

  if (spec > replicas) return inProgress("LessReplicas", `Replicas: ${replicas}/${spec}`);
  if (spec > ready) return inProgress("LessReady", `Ready: ${ready}/${spec}`);
  if (replicas > spec) return inProgress("ExtraPods", `Pending termination: ${replicas - spec}`);
  if (partition !== -1) {
    // Only ordinals >= partition are updated, so currentRevision never catches up.
    if (updated < spec - partition) return inProgress("PartitionRollout", `updated: ${updated}/${spec - partition}`);
    return current(`Partition rollout complete. updated: ${updated}`);
  }
  if (spec > currentReplicas) return inProgress("LessCurrent", `current: ${currentReplicas}/${spec}`);
  if (stringField(obj, "status.currentRevision", "") !== stringField(obj, "status.updateRevision", "")) {
    return inProgress("RevisionMismatch", "Waiting for updated revision to match current");
  }
  return current(`All replicas scheduled as expected. Replicas: ${replicas}`);
}
