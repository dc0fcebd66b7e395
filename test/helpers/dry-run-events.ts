// A dry run's events, built from a short description of each object: the plan the init event
// carries (each object's planned operation, skip or prune decision, the waves) and the apply and
// prune events the executor would yield for it. For tables of what the change set reads from a run.

import type { ApplyEvent, EngineEvent } from "../../src/model/events.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import type { ApplyPlan, PlannedApply, PlannedDelete, PlannedOperation } from "../../src/model/plan.js";
import type { ObjRef } from "../../src/model/ref.js";
import { applySteps } from "../../src/plan/plan-steps.js";

export interface DryApply {
  ref: ObjRef;
  /** The object in the cluster before the run. */
  live?: KubeObject;
  /** The plan's operation (default: create without live, else update). */
  planned?: PlannedOperation;
  /** The plan's skip. */
  skip?: string;
  /** The apply event (default: Successful, with the plan's operation). */
  event?: Partial<ApplyEvent>;
}

export interface DryDelete extends Pick<PlannedDelete, "ref" | "live" | "decision" | "unreadable"> {
  /** The prune event's status (default: Successful for a delete, Skipped for a skip). */
  status?: "Successful" | "Skipped" | "Failed";
  error?: string;
}

const DONE = { create: "created", update: "configured", unchanged: "unchanged" } as const;

export function dryRunEvents(o: { applies?: DryApply[]; deletes?: DryDelete[]; waves?: { apply: ObjRef[][]; delete: ObjRef[][] }; exists?: boolean }): EngineEvent[] {
  const applies: PlannedApply[] = (o.applies ?? []).map((a, i) => ({
    ref: a.ref,
    object: a.live ?? { apiVersion: "v1", kind: a.ref.kind, metadata: { name: a.ref.name, namespace: a.ref.namespace } },
    source: { file: `${a.ref.name}.yaml`, line: 1 },
    method: "client-side",
    ...(a.live ? { live: a.live } : {}),
    operation: a.planned ?? (a.live ? "update" : "create"),
    ...(a.skip ? { skip: a.skip } : {}),
    wave: o.waves ? o.waves.apply.findIndex((w) => w.includes(a.ref)) : i,
    dependencies: [],
  }));
  const deletes: PlannedDelete[] = (o.deletes ?? []).map((d) => ({ ref: d.ref, ...(d.live ? { live: d.live } : {}), decision: d.decision, ...(d.unreadable ? { unreadable: d.unreadable } : {}), wave: 0, dependents: [] }));
  const applyWaves = o.waves?.apply ?? applies.map((a) => [a.ref]);
  const deleteWaves = o.waves?.delete ?? (deletes.length ? [deletes.map((d) => d.ref)] : []);
  const plan: ApplyPlan = {
    command: "apply",
    steps: applySteps({ installCrd: false, applyWaves, deleteWaves }, { dryRun: true }),
    inventory: { info: { name: "inv", namespace: "app", id: "inv-id", labels: {}, annotations: {}, origin: "resourcegroup", source: { file: "rg.yaml", line: 1 } }, ...(o.exists === false ? {} : { stored: { apiVersion: "kpt.dev/v1alpha1", kind: "ResourceGroup", metadata: { name: "inv" } } }), previous: [] },
    installCrd: false,
    applies,
    applyWaves,
    deletes,
    deleteWaves,
    namespacesInUse: ["app"],
  };
  const events: EngineEvent[] = [{ type: "init", command: "apply", dryRun: "server", inventory: { name: "inv", namespace: "app", id: "inv-id" }, objects: [], plan }];
  for (const [i, a] of (o.applies ?? []).entries()) {
    const p = applies[i]!;
    const status = p.skip ? "Skipped" : "Successful";
    const base: ApplyEvent = { type: "apply", ref: a.ref, status, ...(p.skip ? { error: p.skip } : { operation: DONE[p.operation] }), ...(a.live ? { before: a.live } : {}), ...(status === "Successful" && a.live ? { after: a.live } : {}) };
    events.push({ ...base, ...a.event });
  }
  for (const d of o.deletes ?? []) {
    const status = d.status ?? (d.unreadable ? "Failed" : d.decision.action === "delete" ? "Successful" : "Skipped");
    const error = d.error ?? (d.decision.action === "skip" ? d.decision.reason : d.unreadable);
    events.push({ type: "prune", ref: d.ref, status, ...(status !== "Successful" && error ? { error } : {}) });
  }
  return events;
}
