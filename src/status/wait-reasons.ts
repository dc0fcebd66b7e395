// Why an object is still not Current, from the objects under it (kapp's `L waiting on pod/...`):
// a Deployment's current ReplicaSet and its not-ready Pods, a StatefulSet's, DaemonSet's,
// ReplicaSet's or Job's Pods, a claim's missing PersistentVolume. Pure: the live objects come in
// (see wait-explainer.ts for how they are read), reasons come out.

import type { WaitReason } from "../model/events.js";
import { refOf, type ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { computeStatus } from "./compute-status.js";

/** Objects read to explain a wait: the Pods and ReplicaSets of its namespace, the PersistentVolumes. */
interface RelatedObjects {
  pods: readonly KubeObject[];
  replicaSets: readonly KubeObject[];
  volumes: readonly KubeObject[];
}

/** Values of one key in a combined selector at most. */
const MAX_SELECTOR_VALUES = 50;

/** Pods listed per owner at most; the rest are counted. */
const MAX_PODS_SHOWN = 3;

const POD_OWNERS = new Set(["apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet", "batch/Job"]);

/** Which waits this module can explain, and what each needs read. */
export function explanationNeeds(ref: Pick<ObjRef, "group" | "kind">): { pods: boolean; replicaSets: boolean; volumes: boolean } | undefined {
  const gk = `${ref.group}/${ref.kind}`;
  if (gk === "apps/Deployment") return { pods: true, replicaSets: true, volumes: false };
  if (POD_OWNERS.has(gk)) return { pods: true, replicaSets: false, volumes: false };
  if (gk === "/PersistentVolumeClaim") return { pods: false, replicaSets: false, volumes: true };
  return undefined;
}

/** The reasons `obj` (not yet Current) waits, given what was read around it; empty when nothing is known. */
export function explainWait(obj: KubeObject, related: RelatedObjects): WaitReason[] {
  const gk = `${refOf(obj).group}/${obj.kind}`;
  if (gk === "apps/Deployment") return explainDeployment(obj, related);
  if (POD_OWNERS.has(gk)) return podReasons(ownedBy(related.pods, obj), gk === "batch/Job");
  if (gk === "/PersistentVolumeClaim") return explainClaim(obj, related.volumes);
  return [];
}

function explainDeployment(deploy: KubeObject, related: RelatedObjects): WaitReason[] {
  const rs = currentReplicaSet(deploy, related.replicaSets);
  if (!rs) return [{ message: "no ReplicaSet for its current template yet" }];
  return [{ ref: refOf(rs), message: computeStatus(rs).message }, ...podReasons(ownedBy(related.pods, rs), false)];
}

/** The ReplicaSet of the Deployment's current revision (the controller stamps both with it), else its newest. */
export function currentReplicaSet(deploy: KubeObject, replicaSets: readonly KubeObject[]): KubeObject | undefined {
  const owned = ownedBy(replicaSets, deploy);
  const revision = (o: KubeObject) => Number(o.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? NaN);
  const wanted = revision(deploy);
  return owned.find((rs) => !Number.isNaN(wanted) && revision(rs) === wanted) ?? [...owned].sort((a, b) => (revision(b) || 0) - (revision(a) || 0))[0];
}

function ownedBy(objects: readonly KubeObject[], owner: KubeObject): KubeObject[] {
  const uid = owner.metadata.uid;
  if (!uid) return [];
  return objects.filter((o) => ownerRefs(o).some((r) => r.uid === uid));
}

function ownerRefs(o: KubeObject): { uid?: string }[] {
  const refs = o.metadata.ownerReferences;
  return Array.isArray(refs) ? refs.filter((r): r is { uid?: string } => typeof r === "object" && r !== null) : [];
}

function podReasons(pods: KubeObject[], job: boolean): WaitReason[] {
  const waiting = pods
    .map((p) => ({ pod: p, reason: podReason(p, { job }) }))
    .filter((x): x is { pod: KubeObject; reason: WaitReason } => x.reason !== undefined)
    .sort((a, b) => (a.pod.metadata.name ?? "").localeCompare(b.pod.metadata.name ?? ""));
  const shown = waiting.slice(0, MAX_PODS_SHOWN).map((x) => x.reason);
  if (waiting.length > shown.length) shown.push({ message: `and ${waiting.length - shown.length} more pod(s) not ready` });
  return shown;
}

/**
 * Why one Pod is not ready, as `<phase>: <reason>` (`Pending: Unschedulable`, `Pending:
 * ContainerCreating`, `Running: CrashLoopBackOff`); undefined when it is ready (or, for a Job's
 * Pod, finished successfully).
 */
export function podReason(pod: KubeObject, opts: { job?: boolean } = {}): WaitReason | undefined {
  const ref = refOf(pod);
  const status = (pod.status ?? {}) as Record<string, any>;
  const phase = typeof status.phase === "string" && status.phase ? status.phase : "Unknown";
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Record<string, any>[]) : [];
  const condition = (type: string) => conditions.find((c) => c?.type === type);
  if (pod.metadata.deletionTimestamp) return { ref, message: `${phase}: Terminating` };
  if (phase === "Succeeded") return undefined;
  if (phase === "Running" && condition("Ready")?.status === "True") return opts.job ? { ref, message: "Running" } : undefined;
  if (phase === "Failed") return { ref, message: `Failed: ${str(status.reason) || "Error"}`, ...detail(status.message) };

  const scheduled = condition("PodScheduled");
  if (phase === "Pending" && scheduled?.status === "False") return { ref, message: `Pending: ${str(scheduled.reason) || "Unschedulable"}`, ...detail(scheduled.message) };

  // The first container that says why it waits (init containers run first), else the last one that stopped.
  const statuses = [...list(status.initContainerStatuses), ...list(status.containerStatuses)];
  const waiting = statuses.find((c) => str(c?.state?.waiting?.reason));
  if (waiting) return { ref, message: `${phase}: ${waiting.state.waiting.reason}`, ...detail(waiting.state.waiting.message) };
  const terminated = statuses.find((c) => str(c?.state?.terminated?.reason) && c.state.terminated.exitCode !== 0);
  if (terminated) return { ref, message: `${phase}: ${terminated.state.terminated.reason}`, ...detail(terminated.state.terminated.message) };
  if (phase === "Running") {
    const ready = condition("Ready");
    return { ref, message: `Running: ${str(ready?.reason) || "NotReady"}`, ...detail(ready?.message) };
  }
  return { ref, message: phase };
}

