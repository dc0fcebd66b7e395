// Kinds whose kstatus rule is a line or two: always-ready kinds, Service, PVC, PDB.

import type { KubeObject } from "../../model/kube-object.js";
import { stringField } from "../fields.js";
import { current, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

/** ConfigMap, Secret, batch/CronJob: no controller reconciles them into a "ready" state. */
export function alwaysReadyStatus(): StatusResult {
  return current("Resource is always ready");
}

/** Only waits for a LoadBalancer's clusterIP, not for its external address. */
export function serviceStatus(obj: KubeObject): StatusResult {
  const type = stringField(obj, "spec.type", "ClusterIP");
  if (type === "LoadBalancer" && stringField(obj, "spec.clusterIP", "") === "") {
    return inProgress("NoIPAssigned", "ClusterIP not set. Service type: LoadBalancer");
  }
  return current("Service is ready");
}

export function persistentVolumeClaimStatus(obj: KubeObject): StatusResult {
  const phase = stringField(obj, "status.phase", "unknown");
  if (phase !== "Bound") return inProgress("NotBound", `PVC is not Bound. phase: ${phase}`);
  return current("PVC is Bound");
}

/** Reaching the kind rule means observedGeneration matched, i.e. allowed disruptions were computed. */
export function podDisruptionBudgetStatus(): StatusResult {
  return current("AllowedDisruptions has been computed.");
}
