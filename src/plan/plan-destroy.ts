// The destroy planner: everything the inventory lists that still exists, dependents first, each
// with kpt's decision. Pure.

import { resourceGroupKindNotServedError } from "../inventory/cluster-inventory.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import { stillThere } from "../prune/candidates.js";
import type { DestroyFacts } from "./facts.js";
import { planDeletes } from "./plan-deletes.js";
import type { DestroyPlan } from "../model/plan.js";
import { destroySteps, type StepOptions } from "./plan-steps.js";
import { planHooks, refuseUnreachableHooks } from "./plan-hooks.js";
import { planChangesNothing } from "../model/plan.js";
import { RefSet } from "../model/ref.js";

export function planDestroy(facts: DestroyFacts, o: StepOptions & { inventoryPolicy: InventoryPolicy; serverSide?: boolean; fieldManager?: string }): DestroyPlan {
  const { info, stored, previous, crdInstalled } = facts.inventory;
  if (!crdInstalled) throw resourceGroupKindNotServedError("one");
  const refs = stillThere(previous, facts.live, facts.unreadable);
  const { deletes, waves } = planDeletes({ refs, live: facts.live, unreadable: facts.unreadable, inventoryId: info.id, policy: o.inventoryPolicy });
  const plan: DestroyPlan = { command: "destroy", inventory: { info, ...(stored ? { stored } : {}), previous }, steps: destroySteps(waves, o), deletes, deleteWaves: waves };
  // Hooks run only when the destroy deletes something; the inventory lists them before the first is created.
  if (!facts.hooks?.length || planChangesNothing(plan)) return plan;
  const hooks = planHooks(facts.hooks, ["pre-destroy", "post-destroy"], { serverSide: o.serverSide ?? false, fieldManager: o.fieldManager ?? "kubectl", inventoryId: info.id, inventoryPolicy: o.inventoryPolicy, live: facts.live });
  const deletedBefore = deletes.filter((d) => d.ref.group === "" && d.ref.kind === "Namespace" && d.decision.action === "delete").map((d) => d.ref.name);
  refuseUnreachableHooks(hooks, { deletedBefore: new Set(deletedBefore) });
  const listed = new RefSet(previous);
  const withHooks = listed.union(hooks.map((h) => h.ref));
  return { ...plan, hooks, steps: destroySteps(waves, o, hooks, withHooks.size !== listed.size ? withHooks.toArray() : undefined) };
}