function explainClaim(pvc: KubeObject, volumes: readonly KubeObject[]): WaitReason[] {
  const spec = (pvc.spec ?? {}) as Record<string, any>;
  const phase = str((pvc.status as Record<string, any> | undefined)?.phase);
  if (phase === "Bound") return [];
  if (str(spec.volumeName)) {
    const pv = volumes.find((v) => v.metadata.name === spec.volumeName);
    return [{ ref: { group: "", kind: "PersistentVolume", namespace: "", name: spec.volumeName }, message: pv ? `${str((pv.status as any)?.phase) || "Unknown"}: not bound to it yet` : "does not exist" }];
  }
  const matching = volumes.filter((pv) => volumeMatches(pv, pvc));
  if (matching.length === 0) return [{ message: "no PersistentVolume matches", detail: describeClaimNeeds(pvc) }];
  return [{ ref: refOf(matching[0]!), message: "Available: matches, not bound yet" }];
}

/** What a claim asks for, as the binder matches it: `storageClassName "fast", 1Gi, ReadWriteOnce, selector app=db`. */
export function describeClaimNeeds(pvc: KubeObject): string {
  const spec = (pvc.spec ?? {}) as Record<string, any>;
  const parts = [`storageClassName "${str(spec.storageClassName)}"`];
  const size = str(spec.resources?.requests?.storage);
  if (size) parts.push(size);
  const modes = list(spec.accessModes).filter((m) => typeof m === "string");
  if (modes.length) parts.push(modes.join(","));
  const selector = describeSelector(spec.selector);
  if (selector) parts.push(`selector ${selector}`);
  return parts.join(", ");
}

