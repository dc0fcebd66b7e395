// Whether a prune or destroy may delete an object, in kpt's filter order: deletion protection,
// inventory ownership, namespaces still in use. Pure; the runner acts on the decision.

import type { ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import type { PruneDecision } from "../model/plan.js";
import { DELETION_ANNOTATION, DELETION_DETACH, ON_REMOVE_ANNOTATION, ON_REMOVE_KEEP } from "../model/inventory-keys.js";
import { policyRefusal, type InventoryPolicy } from "../inventory/policy.js";

export interface PruneContext {
  inventoryId: string;
  policy: InventoryPolicy;
  strategy: "Delete";
  /** Namespaces the package (or the inventory object) still uses; only for prune, not destroy. */
  namespacesInUse?: ReadonlySet<string>;
}

/** The protection annotation that keeps an object, if it has one. */
function deletionProtection(live: KubeObject): string | undefined {
  const a = live.metadata.annotations ?? {};
  if (a[ON_REMOVE_ANNOTATION] === ON_REMOVE_KEEP) return `annotation prevents deletion ("${ON_REMOVE_ANNOTATION}": "${ON_REMOVE_KEEP}")`;
  if (a[DELETION_ANNOTATION] === DELETION_DETACH) return `annotation prevents deletion ("${DELETION_ANNOTATION}": "${DELETION_DETACH}")`;
  return undefined;
}

export function decidePrune(ref: ObjRef, live: KubeObject, ctx: PruneContext): PruneDecision {
  const protection = deletionProtection(live);
  if (protection) return { action: "skip", reason: protection, abandon: true };
  const refused = policyRefusal(live, ctx.inventoryId, ctx.policy, "Delete");
  if (refused) return { action: "skip", reason: refused, abandon: false };
  if (ref.group === "" && ref.kind === "Namespace" && ctx.namespacesInUse?.has(ref.name)) {
    return { action: "skip", reason: `namespace still in use: ${ref.name}`, abandon: false };
  }
  return { action: "delete" };
}
