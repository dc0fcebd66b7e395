// The inventory's part in an apply: the namespace it lives in (created first when the package
// defines it), the statuses recorded with the final list, and whether that list changed.

import { withLastApplied } from "../apply/csa/last-applied.js";
import type { Cluster } from "../cluster/types.js";
import { formatBytes, inventoryBytes, inventoryFit, objectsThatFit } from "../inventory/inventory-size.js";
import type { ResourceStatusEntry } from "../inventory/resource-group.js";
import type { EngineEvent } from "../model/events.js";
import { refKey, refOf, RefSet, type ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject, PackageObject } from "../model/kube-object.js";
import type { RunTally } from "../model/run-tally.js";

/** kpt creates the inventory's Namespace first when the package defines it, so the inventory can be stored. */
export async function createInventoryNamespace(cluster: Cluster, ns: PackageObject, o: { serverSide: boolean; fieldManager: string; forceConflicts: boolean }): Promise<ObjRef | undefined> {
  try {
    if (o.serverSide) await cluster.apply(ns.object, { fieldManager: o.fieldManager, force: o.forceConflicts });
    else await cluster.create(withLastApplied(ns.object), { fieldManager: "kubectl-client-side-apply" });
    return refOf(ns.object);
  } catch (err) {
    if ((err as { status?: number }).status !== 409) throw err;
    return undefined; // someone created it meanwhile
  }
}

/** Those of `refs` that exist (or whose existence cannot be read): a lost answer hides whether a write happened. */
export async function existing(cluster: Cluster, refs: ObjRef[]): Promise<ObjRef[]> {
  const found = await Promise.all(refs.map((ref) => cluster.get(ref).then((o) => Boolean(o), () => true)));
  return refs.filter((_, i) => found[i]);
}

/** kpt's per-object status entries (`--status-policy all`). */
export function statusEntries(final: ObjRef[], pruned: RefSet, tally: RunTally): ResourceStatusEntry[] {
  const actuation = { Successful: "Succeeded", Skipped: "Skipped", Failed: "Failed" } as const;
  const reconcile = { Successful: "Succeeded", Skipped: "Skipped", Failed: "Failed", Timeout: "Timeout" } as const;
  return final.map((ref) => {
    const a = tally.actuated(ref);
    const r = tally.reconciled(ref);
    return {
      ref,
      strategy: pruned.has(ref) ? "Delete" : "Apply",
      actuation: a ? actuation[a] : "Pending",
      reconcile: r ? reconcile[r] : "Pending",
    };
  });
}

/** False when the stored inventory already says exactly this (the final write is then skipped). */
export function changedInventory(stored: KubeObject | undefined, final: ObjRef[], statuses: ResourceStatusEntry[] | undefined): boolean {
  if (!stored) return true;
  const storedRefs = ((stored.spec as any)?.resources ?? []) as ObjRef[];
  const a = new RefSet(storedRefs.map((r) => ({ group: r.group ?? "", kind: r.kind, namespace: r.namespace ?? "", name: r.name })));
  if (a.size !== final.length || final.some((r) => !a.has(r))) return true;
  if (!statuses) return false;
  const storedStatuses = ((stored.status as any)?.resourceStatuses ?? []) as any[];
  if (storedStatuses.length !== statuses.length) return true;
  const byKey = new Map(storedStatuses.map((s) => [refKey({ group: s.group ?? "", kind: s.kind, namespace: s.namespace ?? "", name: s.name }), s]));
  return statuses.some((s) => {
    const old = byKey.get(refKey(s.ref));
    return !old || old.strategy !== s.strategy || old.actuation !== s.actuation || old.reconcile !== s.reconcile;
  });
}

/**
 * The statuses to store with the final list: all of them when they fit in one object, else none
 * (an empty status, which also clears older ones) and one warning. Status recording is advisory.
 */
export function fittingStatuses(info: InventoryInfo, final: ObjRef[], statuses: ResourceStatusEntry[] | undefined, stored: KubeObject | undefined, emit: (e: EngineEvent) => void): ResourceStatusEntry[] | undefined {
  if (!statuses || inventoryFit(info, final, statuses, stored) !== "list-only") return statuses;
  const n = (x: number) => x.toLocaleString("en-US");
  const fit = objectsThatFit(info, final, stored);
  emit({
    type: "warning",
    message:
      `the inventory ResourceGroup ${info.namespace}/${info.name} lists ${n(final.length)} objects; with their statuses it would take ${formatBytes(inventoryBytes(info, final, statuses, stored))}, ` +
      `more than the API server stores in one object (etcd's request limit, 1.5 MiB by default), so it was written without them (status recording is advisory; \`live status\` reads the objects themselves). ` +
      `Pass --status-policy=none to not record statuses, or split the package: ${n(fit.withStatuses)} objects like these fit with their statuses.`,
  });
  return [];
}
