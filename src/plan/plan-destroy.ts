// The destroy planner: everything the inventory lists that still exists, dependents first, each
// with kpt's decision. Pure.

import { parentRef, parentRefusal } from "../inventory/applyset.js";
import { resourceGroupKindNotServedError } from "../inventory/cluster-inventory.js";
import { ClusterError } from "../model/errors.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import { stillThere } from "../prune/candidates.js";
import type { DestroyFacts } from "./facts.js";
import { planDeletes } from "./plan-deletes.js";
import type { DestroyPlan } from "../model/plan.js";
import { rightsNeeded } from "./plan-rights.js";
import { destroySteps, type StepOptions } from "./plan-steps.js";

export function planDestroy(facts: DestroyFacts, o: StepOptions & { inventoryPolicy: InventoryPolicy }): DestroyPlan {
  const { info, stored, previous, crdInstalled } = facts.inventory;
  if (!crdInstalled) throw resourceGroupKindNotServedError("one");
  // Another tool's ApplySet is not destroyed unless the user takes it over (KEP-3659's interop rule).
  const refusal = info.applySet && stored ? parentRefusal(stored, info, o.inventoryPolicy) : undefined;
  if (refusal) throw new ClusterError(refusal);
  const refs = stillThere(previous, facts.live, facts.unreadable);
  const { deletes, waves } = planDeletes({ refs, live: facts.live, unreadable: facts.unreadable, inventoryId: info.id, policy: o.inventoryPolicy });
  const applySet = info.applySet ? { rights: rightsNeeded({ applies: [], deletes, ...(stored ? { parent: { ref: parentRef(info), exists: true, removed: true } } : {}) }) } : undefined;
  return { command: "destroy", inventory: { info, ...(stored ? { stored } : {}), previous }, steps: destroySteps(waves, o, applySet), deletes, deleteWaves: waves };
}
