// Which objects `live status` follows, each with the inventory that lists it: the package's
// inventory (--inv-type local), or every inventory in the cluster (--inv-type remote: every
// ResourceGroup, as cli-utils' status lists them, and every ApplySet, whoever made it), narrowed as kpt narrows them: --inv-names by the inventory's
// name, --namespaces by the object's namespace (a cluster-scoped object has none, so any
// --namespaces leaves it out). Pure.

import { APPLYSET_ID_LABEL, APPLYSET_TOOLING_ANNOTATION } from "../model/inventory-keys.js";
import type { KubeObject } from "../model/kube-object.js";
import type { ObjRef } from "../model/ref.js";
import { inventoryIdOf, refsOfResourceGroup } from "./resource-group.js";

/** An inventory and the objects it lists (an ApplySet: its members, found by label). */
export interface ListedInventory {
  kind: "ResourceGroup" | "ApplySet";
  name: string;
  namespace: string;
  /** The inventory id (cli-utils' label, or the ApplySet's id label); "" when it has none. */
  id: string;
  refs: ObjRef[];
  /** An ApplySet's parent kind and the tool that manages it (`kubectl/v1.32.0`, `kpt-ts/v0.1.0`). */
  parentKind?: string;
  tooling?: string;
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
  return resourceGroups.map((rg) => ({ kind: "ResourceGroup", name: rg.metadata.name ?? "", namespace: rg.metadata.namespace ?? "", id: inventoryIdOf(rg) ?? "", refs: refsOfResourceGroup(rg) }));
}

/** An ApplySet parent and its members. */
export function listedApplySet(parent: KubeObject, refs: ObjRef[]): ListedInventory {
  const tooling = parent.metadata.annotations?.[APPLYSET_TOOLING_ANNOTATION];
  return {
    kind: "ApplySet",
    name: parent.metadata.name ?? "",
    namespace: parent.metadata.namespace ?? "",
    id: parent.metadata.labels?.[APPLYSET_ID_LABEL] ?? "",
    refs,
    parentKind: parent.kind,
    ...(tooling ? { tooling } : {}),
  };
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
