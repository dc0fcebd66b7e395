// The rows of `live list`, as kapp's `kapp ls`: every inventory (ResourceGroup) in the cluster,
// whoever applied it, with how many objects it lists, the namespaces they span, and, where
// kpt-ts recorded changes, how the last one ended and how long ago. Pure.

import { inventoryIdOf, refsOfResourceGroup } from "../inventory/resource-group.js";
import type { KubeObject } from "../model/kube-object.js";
import { shownResult, type ChangeRecord, type ShownResult } from "./change-record.js";

export interface InventoryRow {
  namespace: string;
  name: string;
  /** The cli-utils inventory id; "" when the ResourceGroup has none. */
  id: string;
  objects: number;
  /** The namespaces of its namespaced objects, sorted. */
  namespaces: string[];
  clusterScoped: number;
  lastChange?: {
    command: ChangeRecord["command"];
    result: ShownResult;
    /** When it finished (or started, while it has not). */
    at: string;
    ageMs: number;
    user: string;
  };
}

export function inventoryRows(resourceGroups: readonly KubeObject[], changes: readonly ChangeRecord[], now: Date): InventoryRow[] {
  const newest = new Map<string, ChangeRecord>();
  for (const c of changes) {
    const key = `${c.inventory.namespace}/${c.inventory.id}`;
    const seen = newest.get(key);
    if (!seen || c.startedAt > seen.startedAt) newest.set(key, c);
  }
  return resourceGroups
    .map((rg) => {
      const refs = refsOfResourceGroup(rg);
      const namespace = rg.metadata.namespace ?? "";
      const id = inventoryIdOf(rg) ?? "";
      const last = id ? newest.get(`${namespace}/${id}`) : undefined;
      const at = last ? (last.finishedAt ?? last.startedAt) : undefined;
      return {
        namespace,
        name: rg.metadata.name ?? "",
        id,
        objects: refs.length,
        namespaces: [...new Set(refs.map((r) => r.namespace).filter(Boolean))].sort(),
        clusterScoped: refs.filter((r) => !r.namespace).length,
        ...(last && at
          ? { lastChange: { command: last.command, result: shownResult(last, changes), at, ageMs: Math.max(0, now.getTime() - Date.parse(at)), user: last.user } }
          : {}),
      };
    })
    .sort((a, b) => (a.namespace === b.namespace ? a.name.localeCompare(b.name) : a.namespace.localeCompare(b.namespace)));
}
