// `live migrate`'s cluster half: the ConfigMap inventory cli-utils kept (found by its id label)
// becomes the package's ResourceGroup, listing the same objects, and only then is deleted.

import type { Cluster } from "../cluster/types.js";
import { ClusterError } from "../model/errors.js";
import { INVENTORY_ID_LABEL } from "../model/inventory-keys.js";
import { RefSet, type ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";
import { readClusterInventory, writeClusterInventory } from "./cluster-inventory.js";
import { configMapInventoryRefs, type MigratedInventory } from "./migrate.js";

/** The ConfigMap inventory with this id in the namespace, and the objects it lists; undefined when there is none. */
export async function readConfigMapInventory(cluster: Cluster, namespace: string, id: string, signal?: AbortSignal): Promise<{ object: KubeObject; refs: ObjRef[] } | undefined> {
  const { items } = await cluster.list("", "ConfigMap", namespace, { labelSelector: `${INVENTORY_ID_LABEL}=${id}`, signal });
  if (items.length === 0) return undefined;
  if (items.length > 1) {
    throw new ClusterError(`${items.length} ConfigMap inventories in namespace "${namespace}" carry ${INVENTORY_ID_LABEL}=${id}: ${items.map((i) => i.metadata.name).join(", ")}`, {
      detail: "Delete the ones the package was not applied with, then run migrate again.",
    });
  }
  const object = items[0]!;
  const { refs, bad } = configMapInventoryRefs(object.data as Record<string, unknown> | undefined);
  if (bad.length > 0) {
    throw new ClusterError(`the ConfigMap inventory ${namespace}/${object.metadata.name} has entries that name no object: ${bad.slice(0, 3).join(", ")}`, {
      detail: "Nothing was changed. Fix or remove those data keys (each is <namespace>_<name>_<group>_<Kind>), then run migrate again.",
    });
  }
  return { object, refs };
}

/** Stores `refs` in the package's ResourceGroup, added to whatever it lists already; returns how many it lists. */
export async function storeInResourceGroup(cluster: Cluster, inv: MigratedInventory, refs: ObjRef[], signal?: AbortSignal): Promise<number> {
  const info: InventoryInfo = { ...inv, labels: {}, annotations: {}, origin: "resourcegroup", source: { file: "", line: 1 } };
  const current = await readClusterInventory(cluster, info, signal);
  const all = new RefSet(current.refs).union(refs);
  await writeClusterInventory(cluster, info, [...all], { basedOn: current.object ?? null, onConflict: "merge", signal });
  return all.size;
}
