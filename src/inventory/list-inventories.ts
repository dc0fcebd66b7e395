// Every inventory in the cluster, or in one namespace: the ResourceGroups (when their CRD is
// installed) and the ApplySets, whoever made them (`live list`, `live status --inv-type remote`).
// A user who may not list across namespaces sees the inventories of the context's namespace,
// and is told so.

import { ApiError, briefApiError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import type { KubeObject } from "../model/kube-object.js";
import { listApplySets } from "./cluster-applyset.js";
import { listResourceGroups, resourceGroupCrdInstalled, resourceGroupKindNotServedError } from "./cluster-inventory.js";
import { listedInventories, type ListedInventory } from "./status-selection.js";

export interface ListInventoriesOptions {
  /** One namespace; undefined: every namespace. */
  namespace?: string;
  signal?: AbortSignal;
  /** kpt's error when there is no ResourceGroup CRD and no ApplySet either (`live status --inv-type remote`). */
  kindRequired?: boolean;
  onWarning: (message: string) => void;
}

export async function listInventories(cluster: Cluster, o: ListInventoriesOptions): Promise<{ inventories: ListedInventory[]; resourceGroups: KubeObject[] }> {
  const crd = await resourceGroupCrdInstalled(cluster);
  const narrowed = new Set<string>();
  const inScope = async <T>(what: string, list: (namespace: string | undefined) => Promise<T[]>): Promise<T[]> => {
    try {
      return await list(o.namespace);
    } catch (err) {
      // Forbidden across namespaces: the context's namespace, where a namespaced Role applies.
      if (!(err instanceof ApiError && err.status === 403 && o.namespace === undefined)) throw err;
      if (!narrowed.has(what)) o.onWarning(`${briefApiError(err)}: showing the ${what} of namespace ${cluster.defaultNamespace} only (choose another with -n)`);
      narrowed.add(what);
      return list(cluster.defaultNamespace);
    }
  };
  const [resourceGroups, applySets] = await Promise.all([
    crd ? inScope("ResourceGroups", (namespace) => listResourceGroups(cluster, { namespace, signal: o.signal })) : Promise.resolve([]),
    inScope("ApplySets", (namespace) => listApplySets(cluster, { namespace, signal: o.signal, onWarning: o.onWarning })),
  ]);
  if (!crd && applySets.length === 0 && o.kindRequired) throw resourceGroupKindNotServedError("all");
  return { inventories: [...listedInventories(resourceGroups), ...applySets], resourceGroups };
}
