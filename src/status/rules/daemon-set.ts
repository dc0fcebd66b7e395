// apps/DaemonSet and extensions/DaemonSet (kstatus daemonsetConditions).

import type { KubeObject } from "../../model/kube-object.js";
import { intField, strictInt } from "../fields.js";
import { current, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

export function daemonSetStatus(obj: KubeObject): StatusResult {
  // The generic check skips unset generations; the DaemonSet controller always sets both,
  // so an unset one means it has not acted on the object yet.
  if (strictInt(obj, "metadata.generation") === undefined) {
    return inProgress("NoGeneration", `${obj.kind} metadata.generation not found`);
  }
  if (strictInt(obj, "status.observedGeneration") === undefined) {
    return inProgress("NoObservedGeneration", `${obj.kind} status.observedGeneration not found`);
  }
  const desired = intField(obj, "status.desiredNumberScheduled", -1);
  const currentNum = intField(obj, "status.currentNumberScheduled", 0);
  const updated = intField(obj, "status.updatedNumberScheduled", 0);
  const avail = intField(obj, "status.numberAvailable", 0);
  const ready = intField(obj, "status.numberReady", 0);

  if (desired === -1) return inProgress("NoDesiredNumber", "Missing .status.desiredNumberScheduled");
  if (desired > currentNum) return inProgress("LessCurrent", `Current: ${currentNum}/${desired}`);
  if (desired > updated) return inProgress("LessUpdated", `Updated: ${updated}/${desired}`);
  if (desired > avail) return inProgress("LessAvailable", `Available: ${avail}/${desired}`);
  if (desired > ready) return inProgress("LessReady", `Ready: ${ready}/${desired}`);
  return current(`All replicas scheduled as expected. Replicas: ${desired}`);
}
