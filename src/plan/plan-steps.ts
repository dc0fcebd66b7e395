// The order of a run, as data (model/plan.ts RunStep), the way cli-utils' solver builds its task
// queue. `live apply`: install the ResourceGroup CRD when missing, store the inventory (its
// Namespace first, when the package brings it), then each wave applied and waited for (CRDs
// served before the next wave), the prune waves each deleted and waited for until gone, and the
// final inventory. `live destroy`: the delete waves, then the inventory's removal. An ApplySet
// has its own inventory steps (its parent, instead of a list) and checks the run's rights first.
// Pure.

import { refOf, type ObjRef } from "../model/ref.js";
import type { AccessRight, ApplyPlan, RunStep } from "../model/plan.js";

export interface StepOptions {
  /** A dry run writes no inventory and waits for nothing. */
  dryRun?: boolean;
  /** False (`--wait=false`): no wait after a wave's writes or deletes. */
  wait?: boolean;
  reconcileTimeoutMs?: number;
  pruneTimeoutMs?: number;
}

type ApplyParts = Pick<ApplyPlan, "installCrd" | "applyWaves" | "deleteWaves" | "initialInventory" | "inventoryNamespace" | "initialParent">;

/** An ApplySet run: the rights its writes need (plan-rights.ts), asked before the first write. */
export interface ApplySetSteps {
  rights: AccessRight[];
}

export function applySteps(p: ApplyParts, o: StepOptions, applySet?: ApplySetSteps): RunStep[] {
  const writes = !o.dryRun;
  const steps: RunStep[] = [];
  if (p.installCrd && writes && !applySet) steps.push({ type: "install-crd" });
  const namespace = p.inventoryNamespace ? { namespace: refOf(p.inventoryNamespace.object) } : {};
  if (applySet) {
    if (writes && applySet.rights.length) steps.push({ type: "check-rights", rights: applySet.rights });
    steps.push({ type: "applyset-add", ...(writes && p.initialParent ? { scope: p.initialParent, ...namespace } : {}) });
  } else steps.push({ type: "inventory-add", ...(writes && p.initialInventory ? { refs: p.initialInventory, ...namespace } : {}) });
  p.applyWaves.forEach((refs, wave) => {
    steps.push({ type: "apply", wave, refs });
    if (!writes) return;
    if (o.wait !== false) steps.push({ type: "wait", wave, refs, until: "Current", ...timeout(o.reconcileTimeoutMs) });
    const crds = refs.filter((r) => r.kind === "CustomResourceDefinition");
    if (crds.length) steps.push({ type: "serve-kinds", wave, crds });
  });
  steps.push(...deleteSteps(p.deleteWaves, "prune", p.applyWaves.length, o), { type: applySet ? "applyset-set" : "inventory-set" });
  return steps;
}

export function destroySteps(deleteWaves: readonly ObjRef[][], o: StepOptions, applySet?: ApplySetSteps): RunStep[] {
  const check: RunStep[] = applySet && !o.dryRun && applySet.rights.length ? [{ type: "check-rights", rights: applySet.rights }] : [];
  return [...check, ...deleteSteps(deleteWaves, "delete", 0, o), { type: applySet ? "applyset-delete" : "inventory-delete" }];
}

/** Delete waves numbered on from `first` (apply's prune waves follow its apply waves), each waited for until gone. */
function deleteSteps(waves: readonly ObjRef[][], action: "prune" | "delete", first: number, o: StepOptions): RunStep[] {
  return waves.flatMap((refs, i): RunStep[] => {
    const wave = first + i;
    const del: RunStep = { type: "delete", wave, refs, action };
    return o.dryRun || o.wait === false ? [del] : [del, { type: "wait", wave, refs, until: "NotFound", ...timeout(o.pruneTimeoutMs) }];
  });
}

function timeout(ms: number | undefined): { timeoutMs?: number } {
  return ms ? { timeoutMs: ms } : {};
}
