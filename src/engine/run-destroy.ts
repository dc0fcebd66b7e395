// `live destroy` as a stream of events: gather, plan, ask, then delete everything the inventory
// lists in reverse dependency order, each wave gone before the next; remove the inventory itself
// last, and only when everything it tracked is gone.

import type { Cluster } from "../cluster/types.js";
import { unavailableApiWarnings } from "../cluster/unavailable-apis.js";
import { CancelledError } from "../errors.js";
import type { EngineEvent } from "../events.js";
import { deleteClusterInventory, writeClusterInventory } from "../inventory/cluster-inventory.js";
import { nextInventory } from "../inventory/next-inventory.js";
import { RefSet } from "../object/ref.js";
import type { Package } from "../object/types.js";
import { gatherDestroyFacts } from "../plan/gather.js";
import { planDestroy } from "../plan/plan-destroy.js";
import type { DestroyPlan } from "../plan/types.js";
import type { LiveCache } from "../status/live-cache.js";
import { EventChannel } from "../util/event-channel.js";
import { notDeleted, runDeleteWaves } from "./delete-waves.js";
import { resolveOptions, type EngineOptions, type ResolvedOptions } from "./options.js";
import { Recorder } from "./recorder.js";

export function runDestroy(pkg: Package, cluster: Cluster, options: EngineOptions = {}): AsyncIterable<EngineEvent> {
  const channel = new EventChannel<EngineEvent>();
  const o = resolveOptions(options);
  (async () => {
    const { facts, cache } = await gatherDestroyFacts(pkg, cluster, { pollPeriodMs: o.pollPeriodMs, signal: o.signal });
    try {
      const plan = planDestroy(facts, { inventoryPolicy: o.inventoryPolicy });
      if (o.confirm && o.dryRun === "none") await o.confirm(plan);
      const recorder = new Recorder(channel);
      const info = plan.inventory.info;
      const objects = plan.deleteWaves.flat().map((ref) => ({ ref, action: "Delete" as const }));
      recorder.emit({ type: "init", command: "destroy", dryRun: o.dryRun, inventory: { name: info.name, namespace: info.namespace, id: info.id }, objects, plan });
      for (const message of await unavailableApiWarnings(cluster, o.signal)) recorder.emit({ type: "warning", message });
      await executeDestroy(plan, cluster, cache, recorder, o);
    } finally {
      cache.close();
    }
  })().then(
    () => channel.close(),
    (err) => channel.fail(err),
  );
  return channel;
}

async function executeDestroy(plan: DestroyPlan, cluster: Cluster, cache: LiveCache, recorder: Recorder, o: ResolvedOptions): Promise<void> {
  const emit = recorder.emit;
  const dry = o.dryRun !== "none";
  const { info, stored, previous } = plan.inventory;
  const { abandoned } = await runDeleteWaves(
    {
      cluster,
      cache,
      recorder,
      action: "delete",
      dryRun: o.dryRun,
      propagationPolicy: o.prunePropagationPolicy,
      timeoutMs: o.pruneTimeoutMs,
      concurrency: o.concurrency,
      signal: o.signal,
      statusOptions: o.statusOptions,
      firstWave: 0,
    },
    plan.deletes,
    plan.deleteWaves,
  );
  emit({ type: "group", action: "Inventory", status: "Started" });
  if (!dry && stored) {
    const left = nextInventory({ previous, applied: [], notApplied: [], notDeleted: notDeleted(plan.deletes, recorder, abandoned), abandoned });
    // Neither is cancellable, and both are guarded: an apply of the package meanwhile keeps its objects listed.
    if (left.length === 0) await deleteClusterInventory(cluster, info, { basedOn: stored });
    // Nothing was deleted (a user who may not delete, say): the stored list is already right,
    // and a write it may not make either must not hide the real failures behind its own.
    else if (!new RefSet(left).equals(previous)) await writeClusterInventory(cluster, info, left, { basedOn: stored, onConflict: "merge" });
  }
  emit({ type: "group", action: "Inventory", status: "Finished" });
  if (o.signal?.aborted) throw new CancelledError("interrupted: the inventory still lists every object that was not deleted; run destroy again to finish");
  emit({ type: "summary", stats: recorder.stats });
}
