// Performs an apply plan as a stream of events: install the ResourceGroup CRD if the plan says
// so, record every object in the inventory before touching any, apply wave by wave (in parallel
// within a wave) waiting for each wave to reconcile, prune in reverse dependency order, and store
// the final inventory. A dry run walks the same plan without writing.

import type { Cluster } from "../cluster/types.js";
import { CancelledError } from "../model/errors.js";
import { installResourceGroupCrd, inventoryUnchangedSince, writeClusterInventory } from "../inventory/cluster-inventory.js";
import { nextInventory } from "../inventory/next-inventory.js";
import { refKey, RefSet, type ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { planChangesNothing, type ApplyPlan, type PlannedApply } from "../model/plan.js";
import { applyBlockedBy } from "../prune/dependency-gate.js";
import type { LiveCache } from "../status/live-cache.js";
import { WaitExplainer } from "../status/wait-explainer.js";
import { waitFor, type WaitTarget } from "../status/wait-for.js";
import { forEachLimited } from "../util/pool.js";
import { applyObject, type ApplyObjectContext } from "./apply-object.js";
import { servedKinds, waitUntilServed } from "./crd-discovery.js";
import { notDeleted, runDeleteWaves } from "./delete-waves.js";
import { changedInventory, createInventoryNamespace, existing, fittingStatuses, statusEntries } from "./inventory-steps.js";
import type { ResolvedOptions } from "./options.js";
import type { Recorder } from "./recorder.js";
import { localPreviewNote } from "../apply/local-preview.js";
import { schemaLookup } from "../apply/schema-lookup.js";
import { webhookWaits } from "../apply/webhook-retry.js";

export async function executeApply(plan: ApplyPlan, cluster: Cluster, cache: LiveCache, recorder: Recorder, o: ResolvedOptions): Promise<void> {
  const emit = recorder.emit;
  const dry = o.dryRun !== "none";
  const info = plan.inventory.info;
  const localRefs = new RefSet(plan.applies.map((a) => a.ref));
  const byKey = new Map(plan.applies.map((a) => [refKey(a.ref), a]));

  if (plan.installCrd && !dry) await installResourceGroupCrd(cluster, { signal: o.signal });

  // Record every object before applying any, so an interrupted run orphans nothing.
  emit({ type: "group", action: "Inventory", status: "Started" });
  let createdEarly: ObjRef | undefined;
  // What the cluster holds now; the final write compares against it.
  let stored = plan.inventory.stored;
  if (!dry && o.signal?.aborted) throw new CancelledError("interrupted before anything was changed");
  if (!dry && plan.initialInventory) {
    // Not cancellable: once the namespace is created, the inventory that records it must be written.
    if (plan.inventoryNamespace) createdEarly = await createInventoryNamespace(cluster, plan.inventoryNamespace, o);
    // Guarded by what this run read: a second apply of the package started at the same time stops here.
    stored = await writeClusterInventory(cluster, info, plan.initialInventory, { basedOn: stored ?? null, onConflict: "fail" });
  }
  emit({ type: "group", action: "Inventory", status: "Finished" });

  const ctx: ApplyObjectContext = {
    cluster,
    cache,
    inventoryId: info.id,
    inventoryPolicy: o.inventoryPolicy,
    serverSide: o.serverSide,
    fieldManager: o.fieldManager,
    forceConflicts: o.forceConflicts,
    dryRun: o.dryRun,
    schemaFor: schemaLookup(cluster),
    packageObjects: plan.applies.map((a) => a.object),
  };
  const explainer = new WaitExplainer(cluster, { signal: o.signal });
  // Failed writes whose answer was lost: the object may exist all the same.
  const mayExist: ObjRef[] = [];
  let waveIndex = 0;
  for (const wave of plan.applyWaves) {
    if (o.signal?.aborted) break;
    emit({ type: "group", action: "Apply", status: "Started", wave: waveIndex });
    const targets: WaitTarget[] = [];
    const waveCtx: ApplyObjectContext = { ...ctx, webhookRetry: webhookWaits({ wave: waveIndex, total: wave.length, timeoutMs: o.reconcileTimeoutMs, emit, signal: o.signal }) };
    await forEachLimited(
      wave,
      o.concurrency,
      async (ref) => {
        const p = byKey.get(refKey(ref))!;
        const blocked = p.skip ?? applyBlockedBy(p.dependencies, recorder.tally, { dryRun: dry, noWait: !o.wait });
        if (blocked) return emit({ type: "apply", ref, status: "Skipped", error: blocked });
        const { mayExist: lost, local, ...r } = await applyObject(waveCtx, p);
        if (r.status === "Failed" && lost) mayExist.push(ref);
        if (r.after && !dry) cache.observe(r.after);
        // The inventory step created the inventory's namespace moments ago: that was this apply.
        if (createdEarly && r.operation === "unchanged" && refKey(createdEarly) === refKey(ref)) r.operation = "created";
        if (r.status === "Successful") targets.push({ ref, minGeneration: r.after?.metadata.generation });
        const localLine = local ? { local: localPreviewNote(`the server refused dry-run writes: ${local}`, o.serverSide) } : {};
        const source = r.status === "Failed" && p.source ? { source: p.source } : {};
        emit({ type: "apply", ref, ...r, ...source, ...localLine });
      },
      o.signal,
    );
    emit({ type: "group", action: "Apply", status: "Finished", wave: waveIndex });
    if (!dry && !o.signal?.aborted && !o.wait) {
      // Not a reconcile wait: a later wave's custom resources cannot be written before the API serves their kind.
      await afterCrdWave(wave, byKey, (r) => recorder.tally.actuated(r) === "Successful", cluster, cache, o.signal);
    } else if (!dry && !o.signal?.aborted) {
      emit({ type: "group", action: "Wait", status: "Started", wave: waveIndex });
      for (const ref of wave) if (recorder.tally.actuated(ref) !== "Successful") emit({ type: "wait", ref, status: "Skipped" });
      await waitFor(cache, targets, { desired: "Current", wave: waveIndex, timeoutMs: o.reconcileTimeoutMs, signal: o.signal, emit, explainer, statusOptions: o.statusOptions });
      emit({ type: "group", action: "Wait", status: "Finished", wave: waveIndex });
      await afterCrdWave(wave, byKey, (r) => recorder.tally.reconciled(r) === "Successful", cluster, cache, o.signal);
    }
    waveIndex++;
  }

  // Prune: what the inventory lists but the package no longer has, dependents first.
  const { abandoned } = o.signal?.aborted
    ? { abandoned: new RefSet() }
    : await runDeleteWaves({ cluster, cache, recorder, action: "prune", o, firstWave: waveIndex }, plan.deletes, plan.deleteWaves);

  // The final inventory: everything that may still exist.
  emit({ type: "group", action: "Inventory", status: "Started" });
  if (!dry) {
    const applied = [...localRefs].filter((r) => recorder.tally.actuated(r) === "Successful");
    applied.push(...(await existing(cluster, mayExist)));
    const notApplied = [...localRefs].filter((r) => recorder.tally.actuated(r) !== "Successful");
    const final = nextInventory({ previous: plan.inventory.previous, applied, notApplied, notDeleted: notDeleted(plan.deletes, recorder.tally, abandoned, o.wait), abandoned });
    // A no-op writes nothing when the stored list is already right: its statuses stay as the last
    // run that changed something left them (kapp, too, records no change then). It still drops
    // entries for objects found gone (deleted by hand, or pruned by a run racing this package's).
    if (!(planChangesNothing(plan) && wroteNothing(recorder) && !changedInventory(stored, final, undefined))) await storeFinal(final);
  }
  emit({ type: "group", action: "Inventory", status: "Finished" });
  if (o.signal?.aborted) throw new CancelledError("interrupted: the inventory lists every object that may exist; run apply again to finish");

  async function storeFinal(final: ObjRef[]): Promise<void> {
    const pruned = new RefSet(plan.deletes.map((d) => d.ref));
    const statuses = fittingStatuses(info, final, o.statusPolicy === "all" ? statusEntries(final, pruned, recorder.tally) : undefined, stored, emit);
    // Another run of the package may have written it meanwhile: then theirs and ours are merged.
    if (changedInventory(stored, final, statuses) || !(await inventoryUnchangedSince(cluster, info, stored))) {
      await writeClusterInventory(cluster, info, final, { statuses, basedOn: stored ?? null, onConflict: "merge", onWarning: (message) => emit({ type: "warning", message }) });
    }
  }
}

/** No write was made or attempted: every apply found its object unchanged and nothing was pruned. */
function wroteNothing(recorder: Recorder): boolean {
  const { apply, prune } = recorder.tally.stats;
  return apply.created + apply.configured + apply.failed + prune.successful + prune.failed === 0;
}

/** Kinds defined by a wave's CRDs become usable for the next waves, once discovery lists them. */
async function afterCrdWave(wave: ObjRef[], byKey: Map<string, PlannedApply>, ready: (r: ObjRef) => boolean, cluster: Cluster, cache: LiveCache, signal?: AbortSignal): Promise<void> {
  const established = wave.filter((r) => r.kind === "CustomResourceDefinition" && ready(r));
  if (!wave.some((r) => r.kind === "CustomResourceDefinition")) return;
  const crds: KubeObject[] = established.map((r) => byKey.get(refKey(r))!.object);
  await waitUntilServed(cluster, crds.flatMap(servedKinds), { signal });
  await cache.refreshUnserved();
}
