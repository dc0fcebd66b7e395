// `live apply` as a stream of events: read the inventory, record every object before touching
// any, apply wave by wave (in parallel within a wave) waiting for each wave to reconcile, prune
// what left the package, and store the final inventory. Dry-run walks the same path without
// writing, so it shows exactly what apply would do.

import { cliUtilsId, refKey, refOf, RefSet, type ObjRef } from "../object/ref.js";
import type { Cluster } from "../cluster/types.js";
import { CancelledError } from "../errors.js";
import type { EngineEvent } from "../events.js";
import { installResourceGroupCrd, inventoryUnchangedSince, readClusterInventory, resourceGroupCrdInstalled, writeClusterInventory, crdMissingError } from "../inventory/cluster-inventory.js";
import { nextInventory } from "../inventory/next-inventory.js";
import type { ResourceStatusEntry } from "../inventory/resource-group.js";
import type { KubeObject, Package, SourcePos } from "../object/types.js";
import { LiveCache } from "../status/live-cache.js";
import { WaitExplainer } from "../status/wait-explainer.js";
import { applyObject, type ApplyObjectContext } from "./apply-object.js";
import { withLastApplied } from "./csa/last-applied.js";
import { servedKinds, waitUntilServed } from "./crd-discovery.js";
import { runDeleteWaves } from "./delete-waves.js";
import { EventChannel } from "../util/event-channel.js";
import { orderWaves, reverseWaves } from "../order/graph.js";
import { graphIssuesError } from "../order/graph-issues.js";
import { decidePrune } from "../prune/prune-filters.js";
import { resolveOptions, type EngineOptions, type ResolvedOptions } from "./options.js";
import { forEachLimited } from "../util/pool.js";
import { prepareObjects } from "./prepare-objects.js";
import { Recorder } from "./recorder.js";
import { schemaLookup } from "./schema-lookup.js";
import { waitFor, type WaitTarget } from "../status/wait-for.js";

/** Runs in the background; the returned stream ends with a summary, or throws on a global failure. */
export function runApply(pkg: Package, cluster: Cluster, options: EngineOptions = {}): AsyncIterable<EngineEvent> {
  const channel = new EventChannel<EngineEvent>();
  executeApply(pkg, cluster, resolveOptions(options), channel).then(
    () => channel.close(),
    (err) => channel.fail(err),
  );
  return channel;
}

