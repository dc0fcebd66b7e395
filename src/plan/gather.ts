// The one IO step before planning: discovery (for namespaces), the inventory, and the live
// objects, read through the run's live cache, which then keeps following them for the waits.
// Everything wrong with the input surfaces here or in the planner, before the first write.

import { schemaLookup } from "../apply/schema-lookup.js";
import type { Cluster } from "../cluster/types.js";
import { CancelledError } from "../model/errors.js";
import { listerOf, readApplySet, type MemberLister } from "../inventory/cluster-applyset.js";
import { readClusterInventory, resourceGroupCrdInstalled } from "../inventory/cluster-inventory.js";
import { refKey, refOf, RefSet, type ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject, Package } from "../model/kube-object.js";
import { pruneCandidates } from "../prune/candidates.js";
import { LiveCache } from "../cluster/live-cache.js";
import { schemaKey, type ApplyFacts, type DestroyFacts, type InventoryFacts } from "./facts.js";
import { needsMergeSchema } from "./plan-object.js";
import { prepareObjects } from "./prepare-objects.js";
import { refuseMissingNamespaces } from "./check-namespaces.js";
import { lifecycleRules } from "../object/lifecycle-annotations.js";
import { isHook } from "../model/lifecycle-keys.js";

function isDestroyHook(obj: KubeObject): boolean {
  return isHook(obj) && (lifecycleRules(obj).hook?.phases.some((p) => p === "pre-destroy" || p === "post-destroy") ?? false);
}

interface GatherOptions {
  serverSide?: boolean;
  pollPeriodMs?: number;
  signal?: AbortSignal;
}

/** The facts and the cache that read them; the caller closes the cache when the run ends. */
interface Gathered<F> {
  facts: F;
  cache: LiveCache;
}

export async function gatherApplyFacts(pkg: Package, cluster: Cluster, o: GatherOptions = {}): Promise<Gathered<ApplyFacts>> {
  // The inventory is read while discovery (which preparing the objects needs) is; an ApplySet's
  // members once the package's own kinds are listed (see applySetFacts).
  let packageRead: (reading: Promise<void>) => void = () => undefined;
  const packageListed = new Promise<void>((resolve, reject) => (packageRead = (reading) => reading.then(resolve, reject)));
  packageListed.catch(() => undefined);
  let cacheOf: LiveCache | undefined;
  const lister: MemberLister = (q, signal) => cachedMembers(cacheOf, q) ?? listerOf(cluster)(q, signal);
  const inventoryRead = pkg.inventory.applySet ? applySetFacts(cluster, pkg.inventory, packageListed, lister, o.signal) : readInventoryFacts(cluster, pkg.inventory, o.signal);
  inventoryRead.catch(() => undefined);
  const objects = await prepareObjects(pkg, cluster, pkg.inventory);
  // Client-side apply patches built-in kinds with their OpenAPI merge keys: start the lookups now,
  // so the documents arrive while the inventory and live objects are read.
  const schemaFor = schemaLookup(cluster);
  if (!o.serverSide) for (const po of objects) schemaFor(po.object).catch(() => undefined);
  const localRefs = new RefSet(objects.map((po) => refOf(po.object)));
  const cache = new LiveCache(cluster, { pollPeriodMs: o.pollPeriodMs, signal: o.signal });
  cacheOf = cache;
  try {
    // The package's objects are read while the inventory is: one round trip instead of two,
    // which is what a cluster 20 ms away notices. Prune candidates follow once it is known.
    const reading = cache.follow(localRefs);
    reading.catch(() => undefined);
    packageRead(reading);
    const inventory = await inventoryRead;
    await reading;
    // A namespace the run needs that is not there is bad input; one where an object was just
    // found needs no question (a re-apply asks none).
    await refuseMissingNamespaces(objects, pkg.inventory, cluster, { found: namespacesFound(cache, localRefs, inventory), signal: o.signal });
    const refs = [...localRefs, ...pruneCandidates(inventory.previous, localRefs)];
    await cache.follow(refs);
    // Interrupted before the first write: what the cache knows may be partial, so stop here.
    if (o.signal?.aborted) throw new CancelledError("interrupted before anything was changed");
    const { live, unreadable } = snapshot(cache, refs);
    // Only kinds with an object to patch wait for their schema: a no-op waits for none.
    const schemas = new Map<string, Awaited<ReturnType<typeof schemaFor>> | Error>();
    if (!o.serverSide) {
      const kinds = new Map<string, KubeObject>();
      for (const po of objects) {
        const l = live.get(refKey(refOf(po.object)));
        if (!kinds.has(schemaKey(po.object)) && needsMergeSchema(po.object, l, false)) kinds.set(schemaKey(po.object), po.object);
      }
      const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));
      await Promise.all([...kinds].map(async ([key, obj]) => schemas.set(key, await schemaFor(obj).catch(asError))));
    }
    return { facts: { inventory, objects, live, unreadable, schemas }, cache };
  } catch (err) {
    cache.close();
    throw err;
  }
}

