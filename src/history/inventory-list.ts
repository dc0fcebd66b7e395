// The rows of `live list`, as kapp's `kapp ls`: every inventory in the cluster (ResourceGroups
// and ApplySets), whoever applied it, with how many objects it lists, the namespaces they span, and, where
// kpt-ts recorded changes, how the last one ended and how long ago. Pure.

import type { ListedInventory } from "../inventory/status-selection.js";
import { shownResult, type ChangeRecord, type ShownResult } from "./change-record.js";

export interface InventoryRow {
  namespace: string;
  name: string;
  /** `ResourceGroup`, or `ApplySet` (its parent a Secret or ConfigMap of this name). */
  kind: ListedInventory["kind"];
  /** An ApplySet's parent kind, and the tool that manages it (`kubectl/v1.32.0`). */
  parentKind?: string;
  tooling?: string;
  /** The cli-utils inventory id, or the ApplySet's id; "" when it has none. */
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

export function inventoryRows(inventories: readonly ListedInventory[], changes: readonly ChangeRecord[], now: Date): InventoryRow[] {
  const newest = new Map<string, ChangeRecord>();
  for (const c of changes) {
    const key = `${c.inventory.namespace}/${c.inventory.id}`;
    const seen = newest.get(key);
    if (!seen || c.startedAt > seen.startedAt) newest.set(key, c);
  }
  return inventories
    .map((inv): InventoryRow => {
      const { refs, namespace, id } = inv;
      const last = id ? newest.get(`${namespace}/${id}`) : undefined;
      const at = last ? (last.finishedAt ?? last.startedAt) : undefined;
      return {
        namespace,
        name: inv.name,
        kind: inv.kind,
        ...(inv.parentKind ? { parentKind: inv.parentKind } : {}),
        ...(inv.tooling ? { tooling: inv.tooling } : {}),
        id,
        objects: refs.length,
        namespaces: [...new Set(refs.map((r) => r.namespace).filter(Boolean))].sort(),
        clusterScoped: refs.filter((r) => !r.namespace).length,
        ...(last && at
          ? { lastChange: { command: last.command, result: shownResult(last, changes), at, ageMs: Math.max(0, now.getTime() - Date.parse(at)), user: last.user } }
          : {}),
      };
    })
    .sort((a, b) => (a.namespace !== b.namespace ? a.namespace.localeCompare(b.namespace) : a.name !== b.name ? a.name.localeCompare(b.name) : a.kind.localeCompare(b.kind)));
}