async function executeApply(pkg: Package, cluster: Cluster, o: ResolvedOptions, channel: EventChannel<EngineEvent>): Promise<void> {
  const recorder = new Recorder(channel);
  const emit = recorder.emit;
  const dry = o.dryRun !== "none";
  const inventory = pkg.inventory;

  // Everything that can be wrong with the input is found before the first write.
  const prepared = await prepareObjects(pkg, cluster, inventory.id);
  const desired = new Map<string, { object: KubeObject; source: SourcePos }>();
  for (const po of prepared) desired.set(refKey(refOf(po.object)), { object: po.object, source: po.source });
  const localRefs = new RefSet(prepared.map((po) => refOf(po.object)));
  // Client-side apply patches built-in kinds with their OpenAPI merge keys: start the lookups now,
  // so the documents arrive while the inventory and live objects are read. Failures surface later.
  const schemaFor = schemaLookup(cluster);
  if (!o.serverSide) for (const po of prepared) schemaFor(po.object).catch(() => undefined);

  let crdPresent = await resourceGroupCrdInstalled(cluster);
  if (!crdPresent && !dry) {
    if (!o.installResourceGroup) throw crdMissingError();
    await installResourceGroupCrd(cluster, { signal: o.signal });
    crdPresent = true;
  }
  const clusterInv = crdPresent ? await readClusterInventory(cluster, inventory, o.signal) : { refs: [] };
  const previous = new RefSet(clusterInv.refs);
  const pruneCandidates = clusterInv.refs.filter((r) => !localRefs.has(r));

  const cache = new LiveCache(cluster, { pollPeriodMs: o.pollPeriodMs, signal: o.signal });
  try {
    await cache.follow([...localRefs, ...pruneCandidates]);
    // Interrupted before the first write: what the cache knows may be partial, so stop here.
    if (o.signal?.aborted) throw new CancelledError("interrupted before anything was changed");
    // Prune candidates that are gone (or whose kind is no longer served) are simply forgotten;
    // ones we cannot read stay, so the prune reports them and the inventory keeps them.
    const pruneRefs = pruneCandidates.filter((r) => cache.get(r) || cache.readError(r));

    const ordered = orderWaves([...prepared.map((po) => ({ ref: refOf(po.object), object: po.object })), ...pruneRefs.map((ref) => ({ ref }))]);
    if (ordered.issues.length) throw graphIssuesError(ordered.issues, prepared);
    const applyWaves = ordered.waves.map((w) => w.filter((r) => localRefs.has(r))).filter((w) => w.length);
    const pruneSet = new RefSet(pruneRefs);
    const pruneWaves = reverseWaves(ordered.waves.map((w) => w.filter((r) => pruneSet.has(r))).filter((w) => w.length));
    const dependencies = ordered.dependencies;

    const namespacesInUse = new Set<string>([inventory.namespace, ...prepared.map((po) => po.object.metadata.namespace ?? "").filter(Boolean)]);
    const dependents = invert(dependencies);
    const dependentScheduled = (ref: ObjRef) => (dependents.get(refKey(ref)) ?? []).find((d) => localRefs.has(d));
    const planned = [...applyWaves.flat().map((ref) => ({ ref, action: "Apply" as const })), ...pruneWaves.flat().map((ref) => ({ ref, action: "Prune" as const }))];
    if (o.confirm && !dry) {
      await o.confirm({
        command: "apply",
        objects: planned,
        deletes: pruneRefs.filter((ref) => cache.get(ref)).map((ref) => {
          const live = cache.get(ref)!;
          const decision = decidePrune(ref, live, { inventoryId: inventory.id, policy: o.inventoryPolicy, strategy: "Delete", namespacesInUse });
          const blocking = decision.action === "delete" ? dependentScheduled(ref) : undefined;
          return { ref, live, decision, ...(blocking ? { blockedBy: cliUtilsId(blocking) } : {}) };
        }),
      });
    }

    emit({
      type: "init",
      command: "apply",
      dryRun: o.dryRun,
      inventory: { name: inventory.name, namespace: inventory.namespace, id: inventory.id },
      objects: planned,
    });

    // Record every object before applying any, so an interrupted run orphans nothing.
    emit({ type: "group", action: "Inventory", status: "Started" });
    const union = previous.union(localRefs);
    let createdEarly: ObjRef | undefined;
    // What the cluster holds now; the final write compares against it.
    let stored = clusterInv.object;
    if (!dry && o.signal?.aborted) throw new CancelledError("interrupted before anything was changed");
    if (!dry && (!clusterInv.object || union.size !== previous.size)) {
      // Not cancellable: once the namespace is created, the inventory that records it must be written.
      createdEarly = await ensureInventoryNamespace(cluster, pkg, desired, { ...o, signal: undefined });
      // Guarded by what this run read: a second apply of the package started at the same time stops here.
      stored = await writeClusterInventory(cluster, inventory, union.toArray(), { basedOn: clusterInv.object ?? null, onConflict: "fail" });
    }
    emit({ type: "group", action: "Inventory", status: "Finished" });

    const ctx: ApplyObjectContext = {
      cluster,
      cache,
      inventoryId: inventory.id,
      policy: o.inventoryPolicy,
      serverSide: o.serverSide,
      fieldManager: o.fieldManager,
      forceConflicts: o.forceConflicts,
      dryRun: o.dryRun,
      schemaFor,
    };

    const blockedBy = (ref: ObjRef): string | undefined => {
      for (const dep of dependencies.get(refKey(ref)) ?? []) {
        // As cli-utils' dependency filter: an object whose dependency is being pruned is not applied.
        if (pruneSet.has(dep)) return `dependency scheduled for delete: ${cliUtilsId(dep)}`;
        if (!localRefs.has(dep)) continue;
        const a = recorder.actuated(dep);
        if (a !== "Successful") return `dependency apply actuation ${(a ?? "skipped").toLowerCase()}: ${cliUtilsId(dep)}`;
        const r = recorder.reconciled(dep);
        if (!dry && r !== "Successful") return `dependency apply reconcile ${(r ?? "skipped").toLowerCase()}: ${cliUtilsId(dep)}`;
      }
      return undefined;
    };

    const explainer = new WaitExplainer(cluster, { signal: o.signal });
    // Failed writes whose answer was lost: the object may exist all the same.
    const mayExist: ObjRef[] = [];
    let waveIndex = 0;
    for (const wave of applyWaves) {
      if (o.signal?.aborted) break;
      emit({ type: "group", action: "Apply", status: "Started", wave: waveIndex });
      const targets: WaitTarget[] = [];
      await forEachLimited(
        wave,
        o.concurrency,
        async (ref) => {
          const d = desired.get(refKey(ref))!;
          const blocked = blockedBy(ref);
          if (blocked) return emit({ type: "apply", ref, status: "Skipped", error: blocked });
          const r = await applyObject(ctx, d.object, d.source);
          if (r.status === "Failed" && r.mayExist) mayExist.push(ref);
          if (r.object && !dry) cache.observe(r.object);
          // The inventory step created the inventory's namespace moments ago: that was this apply.
          if (createdEarly && r.operation === "unchanged" && refKey(createdEarly) === refKey(ref)) r.operation = "created";
          if (r.status === "Successful") targets.push({ ref, minGeneration: r.object?.metadata.generation });
          emit({ type: "apply", ref, status: r.status, ...(r.operation ? { operation: r.operation } : {}), ...(r.error ? { error: r.error } : {}) });
        },
        o.signal,
      );
      emit({ type: "group", action: "Apply", status: "Finished", wave: waveIndex });
      if (!dry && !o.signal?.aborted) {
        emit({ type: "group", action: "Wait", status: "Started", wave: waveIndex });
        for (const ref of wave) if (recorder.actuated(ref) !== "Successful") emit({ type: "wait", ref, status: "Skipped" });
        await waitFor(cache, targets, { desired: "Current", wave: waveIndex, timeoutMs: o.reconcileTimeoutMs, signal: o.signal, emit, explainer });
        emit({ type: "group", action: "Wait", status: "Finished", wave: waveIndex });
        if (wave.some((r) => r.kind === "CustomResourceDefinition")) {
          // Kinds defined by this wave become usable for the next ones, once discovery lists them.
          const established = wave.filter((r) => r.kind === "CustomResourceDefinition" && recorder.reconciled(r) === "Successful");
          await waitUntilServed(cluster, established.flatMap((r) => servedKinds(desired.get(refKey(r))!.object)), { signal: o.signal });
          await cache.refreshUnserved();
        }
      }
      waveIndex++;
    }

    // Prune: what the inventory lists but the package no longer has, dependents first.
    const { abandoned } = o.signal?.aborted
      ? { abandoned: new RefSet() }
      : await runDeleteWaves(
          {
            cluster,
            cache,
            recorder,
            action: "prune",
            inventoryId: inventory.id,
            policy: o.inventoryPolicy,
            dryRun: o.dryRun,
            propagationPolicy: o.prunePropagationPolicy,
            timeoutMs: o.pruneTimeoutMs,
            concurrency: o.concurrency,
            signal: o.signal,
            namespacesInUse,
            dependentsScheduledForApply: dependentScheduled,
            firstWave: waveIndex,
          },
          pruneWaves,
        );

    // The final inventory: everything that may still exist.
    emit({ type: "group", action: "Inventory", status: "Started" });
    if (!dry) {
      const applied = [...localRefs].filter((r) => recorder.actuated(r) === "Successful");
      applied.push(...(await existing(cluster, mayExist)));
      const notApplied = [...localRefs].filter((r) => recorder.actuated(r) !== "Successful");
      const notDeleted = pruneRefs.filter((r) => recorder.actuated(r) !== "Successful" || recorder.reconciled(r) !== "Successful");
      const final = nextInventory({ previous, applied, notApplied, notDeleted, abandoned });
      const statuses = o.statusPolicy === "all" ? statusEntries(final, pruneSet, recorder) : undefined;
      // Another run of the package may have written it meanwhile: then theirs and ours are merged.
      if (inventoryChanged(stored, final, statuses) || !(await inventoryUnchangedSince(cluster, inventory, stored))) {
        await writeClusterInventory(cluster, inventory, final, { statuses, basedOn: stored ?? null, onConflict: "merge" });
      }
    }
    emit({ type: "group", action: "Inventory", status: "Finished" });
    if (o.signal?.aborted) throw new CancelledError("interrupted: the inventory lists every object that may exist; run apply again to finish");
    emit({ type: "summary", stats: recorder.stats });
  } finally {
    cache.close();
  }
}