function describeSelector(sel: any): string {
  if (!sel || typeof sel !== "object") return "";
  const labels = Object.entries((sel.matchLabels ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`);
  const exprs = list(sel.matchExpressions).map((e) => `${e.key} ${String(e.operator).toLowerCase()}${Array.isArray(e.values) ? ` (${e.values.join(",")})` : ""}`);
  return [...labels, ...exprs].join(",");
}

/** The static binder's test, simplified: an Available volume (or one reserved for this claim) of the class, size, modes and labels asked for. */
export function volumeMatches(pv: KubeObject, pvc: KubeObject): boolean {
  const v = (pv.spec ?? {}) as Record<string, any>;
  const c = (pvc.spec ?? {}) as Record<string, any>;
  const claimRef = v.claimRef as Record<string, any> | undefined;
  const reservedForUs = claimRef && claimRef.name === pvc.metadata.name && claimRef.namespace === pvc.metadata.namespace;
  if (claimRef && !reservedForUs) return false;
  if (!reservedForUs && str((pv.status as any)?.phase) !== "Available") return false;
  if (str(v.storageClassName) !== str(c.storageClassName)) return false;
  if ((str(v.volumeMode) || "Filesystem") !== (str(c.volumeMode) || "Filesystem")) return false;
  const modes = new Set(list(v.accessModes));
  if (!list(c.accessModes).every((m) => modes.has(m))) return false;
  const want = parseQuantity(str(c.resources?.requests?.storage) || "0");
  const have = parseQuantity(str(v.capacity?.storage) || "0");
  if (want === undefined || have === undefined || have < want) return false;
  return selectorMatches(c.selector, pv.metadata.labels ?? {});
}

function selectorMatches(sel: any, labels: Record<string, string>): boolean {
  if (!sel || typeof sel !== "object") return true;
  for (const [k, v] of Object.entries((sel.matchLabels ?? {}) as Record<string, string>)) if (labels[k] !== v) return false;
  for (const e of list(sel.matchExpressions)) {
    const values = list(e?.values);
    const has = Object.prototype.hasOwnProperty.call(labels, e?.key);
    const ok =
      e?.operator === "In" ? has && values.includes(labels[e.key]) :
      e?.operator === "NotIn" ? !has || !values.includes(labels[e.key]) :
      e?.operator === "Exists" ? has :
      e?.operator === "DoesNotExist" ? !has : false;
    if (!ok) return false;
  }
  return true;
}

const SUFFIX: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60, n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A Kubernetes quantity (`1Gi`, `500M`, `1e3`) as a number; undefined when it is not one. */
export function parseQuantity(q: string): number | undefined {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/.exec(q.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] ? n * 10 ** Number(m[2].slice(1)) : n * SUFFIX[m[3] ?? ""]!;
}

/**
 * One label selector for a single LIST covering several owners in one namespace: the labels
 * every owner's selector shares, as `key in (v1,v2)`; undefined (list them all) when they share
 * none. The result may match more than needed; owners are then told apart by ownerReferences.
 */
export function combinedSelector(owners: readonly KubeObject[]): string | undefined {
  const selectors = owners.map((o) => (o.spec as any)?.selector?.matchLabels as Record<string, string> | undefined);
  if (selectors.length === 0 || selectors.some((s) => !s || Object.keys(s).length === 0)) return undefined;
  // A key with very many values would make a URL longer than servers accept: list more instead.
  const keys = Object.keys(selectors[0]!)
    .filter((k) => selectors.every((s) => typeof s![k] === "string") && new Set(selectors.map((s) => s![k])).size <= MAX_SELECTOR_VALUES)
    .sort();
  if (keys.length === 0) return undefined;
  if (selectors.length === 1) return keys.map((k) => `${k}=${selectors[0]![k]}`).join(",");
  return keys.map((k) => `${k} in (${[...new Set(selectors.map((s) => s![k]!))].sort().join(",")})`).join(",");
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function list(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}

function detail(message: unknown): { detail?: string } {
  const text = str(message).trim().replace(/\s+/g, " ");
  return text ? { detail: text.length > 200 ? `${text.slice(0, 199)}…` : text } : {};
}
