// cli-utils' dependency filter, decided as the run goes: an object is applied only once what it
// depends on was applied and reconciled; an object is deleted only once what depends on it is
// gone. Pure: the outcomes so far are passed in.

import { cliUtilsId, type ObjRef } from "../model/ref.js";
import type { Actuated, Reconciled } from "../model/run-tally.js";

/** What the run has done so far, per object. */
export interface RunOutcomes {
  actuated(ref: ObjRef): Actuated | undefined;
  reconciled(ref: ObjRef): Reconciled | undefined;
}

/**
 * What the gate may check. A dry run and a run without waiting (`--wait=false`) wait for nothing,
 * so nothing has reconciled: the gate then looks at actuation alone (a dependency written
 * successfully lets its dependents go; one that failed or was skipped still holds them).
 */
export interface GateOptions {
  dryRun: boolean;
  noWait?: boolean;
  /** Dependencies the run never waits for (`kpt-ts.dev/wait: none`): their write alone lets dependents go. */
  notWaited?: (ref: ObjRef) => boolean;
}

/** Why `dependencies` (all applied by this run) keep an object from being applied now; undefined: go. */
export function applyBlockedBy(dependencies: readonly ObjRef[], outcomes: RunOutcomes, o: GateOptions): string | undefined {
  for (const dep of dependencies) {
    const a = outcomes.actuated(dep);
    if (a !== "Successful") return `dependency apply actuation ${(a ?? "skipped").toLowerCase()}: ${cliUtilsId(dep)}`;
    const r = outcomes.reconciled(dep);
    if (!o.dryRun && !o.noWait && r !== "Successful" && !o.notWaited?.(dep)) return `dependency apply reconcile ${(r ?? "skipped").toLowerCase()}: ${cliUtilsId(dep)}`;
  }
  return undefined;
}

/** The skip reason of an object whose dependency the run deletes (decided when planning). */
export function dependencyDeleted(dep: ObjRef): string {
  return `dependency scheduled for delete: ${cliUtilsId(dep)}`;
}

/** The skip reason of a prune candidate that a package object still depends on (decided when planning). */
export function dependentApplied(dependent: ObjRef): string {
  return `dependent scheduled for apply: ${cliUtilsId(dependent)}`;
}

/** Why `dependents` (all deleted by this run, in earlier waves) keep an object from being deleted now. */
export function deleteBlockedBy(dependents: readonly ObjRef[], outcomes: RunOutcomes, o: GateOptions): string | undefined {
  for (const dep of dependents) {
    const a = outcomes.actuated(dep);
    if (a && a !== "Successful") return `dependent delete actuation ${a.toLowerCase()}: ${cliUtilsId(dep)}`;
    const r = outcomes.reconciled(dep);
    if (!o.dryRun && !o.noWait && r && r !== "Successful") return `dependent delete reconcile ${r.toLowerCase()}: ${cliUtilsId(dep)}`;
  }
  return undefined;
}
