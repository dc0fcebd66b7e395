// The one decision per package object: whether the run may touch it (the inventory policy) and
// what applying it does against its live object (create, update or unchanged; for client-side
// apply the patch it sends). The planner takes it for every object; the executor takes it again,
// here and nowhere else, for an object whose live state moved since the plan read it. Any new
// per-object choice (how an object is applied, whether it is applied at all) belongs here. Pure.

import { isCsaNoop, planClientSideApply } from "../apply/csa/plan-csa.js";
import type { PatchSchema } from "../apply/csa/patch-schema.js";
import { isSsaNoop } from "../apply/ssa-noop.js";
import { policyRefusal, type InventoryPolicy } from "../inventory/policy.js";
import type { KubeObject } from "../model/kube-object.js";
import type { CsaPlan, PlannedApply, PlannedOperation } from "../model/plan.js";

export interface ObjectPlanOptions {
  serverSide: boolean;
  fieldManager: string;
  inventoryId: string;
  inventoryPolicy: InventoryPolicy;
}

/**
 * Client-side apply's merge schema: undefined for kinds patched with a JSON merge patch, an Error
 * when the kind's OpenAPI document could not be read.
 */
export type MergeSchema = PatchSchema | undefined | Error;

export interface ObjectDecision {
  operation: PlannedOperation;
  /** Client-side apply's patch; absent for an update it could not compute (see `unplanned`). */
  csa?: CsaPlan;
  /** Why the patch could not be computed (its schema unreadable, objects that cannot be merged). */
  unplanned?: string;
  /** The inventory policy's refusal: the object is left alone. */
  refusal?: string;
}

/**
 * Whether deciding this object needs its kind's merge schema: only client-side apply of an
 * object that exists and is not already as configured (a no-op never waits for an OpenAPI document).
 */
export function needsMergeSchema(object: KubeObject, live: KubeObject | undefined, serverSide: boolean): boolean {
  return !serverSide && live !== undefined && !isCsaNoop(object, live);
}

/**
 * Create, update or unchanged, as the apply will find it: server-side apply by its no-op check,
 * client-side apply by kubectl's three-way patch. When the patch cannot be computed (its schema
 * could not be read, the objects cannot be merged), it is an update without a patch, and why.
 */
export function decideObject(object: KubeObject, live: KubeObject | undefined, schema: MergeSchema, o: ObjectPlanOptions): ObjectDecision {
  const refusal = live ? policyRefusal(live, o.inventoryId, o.inventoryPolicy, "Apply") : undefined;
  const decided = decideOperation(object, live, schema, o);
  return refusal ? { ...decided, refusal } : decided;
}

function decideOperation(object: KubeObject, live: KubeObject | undefined, schema: MergeSchema, o: ObjectPlanOptions): ObjectDecision {
  if (o.serverSide) return { operation: !live ? "create" : isSsaNoop(object, live, o.fieldManager) ? "unchanged" : "update" };
  if (!live) return { operation: "create", csa: planClientSideApply(object, undefined, undefined) };
  if (isCsaNoop(object, live)) return { operation: "unchanged", csa: { op: "unchanged" } };
  if (schema instanceof Error) return { operation: "update", unplanned: schema.message };
  try {
    const csa = planClientSideApply(object, live, schema, o.fieldManager);
    return { operation: csa.op === "unchanged" ? "unchanged" : "update", csa };
  } catch (err) {
    return { operation: "update", unplanned: err instanceof Error ? err.message : String(err) };
  }
}

/** True while the live object is the one the plan decided against (same uid and resourceVersion, or both absent). */
export function planStillHolds(p: Pick<PlannedApply, "live">, live: KubeObject | undefined): boolean {
  if (!p.live || !live) return !p.live && !live;
  return p.live.metadata.uid === live.metadata.uid && p.live.metadata.resourceVersion === live.metadata.resourceVersion;
}

/**
 * The planned object decided again against the live object found at execution (the executor
 * asks only for objects the plan does not skip: a skip stands as planned).
 */
export function replanObject(p: PlannedApply, live: KubeObject | undefined, schema: MergeSchema, o: ObjectPlanOptions): PlannedApply {
  const { live: _old, csa: _csa, unplanned: _u, skip: _skip, ...rest } = p;
  const d = decideObject(p.object, live, schema, o);
  return {
    ...rest,
    ...(live ? { live } : {}),
    operation: d.operation,
    ...(d.csa ? { csa: d.csa } : {}),
    ...(d.unplanned ? { unplanned: d.unplanned } : {}),
    ...(d.refusal ? { skip: d.refusal } : {}),
  };
}
