// What keeps an object that is being deleted from going (kstatus only says "Terminating"): the
// Namespace controller's deletion conditions (with the API group whose discovery fails, the usual
// cause being an aggregated API whose backend is down), a CustomResourceDefinition's Terminating
// condition while its custom resources are removed, and the finalizers still on the object, with
// what the well-known ones wait for. Pure: the live object in, reasons out.

import type { WaitReason } from "../model/events.js";
import type { KubeObject } from "../model/kube-object.js";
import { groupOf, isCrd } from "../model/ref.js";
import { readConditions, type ObjectCondition } from "./conditions.js";

/** The Namespace controller's conditions that say why content is not gone (status True = a problem). */
const NAMESPACE_CONDITIONS = new Set([
  "NamespaceDeletionDiscoveryFailure",
  "NamespaceDeletionGroupVersionParsingFailure",
  "NamespaceDeletionContentFailure",
  "NamespaceContentRemaining",
  "NamespaceFinalizersRemaining",
]);

/** What a well-known finalizer waits for, in a few words. */
const FINALIZER_MEANING: Record<string, string> = {
  "kubernetes.io/pvc-protection": "the claim is still used by a Pod",
  "kubernetes.io/pv-protection": "the volume is still bound to a claim",
  "foregroundDeletion": "its dependents are deleted first (foreground deletion)",
  "orphan": "its dependents are being orphaned",
  "customresourcecleanup.apiextensions.k8s.io": "its custom resources are deleted first",
  "kubernetes": "the namespace's content is deleted first",
};

/** How client-go's ErrGroupDiscoveryFailed starts its list of the group/versions that failed. */
const DISCOVERY_FAILED = "unable to retrieve the complete list of server APIs:";

interface FailedGroupVersion {
  group: string;
  version: string;
  /** The error discovery gave for it (`stale GroupVersion discovery: ...`). */
  error: string;
}

/** The API groups a discovery failure names (client-go's ErrGroupDiscoveryFailed wording). */
export function failedGroupVersions(message: string): FailedGroupVersion[] {
  const at = message.indexOf(DISCOVERY_FAILED);
  if (at < 0) return [];
  const out: FailedGroupVersion[] = [];
  // `group/version: error` items joined by ", " (an error may hold commas of its own).
  for (const item of message.slice(at + DISCOVERY_FAILED.length).trim().split(/, (?=[a-z0-9.-]+\/v\d\w*: )/)) {
    const m = /^([a-z0-9.-]+)\/(v\d\w*): (.*)$/s.exec(item);
    if (m && !out.some((g) => g.group === m[1] && g.version === m[2])) out.push({ group: m[1]!, version: m[2]!, error: m[3]!.trim() });
  }
  return out;
}

/** The APIService that serves a group/version is named `<version>.<group>`. */
function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

function conditionReason(c: ObjectCondition): WaitReason {
  if (c.type === "NamespaceDeletionDiscoveryFailure") {
    const failed = failedGroupVersions(c.message);
    if (failed.length) {
      const names = failed.map((g) => `${g.group}/${g.version} (APIService ${apiServiceName(g.group, g.version)})`).join(", ");
      return { message: `${c.type}: cannot discover API group ${names}`, detail: c.message };
    }
  }
  return { message: `${c.type}${c.reason ? ` (${c.reason})` : ""}`, ...(c.message ? { detail: c.message } : {}) };
}

function safeConditions(obj: KubeObject): ObjectCondition[] {
  try {
    return readConditions(obj);
  } catch {
    return []; // a malformed status explains nothing; the status itself says so
  }
}

/** Why `obj`, being deleted, is still there; empty when it is not being deleted or nothing says. */
export function deletionHolds(obj: KubeObject): WaitReason[] {
  if (!obj.metadata.deletionTimestamp) return [];
  const reasons: WaitReason[] = [];
  const conditions = safeConditions(obj);
  if (obj.kind === "Namespace" && !obj.apiVersion.includes("/")) {
    for (const c of conditions) if (NAMESPACE_CONDITIONS.has(c.type) && c.status === "True") reasons.push(conditionReason(c));
  }
  if (isCrd(groupOf(obj.apiVersion), obj.kind)) {
    const t = conditions.find((c) => c.type === "Terminating" && c.status === "True");
    if (t) reasons.push({ message: `Terminating: ${t.reason || "InstanceDeletionInProgress"}`, ...(t.message ? { detail: t.message } : {}) });
  }
  // A Namespace's own finalizer list, which the controller empties once its content is gone:
  // named only when no condition says more precisely why the content is not gone.
  const namespaceFinalizers = obj.kind === "Namespace" && reasons.length === 0 ? (obj.spec as { finalizers?: unknown } | undefined)?.finalizers : undefined;
  const finalizers = [...(Array.isArray(obj.metadata.finalizers) ? obj.metadata.finalizers : []), ...(Array.isArray(namespaceFinalizers) ? namespaceFinalizers : [])].filter((f): f is string => typeof f === "string" && f !== "");
  for (const f of new Set(finalizers)) {
    const meaning = FINALIZER_MEANING[f];
    reasons.push({ message: `finalizer ${f}${meaning ? ` (${meaning})` : ""}` });
  }
  return reasons;
}

/** One clause for a status line: `held by finalizer kubernetes.io/pvc-protection, ...`. */
export function describeHolds(reasons: readonly WaitReason[]): string {
  return `held by ${reasons.map((r) => r.message).join("; ")}`;
}
