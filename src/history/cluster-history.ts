// Change records in the cluster: ConfigMaps in the inventory's namespace, labelled with the
// inventory id. Create one when a run starts, patch it when the run ends, read and prune them.

import type { Cluster } from "../cluster/types.js";
import { CHANGE_DATA_KEY, CHANGE_INVENTORY_LABEL, changeFromConfigMap, changeToConfigMap, compareNewestFirst, selectExpired, type ChangeRecord } from "./change-record.js";

/** Stores a new record; returns it with the name the server gave it. */
export async function createChange(cluster: Cluster, r: ChangeRecord): Promise<ChangeRecord> {
  const stored = await cluster.create(changeToConfigMap(r));
  return { ...r, name: stored.metadata.name };
}

/** Rewrites a stored record (a merge patch of its one data key). */
export async function updateChange(cluster: Cluster, r: ChangeRecord & { name: string }): Promise<void> {
  const data = changeToConfigMap(r).data as Record<string, string>;
  await cluster.patch({ group: "", kind: "ConfigMap", namespace: r.inventory.namespace, name: r.name }, { data: { [CHANGE_DATA_KEY]: data[CHANGE_DATA_KEY] } }, "merge");
}

/**
 * Records of one inventory (by id) in its namespace, or of every inventory (in one namespace, or
 * all when `namespace` is undefined): one LIST with a label selector. Newest first.
 */
export async function listChanges(cluster: Cluster, q: { namespace?: string; inventoryId?: string; signal?: AbortSignal }): Promise<ChangeRecord[]> {
  const labelSelector = q.inventoryId !== undefined ? `${CHANGE_INVENTORY_LABEL}=${q.inventoryId}` : CHANGE_INVENTORY_LABEL;
  const list = await cluster.list("", "ConfigMap", q.namespace, { labelSelector, signal: q.signal });
  return list.items.map(changeFromConfigMap).filter((r): r is ChangeRecord => r !== undefined).sort(compareNewestFirst);
}

/** Keeps the newest `keep` records of the inventory and deletes the rest; returns how many went. */
export async function pruneChanges(cluster: Cluster, inventory: { namespace: string; id: string }, keep: number): Promise<number> {
  const records = await listChanges(cluster, { namespace: inventory.namespace, inventoryId: inventory.id });
  const expired = selectExpired(records, keep);
  await Promise.all(expired.map((r) => cluster.delete({ group: "", kind: "ConfigMap", namespace: inventory.namespace, name: r.name ?? "" })));
  return expired.length;
}
