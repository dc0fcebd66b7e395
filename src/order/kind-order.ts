// kpt's order of objects within one wave (cli-utils pkg/ordering): kinds others depend on
// first (namespaces, CRDs, RBAC, config, services, workloads), admission webhooks that could
// reject the rest last, every other kind in between by group then kind; ties by namespace, name.

import type { ObjRef } from "../model/ref.js";

const FIRST: readonly string[] = [
  "/Namespace",
  "/ResourceQuota",
  "storage.k8s.io/StorageClass",
  "apiextensions.k8s.io/CustomResourceDefinition",
  "admissionregistration.k8s.io/MutatingWebhookConfiguration",
  "/ServiceAccount",
  "extensions/PodSecurityPolicy",
  "policy/PodSecurityPolicy",
  "rbac.authorization.k8s.io/Role",
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/RoleBinding",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  "/ConfigMap",
  "/Secret",
  "/Service",
  "/LimitRange",
  "scheduling.k8s.io/PriorityClass",
  "extensions/Deployment",
  "apps/Deployment",
  "apps/StatefulSet",
  "batch/CronJob",
  "policy/PodDisruptionBudget",
];

const LAST: readonly string[] = ["admissionregistration.k8s.io/ValidatingWebhookConfiguration"];

// Listed kinds get negative ranks in list order, the last ones positive, everything else 0.
const RANK = new Map<string, number>([...FIRST.map((gk, i): [string, number] => [gk, i - FIRST.length]), ...LAST.map((gk, i): [string, number] => [gk, i + 1])]);

function kindRank(ref: Pick<ObjRef, "group" | "kind">): number {
  return RANK.get(`${ref.group}/${ref.kind}`) ?? 0;
}

/** Plain code-unit order: Go's byte order for the ASCII names Kubernetes allows. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A comparator for Array.prototype.sort. */
export function compareKindOrder(a: ObjRef, b: ObjRef): number {
  if (a.group !== b.group || a.kind !== b.kind) {
    const byRank = kindRank(a) - kindRank(b);
    if (byRank !== 0) return byRank;
    return a.group !== b.group ? compareStrings(a.group, b.group) : compareStrings(a.kind, b.kind);
  }
  return a.namespace !== b.namespace ? compareStrings(a.namespace, b.namespace) : compareStrings(a.name, b.name);
}
