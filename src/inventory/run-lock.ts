// One run at a time per inventory: a coordination.k8s.io/v1 Lease beside the inventory (same
// namespace, a name derived from the inventory's), held by a run that writes and renewed at a
// third of its duration, as Kubernetes' own leader election does. A Lease whose holder stopped
// renewing (a run killed with SIGKILL) is free again once its duration has passed since its last
// renewal. kpt knows nothing of it. Pure: what the Lease says, what to do about it, what to write.

import { createHash } from "node:crypto";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";
import type { ObjRef } from "../model/ref.js";
import { formatParent } from "./applyset.js";

/** How long a Lease holds without renewal: a run killed outright blocks the next for at most this. */
export const LEASE_DURATION_SECONDS = 20;
/** A holder renews at a third of the duration (client-go's leader election: renew well before expiry). */
export const RENEW_EVERY_MS = (LEASE_DURATION_SECONDS * 1000) / 3;

const PREFIX = "kpt-ts-lock";
const MAX_NAME = 253;

/** The Lease of an inventory: `kpt-ts-lock.resourcegroup.<name>` or `kpt-ts-lock.applyset-secret.<name>`. */
export function lockRef(info: Pick<InventoryInfo, "name" | "namespace" | "applySet">): ObjRef {
  const kind = info.applySet ? `applyset-${info.applySet.kind.toLowerCase()}` : "resourcegroup";
  let name = `${PREFIX}.${kind}.${info.name}`;
  if (name.length > MAX_NAME) {
    // Long inventory names keep a prefix of themselves and a hash of the whole, still unique.
    const hash = createHash("sha256").update(info.name).digest("hex").slice(0, 16);
    name = `${name.slice(0, MAX_NAME - hash.length - 1).replace(/[.-]+$/, "")}.${hash}`;
  }
  return { group: "coordination.k8s.io", kind: "Lease", namespace: info.namespace, name };
}

/** How the inventory is named in the lock's messages. */
export function describeInventory(info: Pick<InventoryInfo, "name" | "namespace" | "applySet">): string {
  return info.applySet ? `ApplySet ${info.namespace}/${formatParent(info)}` : `ResourceGroup ${info.namespace}/${info.name}`;
}

/** Who holds the lock, as the Lease says it. */
export interface LeaseHolder {
  identity: string;
  /** When the holder took it (the run's start), ISO 8601; absent when the Lease does not say. */
  acquired?: string;
  /** Its last renewal. */
  renewed?: string;
  durationSeconds: number;
}

export function holderOf(lease: KubeObject | undefined): LeaseHolder | undefined {
  const spec = (lease?.spec ?? {}) as { holderIdentity?: unknown; acquireTime?: unknown; renewTime?: unknown; leaseDurationSeconds?: unknown };
  if (typeof spec.holderIdentity !== "string" || spec.holderIdentity === "") return undefined;
  return {
    identity: spec.holderIdentity,
    ...(typeof spec.acquireTime === "string" ? { acquired: spec.acquireTime } : {}),
    ...(typeof spec.renewTime === "string" ? { renewed: spec.renewTime } : {}),
    durationSeconds: typeof spec.leaseDurationSeconds === "number" && spec.leaseDurationSeconds > 0 ? spec.leaseDurationSeconds : LEASE_DURATION_SECONDS,
  };
}

/**
 * What a run that wants the lock does: take it (no Lease, a released one, or one whose holder
 * stopped renewing), or wait (someone holds it: until `expiresInMs` at most, unless it is released
 * sooner). A Lease this very process holds is taken again (a run that lost its answer).
 */
export type LeaseDecision = { action: "take"; previous?: LeaseHolder } | { action: "wait"; holder: LeaseHolder; expiresInMs: number };

export function decideLease(lease: KubeObject | undefined, now: Date, me: string): LeaseDecision {
  const holder = holderOf(lease);
  if (!holder || holder.identity === me) return { action: "take" };
  const last = Date.parse(holder.renewed ?? holder.acquired ?? "");
  // A Lease that says nothing of when it was renewed cannot be waited out: it is taken.
  if (!Number.isFinite(last)) return { action: "take", previous: holder };
  const expiresInMs = last + holder.durationSeconds * 1000 - now.getTime();
  return expiresInMs <= 0 ? { action: "take", previous: holder } : { action: "wait", holder, expiresInMs };
}

/** A Kubernetes MicroTime: RFC 3339 with six fractional digits (the server refuses fewer). */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** The Lease that says `identity` holds the lock from `acquired`, renewed `now`; based on the stored one when there is one. */
export function leaseBody(ref: ObjRef, identity: string, acquired: Date, now: Date, current?: KubeObject): KubeObject {
  const transitions = ((current?.spec as { leaseTransitions?: number } | undefined)?.leaseTransitions ?? 0) + (current && holderOf(current)?.identity !== identity ? 1 : 0);
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      ...withoutManagedFields(current?.metadata),
      name: ref.name,
      namespace: ref.namespace,
      labels: { ...current?.metadata.labels, "app.kubernetes.io/managed-by": "kpt-ts" },
    },
    spec: {
      holderIdentity: identity,
      leaseDurationSeconds: LEASE_DURATION_SECONDS,
      acquireTime: microTime(acquired),
      renewTime: microTime(now),
      ...(transitions ? { leaseTransitions: transitions } : {}),
    },
  };
}

/** The Lease once its run ended: no holder (kept, so the next run can tell that a run came and went). */
export function releasedLease(stored: KubeObject, now: Date): KubeObject {
  const { acquireTime: _started, ...rest } = (stored.spec ?? {}) as Record<string, unknown>;
  const spec = { ...rest, holderIdentity: "", renewTime: microTime(now) };
  return { ...stored, metadata: withoutManagedFields(stored.metadata), spec };
}

/** `alice@build-7 pid 4242 (kpt-ts live apply)` */
export function holderIdentity(o: { user: string; host: string; pid: number; command: string }): string {
  return `${o.user || "unknown"}@${o.host || "unknown"} pid ${o.pid} (kpt-ts live ${o.command})`;
}

/** The refusal: who holds the lock, since when, and how long it can hold it at most. */
export function heldMessage(info: Pick<InventoryInfo, "name" | "namespace" | "applySet">, holder: LeaseHolder, expiresInMs: number, now: Date, waitedMs?: number): string {
  const started = holder.acquired ? ` since ${holder.acquired.replace(/\.\d+Z$/, "Z")} (${formatAge(now.getTime() - Date.parse(holder.acquired))} ago)` : "";
  const waited = waitedMs !== undefined ? `, still after waiting ${formatAge(waitedMs)} (--lock-timeout)` : "";
  return (
    `the inventory ${describeInventory(info)} is locked by another run: ${holder.identity}${started}${waited}; ` +
    `the lock (Lease ${info.namespace}/${lockRef(info).name}) is released when that run ends, or expires ${formatAge(expiresInMs)} from now if it stopped renewing it`
  );
}

function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}

function withoutManagedFields(metadata: KubeObject["metadata"] | undefined): KubeObject["metadata"] {
  if (!metadata) return {};
  const { managedFields: _drop, ...rest } = metadata;
  return rest;
}
