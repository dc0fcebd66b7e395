// cli-utils' dependency filter as the run goes: what earlier waves achieved decides whether an
// object is applied or deleted, and the skip reason says which dependency (or dependent) held it.

import { describe, expect, it } from "vitest";
import { refKey, type ObjRef } from "../../src/model/ref.js";
import { applyBlockedBy, deleteBlockedBy, type RunOutcomes } from "../../src/order/dependency-gate.js";
import type { Actuated, Reconciled } from "../../src/model/run-tally.js";

const ref = (name: string): ObjRef => ({ group: "apps", kind: "Deployment", namespace: "app", name });

function outcomes(o: Record<string, [Actuated | undefined, Reconciled | undefined]>): RunOutcomes {
  const byKey = new Map(Object.entries(o).map(([name, v]) => [refKey(ref(name)), v]));
  return { actuated: (r) => byKey.get(refKey(r))?.[0], reconciled: (r) => byKey.get(refKey(r))?.[1] };
}

describe("applyBlockedBy", () => {
  it.each<{ name: string; deps: string[]; o: Record<string, [Actuated | undefined, Reconciled | undefined]>; dryRun?: boolean; noWait?: boolean; want?: string }>([
    { name: "dependency applied and reconciled: go", deps: ["db"], o: { db: ["Successful", "Successful"] } },
    { name: "dependency failed to apply", deps: ["db"], o: { db: ["Failed", undefined] }, want: "dependency apply actuation failed: app_db_apps_Deployment" },
    { name: "dependency skipped", deps: ["db"], o: { db: ["Skipped", "Skipped"] }, want: "dependency apply actuation skipped: app_db_apps_Deployment" },
    { name: "dependency timed out reconciling", deps: ["db"], o: { db: ["Successful", "Timeout"] }, want: "dependency apply reconcile timeout: app_db_apps_Deployment" },
    { name: "a dry run waits for nothing", deps: ["db"], o: { db: ["Successful", undefined] }, dryRun: true },
    { name: "--wait=false: a dependency written successfully lets its dependent go", deps: ["db"], o: { db: ["Successful", undefined] }, noWait: true },
    { name: "--wait=false: a dependency that failed to apply still holds it", deps: ["db"], o: { db: ["Failed", undefined] }, noWait: true, want: "dependency apply actuation failed: app_db_apps_Deployment" },
    { name: "the first dependency that holds it is named", deps: ["a", "b"], o: { a: ["Successful", "Successful"], b: ["Successful", "Failed"] }, want: "dependency apply reconcile failed: app_b_apps_Deployment" },
  ])("$name", ({ deps, o, dryRun, noWait, want }) => {
    expect(applyBlockedBy(deps.map(ref), outcomes(o), { dryRun: dryRun ?? false, noWait: noWait ?? false })).toBe(want);
  });
});

describe("deleteBlockedBy", () => {
  it.each<{ name: string; dependents: string[]; o: Record<string, [Actuated | undefined, Reconciled | undefined]>; dryRun?: boolean; noWait?: boolean; want?: string }>([
    { name: "dependent deleted and gone: go", dependents: ["web"], o: { web: ["Successful", "Successful"] } },
    { name: "dependent held by a finalizer until the prune timeout", dependents: ["web"], o: { web: ["Successful", "Timeout"] }, want: "dependent delete reconcile timeout: app_web_apps_Deployment" },
    { name: "dependent's delete failed", dependents: ["web"], o: { web: ["Failed", undefined] }, want: "dependent delete actuation failed: app_web_apps_Deployment" },
    { name: "dependent kept (protected)", dependents: ["web"], o: { web: ["Skipped", "Skipped"] }, want: "dependent delete actuation skipped: app_web_apps_Deployment" },
    { name: "a dry run does not wait for the dependent to be gone", dependents: ["web"], o: { web: ["Successful", undefined] }, dryRun: true },
    { name: "--wait=false: a dependent's accepted delete lets it go", dependents: ["web"], o: { web: ["Successful", undefined] }, noWait: true },
    { name: "--wait=false: a dependent's failed delete still holds it", dependents: ["web"], o: { web: ["Failed", undefined] }, noWait: true, want: "dependent delete actuation failed: app_web_apps_Deployment" },
  ])("$name", ({ dependents, o, dryRun, noWait, want }) => {
    expect(deleteBlockedBy(dependents.map(ref), outcomes(o), { dryRun: dryRun ?? false, noWait: noWait ?? false })).toBe(want);
  });
});
