// `live destroy` as a stream of events: delete everything the cluster inventory lists, in the
// reverse dependency order, each wave gone before the next; remove the inventory itself last,
// and only when everything it tracked is gone.

import type { Cluster } from "../cluster/types.js";
import { CancelledError, PackageError } from "../errors.js";
import type { EngineEvent } from "../events.js";
import { deleteClusterInventory, readClusterInventory, resourceGroupCrdInstalled, writeClusterInventory } from "../inventory/cluster-inventory.js";
import { nextInventory } from "../inventory/next-inventory.js";
import { formatRefNs, refKey, RefSet, type ObjRef } from "../object/ref.js";
import type { Package } from "../object/types.js";
import { LiveCache } from "../status/live-cache.js";
import { runDeleteWaves } from "./delete-waves.js";
import { EventChannel } from "../util/event-channel.js";
import { orderWaves, reverseWaves } from "../order/graph.js";
import { decidePrune } from "../prune/prune-filters.js";
import { resolveOptions, type EngineOptions, type ResolvedOptions } from "./options.js";
import { Recorder } from "./recorder.js";

export function runDestroy(pkg: Package, cluster: Cluster, options: EngineOptions = {}): AsyncIterable<EngineEvent> {
  const channel = new EventChannel<EngineEvent>();
  executeDestroy(pkg, cluster, resolveOptions(options), channel).then(
    () => channel.close(),
    (err) => channel.fail(err),
  );
  return channel;
}

async function executeDestroy(pkg: Package, cluster: Cluster, o: ResolvedOptions, channel: EventChannel<EngineEvent>): Promise<void> {
  const recorder = new Recorder(channel);
  const emit = recorder.emit;
  const inventory = pkg.inventory;
  const dry = o.dryRun !== "none";
  const clusterInv = (await resourceGroupCrdInstalled(cluster)) ? await readClusterInventory(cluster, inventory, o.signal) : { refs: [] as ObjRef[], object: undefined };
  const cache = new LiveCache(cluster, { pollPeriodMs: o.pollPeriodMs, signal: o.signal });
  try {
    await cache.follow(clusterInv.refs);
    // Interrupted before the first delete: what the cache knows may be partial, so stop here.
    if (o.signal?.aborted) throw new CancelledError("interrupted before anything was deleted");
    const existing = clusterInv.refs.filter((r) => cache.get(r) || cache.readError(r));
    const ordered = orderWaves(existing.map((ref) => ({ ref, object: cache.get(ref) })));
    // Stale depends-on annotations may name objects that are long gone; they do not order anything here.
    const issues = ordered.issues.filter((i) => i.kind !== "external-dependency");
    if (issues.length) throw new PackageError(issues.map((i) => ({ message: i.message, object: i.objects.map(formatRefNs).join(", ") })));
    const waves = reverseWaves(ordered.waves);
    const dependents = new Map<string, ObjRef[]>();
    for (const [from, tos] of ordered.dependencies) {
      const fromRef = existing.find((r) => refKey(r) === from);
      if (!fromRef) continue;
      for (const to of tos) {
        const k = refKey(to);
        if (!dependents.has(k)) dependents.set(k, []);
        dependents.get(k)!.push(fromRef);
      }
    }
    if (o.confirm && !dry) {
      await o.confirm({
        command: "destroy",
        objects: waves.flat().map((ref) => ({ ref, action: "Delete" as const })),
        deletes: waves.flat().filter((ref) => cache.get(ref)).map((ref) => {
          const live = cache.get(ref)!;
          return { ref, live, decision: decidePrune(ref, live, { inventoryId: inventory.id, policy: o.inventoryPolicy, strategy: "Delete" }) };
        }),
      });
    }
    emit({
      type: "init",
      command: "destroy",
      dryRun: o.dryRun,
      inventory: { name: inventory.name, namespace: inventory.namespace, id: inventory.id },
      objects: waves.flat().map((ref) => ({ ref, action: "Delete" as const })),
    });
    const { abandoned } = await runDeleteWaves(
      {
        cluster,
        cache,
        recorder,
        action: "delete",
        inventoryId: inventory.id,
        policy: o.inventoryPolicy,
        dryRun: o.dryRun,
        propagationPolicy: o.prunePropagationPolicy,
        timeoutMs: o.pruneTimeoutMs,
        concurrency: o.concurrency,
        signal: o.signal,
        dependentsOf: (ref) => dependents.get(refKey(ref)) ?? [],
        firstWave: 0,
      },
      waves,
    );
    emit({ type: "group", action: "Inventory", status: "Started" });
    if (!dry && clusterInv.object) {
      const notDeleted = existing.filter((r) => recorder.actuated(r) !== "Successful" || (recorder.reconciled(r) !== undefined && recorder.reconciled(r) !== "Successful"));
      // A delete whose wait was cut short (interrupted) may still be in progress: it blocks too.
      const waitCut = (r: ObjRef) => recorder.actuated(r) === "Successful" && recorder.reconciled(r) === "Skipped";
      const blocking = existing.filter((r) => recorder.actuated(r) === "Failed" || recorder.reconciled(r) === "Failed" || recorder.reconciled(r) === "Timeout" || recorder.actuated(r) === undefined || waitCut(r));
      // Neither is cancellable, and both are guarded: an apply of the package meanwhile keeps its objects listed.
      if (blocking.length === 0) await deleteClusterInventory(cluster, inventory, { basedOn: clusterInv.object });
      else {
        const left = nextInventory({ previous: clusterInv.refs, applied: [], notApplied: [], notDeleted, abandoned });
        // Nothing was deleted (a user who may not delete, say): the stored list is already right,
        // and a write it may not make either must not hide the real failures behind its own.
        if (!new RefSet(left).equals(clusterInv.refs)) {
          await writeClusterInventory(cluster, inventory, left, { basedOn: clusterInv.object, onConflict: "merge" });
        }
      }
    }
    emit({ type: "group", action: "Inventory", status: "Finished" });
    if (o.signal?.aborted) throw new CancelledError("interrupted: the inventory still lists every object that was not deleted; run destroy again to finish");
    emit({ type: "summary", stats: recorder.stats });
  } finally {
    cache.close();
  }
}
