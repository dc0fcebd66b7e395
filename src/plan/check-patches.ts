// The server's word on the client-side patches the planner cannot judge alone: a patch that only
// takes away fields the package does not set (a `$retainKeys` that drops the Deployment
// strategy's `type`, a NetworkPolicy's ports replaced by the package's, which leave out the
// `protocol: TCP` the server filled in) changes nothing when the server fills them straight back
// in; nor does one that adds only a zero value the server omits (a CRD's
// `preserveUnknownFields: false`, Argo Rollouts' CRDs). Only the server knows its defaults (built in, a CRD's schema, a mutating webhook). A dry
// run of each such patch decides it (plan-object.ts settleRemovalPatch): kubectl and kpt write
// these every run and say `configured`; kpt-ts writes nothing and says `unchanged`. The one IO
// step after planning, and it only reads: a refused or failed dry run leaves the update planned.

import type { Writer } from "../apply/writer.js";
import type { ApplyPlan, PlannedApply } from "../model/plan.js";
import { settleRemovalPatch } from "./plan-object.js";

function needsCheck(p: PlannedApply): boolean {
  return !p.skip && p.csa?.op === "patch" && p.csa.serverMaySettle === true;
}

/** The dry runs go through the run's writer, so --concurrency bounds them as it bounds every write. */
export async function checkRemovalPatches(plan: ApplyPlan, writer: Writer, signal?: AbortSignal): Promise<ApplyPlan> {
  const todo = plan.applies.filter(needsCheck);
  if (todo.length === 0) return plan;
  const settled = new Map<PlannedApply, PlannedApply>();
  await Promise.all(
    todo.map(async (p) => {
      if (p.csa?.op !== "patch") return;
      // The version the patch was computed against: the same request against it is answered from the disk cache (KubeCluster.patch).
      const basedOn = { uid: p.live?.metadata.uid, resourceVersion: p.live?.metadata.resourceVersion };
      const stored = await writer.patch(p.ref, p.csa.patch, p.csa.patchType, { dryRun: true, signal, basedOn }).catch(() => undefined);
      if (stored) settled.set(p, settleRemovalPatch(p, stored));
    }),
  );
  return { ...plan, applies: plan.applies.map((p) => settled.get(p) ?? p) };
}