function invert(deps: Map<string, ObjRef[]>): Map<string, ObjRef[]> {
  const out = new Map<string, ObjRef[]>();
  for (const [from, tos] of deps) {
    const [group, kind, namespace, ...rest] = from.split("/");
    const fromRef: ObjRef = { group: group!, kind: kind!, namespace: namespace!, name: rest.join("/") };
    for (const to of tos) {
      const k = refKey(to);
      if (!out.has(k)) out.set(k, []);
      out.get(k)!.push(fromRef);
    }
  }
  return out;
}

function statusEntries(final: ObjRef[], pruneSet: RefSet, recorder: Recorder): ResourceStatusEntry[] {
  const actuation = { Successful: "Succeeded", Skipped: "Skipped", Failed: "Failed" } as const;
  const reconcile = { Successful: "Succeeded", Skipped: "Skipped", Failed: "Failed", Timeout: "Timeout" } as const;
  return final.map((ref) => {
    const a = recorder.actuated(ref);
    const r = recorder.reconciled(ref);
    return {
      ref,
      strategy: pruneSet.has(ref) ? "Delete" : "Apply",
      actuation: a ? actuation[a] : "Pending",
      reconcile: r ? reconcile[r] : "Pending",
    };
  });
}

/** Skips the final write when the stored inventory already says exactly this. */
function inventoryChanged(stored: KubeObject | undefined, final: ObjRef[], statuses: ResourceStatusEntry[] | undefined): boolean {
  if (!stored) return true;
  const storedRefs = ((stored.spec as any)?.resources ?? []) as ObjRef[];
  const a = new RefSet(storedRefs.map((r) => ({ group: r.group ?? "", kind: r.kind, namespace: r.namespace ?? "", name: r.name })));
  if (a.size !== final.length || final.some((r) => !a.has(r))) return true;
  if (!statuses) return false;
  const stored_ = ((stored.status as any)?.resourceStatuses ?? []) as any[];
  if (stored_.length !== statuses.length) return true;
  const byKey = new Map(stored_.map((s) => [refKey({ group: s.group ?? "", kind: s.kind, namespace: s.namespace ?? "", name: s.name }), s]));
  return statuses.some((s) => {
    const old = byKey.get(refKey(s.ref));
    return !old || old.strategy !== s.strategy || old.actuation !== s.actuation || old.reconcile !== s.reconcile;
  });
}

