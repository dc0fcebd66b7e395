// `live destroy` as a stream of events: gather, plan, ask, then delete everything the inventory
// lists in reverse dependency order, each wave gone before the next; remove the inventory itself
// last, and only when everything it tracked is gone.

import type { Cluster } from "../cluster/types.js";
import { unavailableApiWarnings } from "../cluster/unavailable-apis.js";
import { CancelledError } from "../model/errors.js";
import type { EngineEvent } from "../model/events.js";
import { deleteClusterInventory, writeClusterInventory } from "../inventory/cluster-inventory.js";
import { nextInventory } from "../inventory/next-inventory.js";
import { RefSet } from "../model/ref.js";
import type { Package } from "../model/kube-object.js";
import { gatherDestroyFacts } from "../plan/gather.js";
import { planDestroy } from "../plan/plan-destroy.js";
import type { DestroyPlan } from "../model/plan.js";
import type { LiveCache } from "../status/live-cache.js";
import { notDeleted, runDeleteWaves } from "./delete-waves.js";
import { resolveOptions, type EngineOptions, type ResolvedOptions } from "./options.js";
import type { Recorder } from "./recorder.js";
import { runEvents } from "./run-events.js";

export function runDestroy(pkg: Package, cluster: Cluster, options: EngineOptions = {}): AsyncIterable<EngineEvent> {
  const o = resolveOptions(options);
  return runEvents(cluster, o, async (recorder) => {
    const { facts, cache } = await gatherDestroyFacts(pkg, cluster, o);
    try {
      const plan = planDestroy(facts, o);
      if (o.confirm && o.dryRun === "none") await o.confirm(plan);
      const info = plan.inventory.info;
      const objects = plan.deleteWaves.flat().map((ref) => ({ ref, action: "Delete" as const }));
      recorder.emit({ type: "init", command: "destroy", dryRun: o.dryRun, inventory: { name: info.name, namespace: info.namespace, id: info.id }, objects, plan });
      for (const message of await unavailableApiWarnings(cluster, o.signal)) recorder.emit({ type: "warning", message });
      await executeDestroy(plan, cluster, cache, recorder, o);
    } finally {
      cache.close();
    }
  });
}

async function executeDestroy(plan: DestroyPlan, cluster: Cluster, cache: LiveCache, recorder: Recorder, o: ResolvedOptions): Promise<void> {
  const emit = recorder.emit;
  const dry = o.dryRun !== "none";
  const { info, stored, previous } = plan.inventory;
  const { abandoned } = await runDeleteWaves({ cluster, cache, recorder, action: "delete", o, firstWave: 0 }, plan.deletes, plan.deleteWaves);

  emit({ type: "group", action: "Inventory", status: "Started" });
  if (!dry && stored) {
    const left = nextInventory({ previous, applied: [], notApplied: [], notDeleted: notDeleted(plan.deletes, recorder.tally, abandoned, o.wait), abandoned });
    // Neither is cancellable, and both are guarded: an apply of the package meanwhile keeps its objects listed.
    if (left.length === 0) await deleteClusterInventory(cluster, info, { basedOn: stored });
    // Nothing was deleted (a user who may not delete, say): the stored list is already right,
    // and a write it may not make either must not hide the real failures behind its own.
    else if (!new RefSet(left).equals(previous)) await writeClusterInventory(cluster, info, left, { basedOn: stored, onConflict: "merge" });
  }
  emit({ type: "group", action: "Inventory", status: "Finished" });
  if (o.signal?.aborted) throw new CancelledError("interrupted: the inventory still lists every object that was not deleted; run destroy again to finish");
}
