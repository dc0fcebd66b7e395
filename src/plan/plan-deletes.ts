// The delete half of a plan, shared by apply (prune) and destroy: the objects in reverse
// dependency order, one wave per level of the graph their live objects form (depends-on
// annotations, Namespaces, CRDs), each with kpt's decision. Pure.

import { PackageError } from "../model/errors.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import { formatRefNs, refKey, type ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { orderWaves, reverseWaves } from "../order/graph.js";
import { dependentApplied } from "../prune/dependency-gate.js";
import { decidePrune, type PruneContext } from "../prune/prune-filters.js";
import type { PlannedDelete, PruneDecision } from "../model/plan.js";
import { planStillHolds } from "./plan-object.js";

export interface PlanDeletesInput {
  /** The objects to delete that exist or cannot be read (see prune/candidates.ts). */
  refs: readonly ObjRef[];
  live: ReadonlyMap<string, KubeObject>;
  unreadable: ReadonlyMap<string, string>;
  inventoryId: string;
  policy: InventoryPolicy;
  /** Prune only: namespaces the package still uses. */
  namespacesInUse?: ReadonlySet<string>;
  /** Prune only: package objects depending on a candidate, by the candidate's refKey. */
  appliedDependents?: ReadonlyMap<string, ObjRef[]>;
}

export function planDeletes(input: PlanDeletesInput): { deletes: PlannedDelete[]; waves: ObjRef[][] } {
  const ordered = orderWaves(input.refs.map((ref) => ({ ref, object: input.live.get(refKey(ref)) })));
  // Stale depends-on annotations may name objects that are long gone; they order nothing here.
  const issues = ordered.issues.filter((i) => i.kind !== "external-dependency");
  if (issues.length) throw new PackageError(issues.map((i) => ({ message: i.message, object: i.objects.map(formatRefNs).join(", ") })));
  const waves = reverseWaves(ordered.waves);
  const dependents = invertDependencies(ordered.dependencies, input.refs);
  const deletes: PlannedDelete[] = [];
  waves.forEach((wave, index) => {
    for (const ref of wave) {
      const key = refKey(ref);
      const live = input.live.get(key);
      const unreadable = live ? undefined : input.unreadable.get(key);
      const common = { ref, wave: index, dependents: dependents.get(key) ?? [] };
      if (!live) {
        deletes.push({ ...common, decision: { action: "delete" }, ...(unreadable ? { unreadable } : {}) });
        continue;
      }
      let decision = decidePrune(ref, live, { inventoryId: input.inventoryId, policy: input.policy, strategy: "Delete", namespacesInUse: input.namespacesInUse });
      // kpt's filter order: protection, ownership, namespace in use, then dependents.
      const applied = input.appliedDependents?.get(key)?.[0];
      if (decision.action === "delete" && applied) decision = { action: "skip", reason: dependentApplied(applied), abandon: false };
      deletes.push({ ...common, live, decision });
    }
  });
  return { deletes, waves };
}

/**
 * A planned delete against the live object found when its wave comes: the plan's decision while
 * that is the object the plan read (same uid and resourceVersion), else kpt's filters again
 * (protection, ownership, namespace in use), as apply decides its objects again. A skip the plan
 * made stands.
 */
export function currentDeleteDecision(d: PlannedDelete, live: KubeObject, o: Pick<PruneContext, "inventoryId" | "policy" | "namespacesInUse">): PruneDecision {
  if (d.decision.action === "skip" || planStillHolds(d, live)) return d.decision;
  return decidePrune(d.ref, live, { ...o, strategy: "Delete" });
}

/** `dependencies` (object -> what it waits for) turned around: object -> who waits for it. */
export function invertDependencies(dependencies: ReadonlyMap<string, ObjRef[]>, refs: Iterable<ObjRef>): Map<string, ObjRef[]> {
  const byKey = new Map<string, ObjRef>();
  for (const r of refs) byKey.set(refKey(r), r);
  const out = new Map<string, ObjRef[]>();
  for (const [from, tos] of dependencies) {
    const fromRef = byKey.get(from);
    if (!fromRef) continue;
    for (const to of tos) {
      const k = refKey(to);
      const list = out.get(k);
      if (list) list.push(fromRef);
      else out.set(k, [fromRef]);
    }
  }
  return out;
}