/** Those of `refs` that exist (or whose existence cannot be read): a lost answer hides whether a write happened. */
async function existing(cluster: Cluster, refs: ObjRef[]): Promise<ObjRef[]> {
  const found = await Promise.all(refs.map((ref) => cluster.get(ref).then((o) => Boolean(o), () => true)));
  return refs.filter((_, i) => found[i]);
}

/** kpt creates the inventory's Namespace first when the package defines it, so the inventory can be stored. */
async function ensureInventoryNamespace(cluster: Cluster, pkg: Package, desired: Map<string, { object: KubeObject }>, o: ResolvedOptions): Promise<ObjRef | undefined> {
  const nsRef: ObjRef = { group: "", kind: "Namespace", namespace: "", name: pkg.inventory.namespace };
  const ns = desired.get(refKey(nsRef));
  if (!ns) return undefined;
  if (await cluster.get(nsRef, o.signal)) return undefined;
  try {
    if (o.serverSide) await cluster.apply(ns.object, { fieldManager: o.fieldManager, force: o.forceConflicts, signal: o.signal });
    else await cluster.create(withLastApplied(ns.object), { signal: o.signal, fieldManager: "kubectl-client-side-apply" });
    return nsRef;
  } catch (err) {
    if ((err as { status?: number }).status !== 409) throw err;
    return undefined;
  }
}
