// The in-cluster inventory object: a kpt.dev/v1alpha1 ResourceGroup listing every object the
// package owns. Pure conversions between it and sets of refs.

import { RefSet, type ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";
import { INVENTORY_ID_LABEL, KPT_GROUP, RESOURCE_GROUP_API_VERSION, RESOURCE_GROUP_KIND } from "../model/inventory-keys.js";

export type Actuation = "Pending" | "Succeeded" | "Skipped" | "Failed";
export type Reconcile = "Pending" | "Succeeded" | "Skipped" | "Failed" | "Timeout";

export interface ResourceStatusEntry {
  ref: ObjRef;
  strategy: "Apply" | "Delete";
  actuation: Actuation;
  reconcile: Reconcile;
}

export function inventoryRef(info: Pick<InventoryInfo, "name" | "namespace">): ObjRef {
  return { group: KPT_GROUP, kind: RESOURCE_GROUP_KIND, namespace: info.namespace, name: info.name };
}

/** The refs a cluster ResourceGroup lists (malformed entries are ignored). */
export function refsOfResourceGroup(rg: KubeObject | undefined): ObjRef[] {
  const list = (rg?.spec as { resources?: unknown } | undefined)?.resources;
  if (!Array.isArray(list)) return [];
  const refs: ObjRef[] = [];
  for (const e of list) {
    if (!e || typeof e !== "object") continue;
    const r = e as Record<string, unknown>;
    if (typeof r.kind !== "string" || typeof r.name !== "string") continue;
    refs.push({ group: String(r.group ?? ""), kind: r.kind, namespace: String(r.namespace ?? ""), name: r.name });
  }
  return new RefSet(refs).toArray();
}

export function inventoryIdOf(rg: KubeObject): string | undefined {
  return rg.metadata.labels?.[INVENTORY_ID_LABEL];
}

/**
 * The ResourceGroup to write: the cluster copy (when there is one) with new `spec.resources`,
 * else a new object from the package's inventory information. An empty set removes the list,
 * as kpt does.
 */
export function buildResourceGroup(info: InventoryInfo, refs: ObjRef[], current?: KubeObject): KubeObject {
  const base: KubeObject = current
    ? structuredClone(current)
    : {
        apiVersion: RESOURCE_GROUP_API_VERSION,
        kind: RESOURCE_GROUP_KIND,
        metadata: {
          name: info.name,
          namespace: info.namespace,
          labels: { ...info.labels, [INVENTORY_ID_LABEL]: info.id },
          ...(Object.keys(info.annotations).length ? { annotations: { ...info.annotations } } : {}),
        },
      };
  const spec = { ...((base.spec as Record<string, unknown>) ?? {}) };
  if (refs.length) spec.resources = refs.map((r) => ({ group: r.group, kind: r.kind, name: r.name, namespace: r.namespace }));
  else delete spec.resources;
  base.spec = spec;
  delete base.status; // status goes through the status subresource
  return base;
}

/** The status kpt writes with `--status-policy all` (its `status` field is always "Unknown"). */
export function buildResourceGroupStatus(rg: KubeObject, entries: ResourceStatusEntry[]): KubeObject {
  const out = structuredClone(rg);
  const status: Record<string, unknown> = { observedGeneration: rg.metadata.generation ?? 0 };
  if (entries.length) {
    status.resourceStatuses = entries.map((e) => ({
      group: e.ref.group,
      kind: e.ref.kind,
      name: e.ref.name,
      namespace: e.ref.namespace,
      status: "Unknown",
      strategy: e.strategy,
      actuation: e.actuation,
      reconcile: e.reconcile,
    }));
  }
  out.status = status;
  return out;
}
