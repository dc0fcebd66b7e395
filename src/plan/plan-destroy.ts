// The destroy planner: everything the inventory lists that still exists, dependents first, each
// with kpt's decision. Pure.

import { resourceGroupKindNotServedError } from "../inventory/cluster-inventory.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import { stillThere } from "../prune/candidates.js";
import type { DestroyFacts } from "./facts.js";
import { planDeletes } from "./plan-deletes.js";
import type { DestroyPlan } from "../model/plan.js";
import { destroySteps, type StepOptions } from "./plan-steps.js";

export function planDestroy(facts: DestroyFacts, o: StepOptions & { inventoryPolicy: InventoryPolicy }): DestroyPlan {
  const { info, stored, previous, crdInstalled } = facts.inventory;
  if (!crdInstalled) throw resourceGroupKindNotServedError("one");
  const refs = stillThere(previous, facts.live, facts.unreadable);
  const { deletes, waves } = planDeletes({ refs, live: facts.live, unreadable: facts.unreadable, inventoryId: info.id, policy: o.inventoryPolicy });
  return { command: "destroy", inventory: { info, ...(stored ? { stored } : {}), previous }, steps: destroySteps(waves, o), ...(o.dryRun ? { realSteps: destroySteps(waves, { ...o, dryRun: false }) } : {}), deletes, deleteWaves: waves };
}
