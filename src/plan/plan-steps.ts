// The order of a run, as data (model/plan.ts RunStep), the way cli-utils' solver builds its task
// queue. `live apply`: install the ResourceGroup CRD when missing, store the inventory (its
// Namespace first, when the package brings it), then each wave applied and waited for (CRDs
// served before the next wave), the prune waves each deleted and waited for until gone, and the
// final inventory. `live destroy`: the delete waves, then the inventory's removal. An ApplySet
// has its own inventory steps (its parent, instead of a list) and checks the run's rights first.
// Pure.
// Hooks (docs/lifecycle.md): a phase's hook waves, each created then waited for, before the first
// apply wave (pre-apply) or delete wave (pre-destroy), after the last prune or delete wave
// (post-apply, post-destroy); the inventory lists them (an ApplySet's parent names their kinds
// and namespaces) before the first is created. An object replaced (an immutable field) is
// deleted by its wave's `replace` step, before the wave's apply.

import { refKey, refOf, type ObjRef } from "../model/ref.js";
import type { HookPhase } from "../model/lifecycle-keys.js";
import { planChangesNothing, type AccessRight, type ApplyPlan, type ApplySetScope, type PlannedHook, type RunStep } from "../model/plan.js";

export interface StepOptions {
  /** A dry run writes no inventory and waits for nothing. */
  dryRun?: boolean;
  /** False (`--wait=false`): no wait after a wave's writes or deletes. */
  wait?: boolean;
  reconcileTimeoutMs?: number;
  pruneTimeoutMs?: number;
}

type ApplyParts = Pick<ApplyPlan, "installCrd" | "applyWaves" | "deleteWaves" | "initialInventory" | "inventoryNamespace" | "initialParent" | "hooks"> & {
  /** Objects never waited for (`kpt-ts.dev/wait: none`), by refKey: in no wait step. */
  unwaited?: ReadonlySet<string>;
  /** The list to store before the first write when the hooks add to it (the initial inventory and the hooks). */
  hookInventory?: ObjRef[];
  /** An ApplySet's: the scope its parent names before the first write when the hooks add to it. */
  hookParent?: ApplySetScope;
};

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
    const scope = p.hookParent ?? p.initialParent;
    steps.push({ type: "applyset-add", ...(writes && scope ? { scope, ...namespace } : {}) });
  } else {
    const first = p.hookInventory ?? p.initialInventory;
    steps.push({ type: "inventory-add", ...(writes && first ? { refs: first, ...namespace } : {}) });
  }
  steps.push(...hookSteps(p.hooks, "pre-apply", o));
  p.applyWaves.forEach((refs, wave) => {
    steps.push({ type: "apply", wave, refs });
    if (!writes) return;
    const waited = p.unwaited?.size ? refs.filter((r) => !p.unwaited!.has(refKey(r))) : refs;
    if (o.wait !== false && waited.length) steps.push({ type: "wait", wave, refs: waited, until: "Current", ...timeout(o.reconcileTimeoutMs) });
    const crds = refs.filter((r) => r.kind === "CustomResourceDefinition");
    if (crds.length) steps.push({ type: "serve-kinds", wave, crds });
  });
  steps.push(...deleteSteps(p.deleteWaves, "prune", p.applyWaves.length, o), ...hookSteps(p.hooks, "post-apply", o), { type: applySet ? "applyset-set" : "inventory-set" });
  return steps;
}

/**
 * `hooks`: those the destroy runs; `hookInventory`: the list stored before the first is created
 * (an ApplySet's: `applySet.hookScope`, the scope its parent names then).
 */
export function destroySteps(deleteWaves: readonly ObjRef[][], o: StepOptions, hooks: readonly PlannedHook[] = [], hookInventory?: ObjRef[], applySet?: ApplySetSteps & { hookScope?: ApplySetScope }): RunStep[] {
  const writes = !o.dryRun;
  const check: RunStep[] = applySet && writes && applySet.rights.length ? [{ type: "check-rights", rights: applySet.rights }] : [];
  const record: RunStep[] = !writes ? [] : applySet ? (applySet.hookScope ? [{ type: "applyset-add", scope: applySet.hookScope }] : []) : hookInventory ? [{ type: "inventory-add", refs: hookInventory }] : [];
  const end: RunStep = { type: applySet ? "applyset-delete" : "inventory-delete" };
  return [...check, ...record, ...hookSteps(hooks, "pre-destroy", o), ...deleteSteps(deleteWaves, "delete", 0, o), ...hookSteps(hooks, "post-destroy", o), end];
}

/**
 * One phase's hooks, wave by wave: created, then waited for (hooks are waited for even with
 * --wait=false: what follows them needs their outcome); a dry run only creates them.
 */
function hookSteps(hooks: readonly PlannedHook[] | undefined, phase: HookPhase, o: StepOptions): RunStep[] {
  const waves = new Map<number, ObjRef[]>();
  for (const h of hooks ?? []) if (h.phase === phase) waves.set(h.wave, [...(waves.get(h.wave) ?? []), h.ref]);
  return [...waves.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([wave, refs]): RunStep[] => {
      const create: RunStep = { type: "hook-apply", phase, wave, refs };
      return o.dryRun ? [create] : [create, { type: "hook-wait", phase, wave, refs, ...timeout(o.reconcileTimeoutMs) }];
    });
}

/** The steps with a `replace` step before each apply wave that has objects to replace (deleted, then created by the apply). */
export function withReplaceSteps(steps: readonly RunStep[], replaced: readonly { ref: ObjRef; wave: number }[], timeoutMs: number | undefined): RunStep[] {
  if (!replaced.length) return [...steps];
  return steps.flatMap((s): RunStep[] => {
    if (s.type !== "apply") return [s];
    const refs = replaced.filter((r) => r.wave === s.wave).map((r) => r.ref);
    return refs.length ? [{ type: "replace", wave: s.wave, refs, ...timeout(timeoutMs) }, s] : [s];
  });
}

/**
 * The steps without hooks, and the inventory stored first as it would be without them (an
 * ApplySet's parent: `initialParent`) (the plan turned out to change nothing).
 */
export function withoutHookSteps(steps: readonly RunStep[], initialInventory: ObjRef[] | undefined, initialParent?: ApplySetScope): RunStep[] {
  return steps
    .filter((s) => s.type !== "hook-apply" && s.type !== "hook-wait")
    .map((s) => {
      if (s.type === "applyset-add" && s.scope) {
        const { scope: _scope, namespace, ...rest } = s;
        return initialParent ? { ...rest, scope: initialParent, ...(namespace ? { namespace } : {}) } : rest;
      }
      if (s.type !== "inventory-add" || !s.refs) return s;
      const { refs: _refs, namespace, ...rest } = s;
      return initialInventory ? { ...rest, refs: initialInventory, ...(namespace ? { namespace } : {}) } : rest;
    });
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

/** A plan whose checks (check-patches.ts) found it changes nothing after all runs no hooks. */
export function hooksOnlyForChanges(plan: ApplyPlan): ApplyPlan {
  if (!plan.hooks?.length || !planChangesNothing(plan)) return plan;
  const { hooks: _hooks, ...rest } = plan;
  return { ...rest, steps: withoutHookSteps(plan.steps, plan.initialInventory, plan.initialParent) };
}
