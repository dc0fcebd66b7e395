// How large the ResourceGroup is, before it is written. The API server stores a custom resource
// as one JSON value in etcd, and etcd takes at most `--max-request-bytes` per request (1.5 MiB by
// default, and on every managed cluster we know of); a larger write fails with "etcdserver:
// request is too large", and no retry can help. So the inventory is sized here first: statuses
// that would not fit are left out (they are advisory), and a list of objects that would not fit
// is refused before anything is written. Pure.

import type { ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";
import { buildResourceGroup, buildResourceGroupStatus, type ResourceStatusEntry } from "./resource-group.js";

/** etcd's default `--max-request-bytes` (1.5 MiB): the largest request etcd accepts, the stored value, its key and framing. */
const ETCD_REQUEST_LIMIT_BYTES = 1_572_864;
/**
 * What we allow the inventory's JSON to take: etcd's limit less room for what the server adds
 * (managedFields, creationTimestamp, uid; under 1 KiB) and etcd's own framing (the key, the
 * transaction; about 200 bytes). Measured on the local cluster (etcd 3.6, its defaults): a
 * ResourceGroup of 1,572,506 bytes as sent was stored, one of 1,572,706 was refused with
 * "etcdserver: request is too large" (HTTP 500); above 3,145,728 bytes the API server itself
 * answers 413 (see docs/benchmark.md, "How large a package can be").
 */
export const INVENTORY_BYTE_BUDGET = ETCD_REQUEST_LIMIT_BYTES - 8 * 1024;

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/** The stored size of the inventory listing `refs` (with `statuses`, when given). */
export function inventoryBytes(info: InventoryInfo, refs: ObjRef[], statuses?: ResourceStatusEntry[], current?: KubeObject): number {
  const rg = buildResourceGroup(info, refs, current);
  return jsonBytes(statuses ? buildResourceGroupStatus(rg, statuses) : rg);
}

/** What of the inventory fits: the list with its statuses, the list alone, or not even the list. */
type InventoryFit = "all" | "list-only" | "none";

export function inventoryFit(info: InventoryInfo, refs: ObjRef[], statuses: ResourceStatusEntry[] | undefined, current?: KubeObject, budget = INVENTORY_BYTE_BUDGET): InventoryFit {
  if (inventoryBytes(info, refs, undefined, current) > budget) return "none";
  if (statuses && inventoryBytes(info, refs, statuses, current) > budget) return "list-only";
  return "all";
}

/**
 * How many objects like `refs` fit in one inventory: without statuses, and with them
 * (`--status-policy all`). Counted over `refs` in order, so the answer is exact for this package
 * and a fair estimate for its parts.
 */
export function objectsThatFit(info: InventoryInfo, refs: ObjRef[], current?: KubeObject, budget = INVENTORY_BYTE_BUDGET): { listOnly: number; withStatuses: number } {
  const base = inventoryBytes(info, [], undefined, current) + jsonBytes({ resources: [] }) + jsonBytes({ resourceStatuses: [] });
  let listBytes = base;
  let statusBytes = base;
  let listOnly = 0;
  let withStatuses = 0;
  for (const ref of refs) {
    const entry = jsonBytes({ group: ref.group, kind: ref.kind, name: ref.name, namespace: ref.namespace }) + 1;
    const status = jsonBytes({ group: ref.group, kind: ref.kind, name: ref.name, namespace: ref.namespace, status: "Unknown", strategy: "Apply", actuation: "Succeeded", reconcile: "Succeeded" }) + 1;
    listBytes += entry;
    statusBytes += entry + status;
    if (listBytes <= budget) listOnly++;
    if (statusBytes <= budget) withStatuses++;
  }
  return { listOnly, withStatuses };
}

/** "1.6 MiB", "812 KiB" */
export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(2)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}
