// The IO shell of `live diff`: gathers what computeChangeSet needs with the engine's own pieces,
// so the preview is what apply would do. Each package object goes through applyObject with a
// server-side dry run (client-side apply's three-way patch, or server-side apply); the inventory
// objects no longer in the package go through kpt's prune filters. Nothing is written.

import { applyObject, type ApplyObjectContext } from "../apply/apply-object.js";
import { orderWaves } from "../order/graph.js";
import { graphIssuesError } from "../order/graph-issues.js";
import { forEachLimited } from "../util/pool.js";
import { prepareObjects } from "../apply/prepare-objects.js";
import { schemaLookup } from "../apply/schema-lookup.js";
import type { Cluster } from "../cluster/types.js";
import { readClusterInventory, resourceGroupCrdInstalled } from "../inventory/cluster-inventory.js";
import { ownershipOf, policyAllows, policyRefusal, type InventoryPolicy } from "../inventory/policy.js";
import { refOf, RefSet } from "../object/ref.js";
import type { Package } from "../object/types.js";
import { LiveCache } from "../status/live-cache.js";
import { computeChangeSet, previewBlockedByPackage, type ApplyOutcome, type ChangeSet, } from "./change-set.js";
import { decideDeletes, namespacesInUse } from "./plan-deletes.js";

export interface DiffOptions {
  serverSide: boolean;
  fieldManager: string;
  forceConflicts: boolean;
  inventoryPolicy: InventoryPolicy;
  concurrency: number;
  signal?: AbortSignal;
}

export async function computeDiff(pkg: Package, cluster: Cluster, o: DiffOptions): Promise<ChangeSet> {
  const inventory = pkg.inventory;
  const prepared = await prepareObjects(pkg, cluster, inventory.id);
  const localRefs = new RefSet(prepared.map((po) => refOf(po.object)));
  const clusterInv = (await resourceGroupCrdInstalled(cluster)) ? await readClusterInventory(cluster, inventory, o.signal) : { refs: [], object: undefined };
  const pruneCandidates = clusterInv.refs.filter((r) => !localRefs.has(r));

  const cache = new LiveCache(cluster, { signal: o.signal });
  try {
    await cache.follow([...localRefs, ...pruneCandidates]);
    const pruneRefs = pruneCandidates.filter((r) => cache.get(r));
    const ordered = orderWaves([...prepared.map((po) => ({ ref: refOf(po.object), object: po.object })), ...pruneRefs.map((ref) => ({ ref }))]);
    if (ordered.issues.length) throw graphIssuesError(ordered.issues, prepared);

    // The would-be object is computed even where the inventory policy refuses the apply (the
    // dry run as if adopting); the refusal is reported next to it.
    const ctx: ApplyObjectContext = {
      cluster,
      cache,
      inventoryId: inventory.id,
      policy: "force-adopt",
      serverSide: o.serverSide,
      fieldManager: o.fieldManager,
      forceConflicts: o.forceConflicts,
      dryRun: "server",
      schemaFor: schemaLookup(cluster),
    };
    const packageObjects = prepared.map((po) => po.object);
    const applies: ApplyOutcome[] = [];
    await forEachLimited(
      prepared,
      o.concurrency,
      async (po) => {
        const ref = refOf(po.object);
        const live = cache.get(ref);
        const ownership = live && ownershipOf(live, inventory.id);
        const refusal = live && ownership && !policyAllows(ownership, o.inventoryPolicy) ? policyRefusal(live, ownership, o.inventoryPolicy, "Apply") : undefined;
        const r = await applyObject(ctx, po.object, po.source);
        let result: ApplyOutcome["result"];
        if (r.status === "Successful") result = { status: "Successful", ...(r.object ? { object: r.object } : {}) };
        else {
          const error = r.error ?? "the server refused the dry run";
          const blocked = previewBlockedByPackage(error, ref, packageObjects);
          result = blocked ? { status: "Successful", object: po.object, note: blocked } : { status: "Failed", error };
        }
        applies.push({ ref, ...(live ? { live } : {}), result, ...(refusal ? { refusal } : {}) });
      },
      o.signal,
    );

    const deletes = decideDeletes(pruneRefs, (ref) => cache.get(ref), {
      inventoryId: inventory.id,
      policy: o.inventoryPolicy,
      namespacesInUse: namespacesInUse(inventory.namespace, packageObjects),
      dependencies: ordered.dependencies,
      packageRefs: localRefs,
    });
    return computeChangeSet({ inventory: { name: inventory.name, namespace: inventory.namespace, exists: Boolean(clusterInv.object) }, applies, deletes });
  } finally {
    cache.close();
  }
}
