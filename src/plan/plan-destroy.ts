// The destroy planner: everything the inventory lists that still exists, dependents first, each
// with kpt's decision. Pure.

import { coversScope, parentRef, parentRefusal, scopeOf, storedScope, unionScope } from "../inventory/applyset.js";
import { resourceGroupKindNotServedError } from "../inventory/cluster-inventory.js";
import { ClusterError } from "../model/errors.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import { stillThere } from "../prune/candidates.js";
import type { DestroyFacts } from "./facts.js";
import { planDeletes } from "./plan-deletes.js";
import type { ApplySetScope, DestroyPlan } from "../model/plan.js";
import { rightsNeeded } from "./plan-rights.js";
import { destroySteps, type StepOptions } from "./plan-steps.js";
import { planHooks, refuseUnreachableHooks } from "./plan-hooks.js";
import { planChangesNothing } from "../model/plan.js";
import { RefSet, type ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";

export function planDestroy(facts: DestroyFacts, o: StepOptions & { inventoryPolicy: InventoryPolicy; serverSide?: boolean; fieldManager?: string }): DestroyPlan {
  const { info, stored, previous, crdInstalled } = facts.inventory;
  if (!crdInstalled) throw resourceGroupKindNotServedError("one");
  // Another tool's ApplySet is not destroyed unless the user takes it over (KEP-3659's interop rule).
  const refusal = info.applySet && stored ? parentRefusal(stored, info, o.inventoryPolicy) : undefined;
  if (refusal) throw new ClusterError(refusal);
  const refs = stillThere(previous, facts.live, facts.unreadable);
  const { deletes, waves } = planDeletes({ refs, live: facts.live, unreadable: facts.unreadable, inventoryId: info.id, policy: o.inventoryPolicy });
  const applySet = info.applySet ? { rights: rightsNeeded({ applies: [], deletes, ...(stored ? { parent: { ref: parentRef(info), exists: true, removed: true } } : {}) }) } : undefined;
  const plan: DestroyPlan = { command: "destroy", inventory: { info, ...(stored ? { stored } : {}), previous }, steps: destroySteps(waves, o, [], undefined, applySet), deletes, deleteWaves: waves };
  // Hooks run only when the destroy deletes something; the inventory lists them before the first is created.
  if (!facts.hooks?.length || planChangesNothing(plan)) return plan;
  const hooks = planHooks(facts.hooks, ["pre-destroy", "post-destroy"], { serverSide: o.serverSide ?? false, fieldManager: o.fieldManager ?? "kubectl", inventoryId: info.id, inventoryPolicy: o.inventoryPolicy, live: facts.live });
  const deletedBefore = deletes.filter((d) => d.ref.group === "" && d.ref.kind === "Namespace" && d.decision.action === "delete").map((d) => d.ref.name);
  refuseUnreachableHooks(hooks, { deletedBefore: new Set(deletedBefore) });
  const listed = new RefSet(previous);
  const withHooks = listed.union(hooks.map((h) => h.ref));
  if (info.applySet) {
    // The parent names the hooks' kinds and namespaces before the first is created.
    const hookScope = stored ? hookParentScope(stored, info, withHooks.toArray()) : undefined;
    const rights = rightsNeeded({ applies: [], deletes, hooks, ...(stored ? { parent: { ref: parentRef(info), exists: true, removed: true } } : {}) });
    return { ...plan, hooks, steps: destroySteps(waves, o, hooks, undefined, { rights, ...(hookScope ? { hookScope } : {}) }) };
  }
  return { ...plan, hooks, steps: destroySteps(waves, o, hooks, withHooks.size !== listed.size ? withHooks.toArray() : undefined) };
}

/** The scope an ApplySet's parent must name once the destroy's hooks exist, when it does not already. */
function hookParentScope(stored: KubeObject, info: InventoryInfo, members: ObjRef[]): ApplySetScope | undefined {
  const current = storedScope(stored);
  const wanted = scopeOf(members, info.namespace);
  return coversScope(current, wanted) ? undefined : unionScope(current, wanted);
}