export async function gatherDestroyFacts(pkg: Package, cluster: Cluster, o: GatherOptions = {}): Promise<Gathered<DestroyFacts>> {
  const inventory = pkg.inventory.applySet ? await applySetFacts(cluster, pkg.inventory, Promise.resolve(), listerOf(cluster), o.signal) : await readInventoryFacts(cluster, pkg.inventory, o.signal);
  // Only a package with destroy hooks has objects a destroy creates (docs/lifecycle.md).
  const hookObjects = pkg.objects.filter((po) => isDestroyHook(po.object));
  const hooks = hookObjects.length ? await prepareObjects({ ...pkg, objects: hookObjects }, cluster, pkg.inventory) : [];
  const cache = new LiveCache(cluster, { pollPeriodMs: o.pollPeriodMs, signal: o.signal });
  try {
    const refs = new RefSet([...inventory.previous, ...hooks.map((po) => refOf(po.object))]);
    await cache.follow(refs);
    if (o.signal?.aborted) throw new CancelledError("interrupted before anything was deleted");
    return { facts: { inventory, ...snapshot(cache, refs), ...(hooks.length ? { hooks } : {}) }, cache };
  } catch (err) {
    cache.close();
    throw err;
  }
}

async function readInventoryFacts(cluster: Cluster, info: InventoryInfo, signal?: AbortSignal): Promise<InventoryFacts> {
  // Both at once: the inventory's read does not wait for discovery (see KubeCluster.mapping).
  const [crdInstalled, read] = await Promise.all([resourceGroupCrdInstalled(cluster), readClusterInventory(cluster, info, signal).then((r) => ({ r }), (err: unknown) => ({ err }))]);
  if (!crdInstalled) return { info, crdInstalled, previous: [] };
  if ("err" in read) throw read.err;
  const stored = read.r;
  return { info, crdInstalled, ...(stored.object ? { stored: stored.object } : {}), previous: stored.refs };
}

/**
 * An ApplySet's parent, read at once, and its members, found by label once the package's own
 * kinds are listed: where the live cache lists a whole collection anyway (the package's kinds
 * in its namespaces), the members are taken from it, so 50,000 ConfigMaps are listed once.
 */
async function applySetFacts(cluster: Cluster, info: InventoryInfo, packageListed: Promise<void>, lister: MemberLister, signal?: AbortSignal): Promise<InventoryFacts> {
  const read = await readApplySet(cluster, info, { signal, lister: async (q, s) => (await packageListed, lister(q, s)) });
  return { info, crdInstalled: true, ...(read.object ? { stored: read.object } : {}), previous: read.refs };
}

function namespacesFound(cache: LiveCache, refs: Iterable<ObjRef>, inventory: InventoryFacts): Set<string> {
  const found = new Set<string>();
  const ns = inventory.stored?.metadata.namespace;
  if (ns) found.add(ns);
  for (const ref of refs) if (ref.namespace && cache.get(ref)) found.add(ref.namespace);
  return found;
}

/** The objects of a collection the cache lists whole that carry the label (`key=value`); undefined when it does not list it. */
function cachedMembers(cache: LiveCache | undefined, q: { group: string; kind: string; namespace: string; labelSelector: string }): Promise<KubeObject[]> | undefined {
  const all = cache?.listed(q.group, q.kind, q.namespace);
  if (!all) return undefined;
  const [key, value] = q.labelSelector.split("=") as [string, string];
  return Promise.resolve(all.filter((o) => o.metadata.labels?.[key] === value));
}

function snapshot(cache: LiveCache, refs: Iterable<ObjRef>): { live: Map<string, KubeObject>; unreadable: Map<string, string> } {
  const live = new Map<string, KubeObject>();
  const unreadable = new Map<string, string>();
  for (const ref of refs) {
    const key = refKey(ref);
    const obj = cache.get(ref);
    if (obj) live.set(key, obj);
    else {
      const why = cache.readError(ref);
      if (why) unreadable.set(key, why);
    }
  }
  return { live, unreadable };
}
