// Which objects `live status` follows, each with the inventory that lists it: the package's
// inventory (--inv-type local), or every ResourceGroup in the cluster (--inv-type remote, as
// cli-utils' status lists them), narrowed as kpt narrows them: --inv-names by the inventory's
// name, --namespaces by the object's namespace (a cluster-scoped object has none, so any
// --namespaces leaves it out). Pure.

import type { KubeObject } from "../model/kube-object.js";
import type { ObjRef } from "../model/ref.js";
import { refsOfResourceGroup } from "./resource-group.js";

/** An inventory and the objects it lists. */
interface ListedInventory {
  name: string;
  namespace: string;
  refs: ObjRef[];
}

/** An object `live status` follows, and the name of the inventory listing it. */
export interface InventoryMember {
  ref: ObjRef;
  inventoryName: string;
}

export interface StatusSelection {
  /** --inv-names: only inventories of these names. */
  inventoryNames?: readonly string[];
  /** --namespaces: only objects in these namespaces. */
  namespaces?: readonly string[];
}

export function listedInventories(resourceGroups: readonly KubeObject[]): ListedInventory[] {
  return resourceGroups.map((rg) => ({ name: rg.metadata.name ?? "", namespace: rg.metadata.namespace ?? "", refs: refsOfResourceGroup(rg) }));
}

/**
 * The objects to follow, grouped by inventory: inventories by name (then namespace), each one's
 * objects in the order it lists them. An object two inventories list is there twice, once for each.
 */
export function selectForStatus(inventories: readonly ListedInventory[], selection: StatusSelection = {}): InventoryMember[] {
  // An empty list selects everything, as kpt's empty flag does.
  const names = selection.inventoryNames?.length ? new Set(selection.inventoryNames) : undefined;
  const namespaces = selection.namespaces?.length ? new Set(selection.namespaces) : undefined;
  return [...inventories]
    .filter((inv) => !names || names.has(inv.name))
    .sort((a, b) => (a.name === b.name ? a.namespace.localeCompare(b.namespace) : a.name.localeCompare(b.name)))
    .flatMap((inv) => inv.refs.filter((ref) => !namespaces || namespaces.has(ref.namespace)).map((ref) => ({ ref, inventoryName: inv.name })));
}
