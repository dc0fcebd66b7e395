// What a run would delete, read before it starts: the inventory objects that left the package
// (apply's prune) or all of them (destroy), each with kpt's decision (deleted, or kept and why).
// Used by `live diff` and by the confirmation apply/destroy ask before deleting anything.

import { orderWaves } from "../order/graph.js";
import { prepareObjects } from "../apply/prepare-objects.js";
import type { Cluster } from "../cluster/types.js";
import { readClusterInventory, resourceGroupCrdInstalled } from "../inventory/cluster-inventory.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import { cliUtilsId, refKey, refOf, RefSet, type ObjRef } from "../object/ref.js";
import type { KubeObject, Package } from "../object/types.js";
import { decidePrune } from "../prune/prune-filters.js";
import { LiveCache } from "../status/live-cache.js";
import type { ChangeSet, DeleteCandidate } from "./change-set.js";

export interface DecideDeletesContext {
  inventoryId: string;
  policy: InventoryPolicy;
  /** Prune only: namespaces the package still uses. */
  namespacesInUse?: ReadonlySet<string>;
  /** Prune only: what each package object waits for (refKey -> refs), from orderWaves. */
  dependencies?: ReadonlyMap<string, ObjRef[]>;
  packageRefs?: Iterable<ObjRef>;
}

/** kpt's prune filters over the objects that exist; objects already gone are left out. */
export function decideDeletes(refs: readonly ObjRef[], live: (ref: ObjRef) => KubeObject | undefined, ctx: DecideDeletesContext): DeleteCandidate[] {
  const out: DeleteCandidate[] = [];
  const packageRefs = [...(ctx.packageRefs ?? [])];
  for (const ref of refs) {
    const obj = live(ref);
    if (!obj) continue;
    const dependent = packageRefs.find((p) => (ctx.dependencies?.get(refKey(p)) ?? []).some((d) => refKey(d) === refKey(ref)));
    out.push({
      ref,
      live: obj,
      decision: decidePrune(ref, obj, { inventoryId: ctx.inventoryId, policy: ctx.policy, strategy: "Delete", namespacesInUse: ctx.namespacesInUse }),
      ...(dependent ? { blockedBy: cliUtilsId(dependent) } : {}),
    });
  }
  return out;
}

export function namespacesInUse(inventoryNamespace: string, objects: readonly KubeObject[]): Set<string> {
  return new Set([inventoryNamespace, ...objects.map((o) => o.metadata.namespace ?? "").filter(Boolean)]);
}

export interface PlannedDeletes {
  inventory: ChangeSet["inventory"];
  deletes: DeleteCandidate[];
  /** How many package objects apply would apply (0 for destroy). */
  applies: number;
}

export async function planDeletes(pkg: Package, cluster: Cluster, o: { command: "apply" | "destroy"; inventoryPolicy: InventoryPolicy; signal?: AbortSignal }): Promise<PlannedDeletes> {
  const inventory = pkg.inventory;
  const clusterInv = (await resourceGroupCrdInstalled(cluster)) ? await readClusterInventory(cluster, inventory, o.signal) : { refs: [] as ObjRef[], object: undefined };
  const info = { name: inventory.name, namespace: inventory.namespace, exists: Boolean(clusterInv.object) };
  const prepared = o.command === "apply" ? await prepareObjects(pkg, cluster, inventory.id) : [];
  const localRefs = new RefSet(prepared.map((po) => refOf(po.object)));
  const candidates = clusterInv.refs.filter((r) => !localRefs.has(r));
  if (candidates.length === 0) return { inventory: info, deletes: [], applies: prepared.length };
  const cache = new LiveCache(cluster, { signal: o.signal });
  try {
    await cache.follow(candidates);
    const live = (ref: ObjRef) => cache.get(ref);
    if (o.command === "destroy") return { inventory: info, deletes: decideDeletes(candidates, live, { inventoryId: inventory.id, policy: o.inventoryPolicy }), applies: 0 };
    const objects = prepared.map((po) => po.object);
    const ordered = orderWaves([...prepared.map((po) => ({ ref: refOf(po.object), object: po.object })), ...candidates.map((ref) => ({ ref }))]);
    const deletes = decideDeletes(candidates, live, {
      inventoryId: inventory.id,
      policy: o.inventoryPolicy,
      namespacesInUse: namespacesInUse(inventory.namespace, objects),
      dependencies: ordered.dependencies,
      packageRefs: localRefs,
    });
    return { inventory: info, deletes, applies: prepared.length };
  } finally {
    cache.close();
  }
}
