// Which kstatus rule owns which kind, keyed `group/Kind` (core kinds by bare Kind), as kstatus'
// legacyTypes. Namespace and every other kind fall through to the Ready-condition fallback.

import type { KindRule } from "../types.js";
import { crdStatus } from "./crd.js";
import { daemonSetStatus } from "./daemon-set.js";
import { deploymentStatus } from "./deployment.js";
import { jobStatus } from "./job.js";
import { podStatus } from "./pod.js";
import { replicaSetStatus } from "./replica-set.js";
import {
  alwaysReadyStatus,
  persistentVolumeClaimStatus,
  podDisruptionBudgetStatus,
  serviceStatus,
} from "./simple-kinds.js";
import { statefulSetStatus } from "./stateful-set.js";

const RULES: ReadonlyMap<string, KindRule> = new Map<string, KindRule>([
  ["Service", serviceStatus],
  ["Pod", podStatus],
  ["Secret", alwaysReadyStatus],
  ["ConfigMap", alwaysReadyStatus],
  ["PersistentVolumeClaim", persistentVolumeClaimStatus],
  ["apps/StatefulSet", statefulSetStatus],
  ["apps/DaemonSet", daemonSetStatus],
  ["extensions/DaemonSet", daemonSetStatus],
  ["apps/Deployment", deploymentStatus],
  ["extensions/Deployment", deploymentStatus],
  ["apps/ReplicaSet", replicaSetStatus],
  ["extensions/ReplicaSet", replicaSetStatus],
  ["policy/PodDisruptionBudget", podDisruptionBudgetStatus],
  ["batch/CronJob", alwaysReadyStatus],
  ["batch/Job", jobStatus],
  ["apiextensions.k8s.io/CustomResourceDefinition", crdStatus],
]);

export function findKindRule(group: string, kind: string): KindRule | undefined {
  return RULES.get(group === "" ? kind : `${group}/${kind}`);
}
