// Running the engine on the in-memory cluster: packages built in memory, the events of a run
// collected, and each event described in one line, so a test can assert a run's exact sequence.

import { apply, destroy } from "../../src/index.js";
import type { EngineOptions } from "../../src/engine/options.js";
import type { EngineEvent, RunStats } from "../../src/model/events.js";
import type { RunStep } from "../../src/model/plan.js";
import { DEPENDS_ON_ANNOTATION as DEPENDS_ON } from "../../src/order/depends-on.js";
import { formatDependsOnRef, refOf, type ObjRef } from "../../src/model/ref.js";
import type { InventoryInfo, KubeObject, Package } from "../../src/model/kube-object.js";
import { OWNING_INVENTORY_ANNOTATION } from "../../src/model/inventory-keys.js";
import { MemoryCluster } from "./memory-cluster.js";

export const NS = "app";
export const INVENTORY: InventoryInfo = { name: "inv", namespace: NS, id: "inv-id", labels: {}, annotations: {}, origin: "resourcegroup", source: { file: "resourcegroup.yaml", line: 1 } };

export function namespace(name = NS): KubeObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name } };
}

export function configMap(name: string, o: { data?: Record<string, string>; dependsOn?: KubeObject[]; annotations?: Record<string, string>; namespace?: string } = {}): KubeObject {
  return withMeta({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: o.namespace ?? NS }, data: o.data ?? { key: "value" } }, o);
}

export function deployment(name: string, o: { replicas?: number; dependsOn?: KubeObject[]; annotations?: Record<string, string>; namespace?: string } = {}): KubeObject {
  const labels = { app: name };
  return withMeta(
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace: o.namespace ?? NS },
      spec: { replicas: o.replicas ?? 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "main", image: "nginx" }] } } },
    },
    o,
  );
}

export function service(name: string, o: { dependsOn?: KubeObject[]; namespace?: string } = {}): KubeObject {
  return withMeta({ apiVersion: "v1", kind: "Service", metadata: { name, namespace: o.namespace ?? NS }, spec: { ports: [{ port: 80 }] } }, o);
}

export function pod(name: string, o: { dependsOn?: KubeObject[]; image?: string; namespace?: string } = {}): KubeObject {
  return withMeta({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: o.namespace ?? NS }, spec: { containers: [{ name: "main", image: o.image ?? "nginx" }] } }, o);
}

function withMeta(obj: KubeObject, o: { dependsOn?: KubeObject[]; annotations?: Record<string, string> }): KubeObject {
  const annotations = { ...o.annotations, ...(o.dependsOn?.length ? { [DEPENDS_ON]: o.dependsOn.map((d) => formatDependsOnRef(refOf(d))).join(",") } : {}) };
  if (Object.keys(annotations).length) obj.metadata.annotations = annotations;
  return obj;
}

/** The same object as it would be left in the cluster by another inventory. */
export function ownedBy(obj: KubeObject, inventoryId: string): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, [OWNING_INVENTORY_ANNOTATION]: inventoryId } } };
}

export function pkg(...objects: KubeObject[]): Package {
  return packageOf(INVENTORY, objects);
}

/** A package with this inventory; each object read from `<name>.yaml` unless `file` names it. */
export function packageOf(inventory: InventoryInfo, objects: KubeObject[], file?: (o: KubeObject) => string): Package {
  return {
    path: "memory",
    inventory,
    objects: objects.map((object) => {
      const f = file?.(object) ?? `${object.metadata.name}.yaml`;
      return { object: structuredClone(object), source: { file: f, pkgFile: f, line: 1 } };
    }),
  };
}

/** A Deployment's status once its controller has rolled it out (kstatus: Current). */
export function availableStatus(obj: KubeObject): Record<string, unknown> {
  const replicas = ((obj.spec as { replicas?: number } | undefined)?.replicas ?? 1) as number;
  return {
    observedGeneration: obj.metadata.generation,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    conditions: [
      { type: "Available", status: "True", reason: "MinimumReplicasAvailable" },
      { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" },
    ],
  };
}

/** Deployments become Available `delayMs` after each write, as their controller would make them. */
export function rollOutDeployments(cluster: MemoryCluster, delayMs = 5): MemoryCluster {
  return cluster.onWrite({ kind: "Deployment", verb: ["create", "patch", "update"] }, (d) => cluster.setStatus(refOf(d), availableStatus(d)), { delayMs });
}

/** Options for quick, deterministic runs: one object at a time (events in plan order within a wave). */
export const QUICK: EngineOptions = { concurrency: 1, pollPeriodMs: 50 };

export async function collect(events: AsyncIterable<EngineEvent>): Promise<{ events: EngineEvent[]; error?: unknown }> {
  const out: EngineEvent[] = [];
  try {
    for await (const e of events) out.push(e);
    return { events: out };
  } catch (error) {
    return { events: out, error };
  }
}

export async function runApply(cluster: MemoryCluster, p: Package, o: EngineOptions = {}): Promise<{ events: EngineEvent[]; error?: unknown }> {
  return collect(apply({ package: p, cluster, ...QUICK, ...o }));
}

export async function runDestroy(cluster: MemoryCluster, p: Package, o: EngineOptions = {}): Promise<{ events: EngineEvent[]; error?: unknown }> {
  return collect(destroy({ package: p, cluster, ...QUICK, ...o }));
}

const name = (r: ObjRef) => `${r.kind}/${r.name}`;

/**
 * One line per planned step: `install-crd`, `inventory-add 4 objects after Namespace/app`,
 * `apply 0: Namespace/app`, `wait 0 Current: Namespace/app`, `prune 3: Service/web`, ...
 */
export function describeSteps(steps: readonly RunStep[]): string[] {
  const refs = (rs: readonly ObjRef[]) => rs.map(name).join(", ");
  return steps.map((s) => {
    switch (s.type) {
      case "inventory-add":
        return `inventory-add${s.refs ? ` ${s.refs.length} objects` : ""}${s.namespace ? ` after ${name(s.namespace)}` : ""}`;
      case "apply":
        return `apply ${s.wave}: ${refs(s.refs)}`;
      case "wait":
        return `wait ${s.wave} ${s.until}${s.timeoutMs ? ` ${s.timeoutMs}ms` : ""}: ${refs(s.refs)}`;
      case "serve-kinds":
        return `serve-kinds ${s.wave}: ${refs(s.crds)}`;
      case "delete":
        return `${s.action} ${s.wave}: ${refs(s.refs)}`;
      case "applyset-add":
        return `applyset-add${s.scope ? ` ${s.scope.groupKinds.join(",")}${s.scope.namespaces.length ? ` +${s.scope.namespaces.join(",")}` : ""}` : ""}${s.namespace ? ` after ${name(s.namespace)}` : ""}`;
      case "check-rights":
        return `check-rights ${s.rights.map((r) => `${r.verb} ${r.kind}`).join(", ")}`;
      case "hook-apply":
        return `hook-apply ${s.phase} ${s.wave}: ${refs(s.refs)}`;
      case "hook-wait":
        return `hook-wait ${s.phase} ${s.wave}${s.timeoutMs ? ` ${s.timeoutMs}ms` : ""}: ${refs(s.refs)}`;
      case "replace":
        return `replace ${s.wave}: ${refs(s.refs)}`;
      default:
        return s.type;
    }
  });
}

/** The steps a run planned (its init event's plan). */
export function plannedSteps(events: readonly EngineEvent[]): string[] {
  const init = events.find((e) => e.type === "init");
  if (init?.type !== "init" || !init.plan) throw new Error("the run has no plan");
  return describeSteps(init.plan.steps);
}

function describeStats(s: RunStats): string {
  const a = s.apply;
  return [
    `apply ${a.successful}ok ${a.skipped}skip ${a.failed}fail (${a.created} created, ${a.configured} configured, ${a.unchanged} unchanged)`,
    `prune ${s.prune.successful}/${s.prune.skipped}/${s.prune.failed}`,
    `delete ${s.delete.successful}/${s.delete.skipped}/${s.delete.failed}`,
    `wait ${s.wait.successful}ok ${s.wait.skipped}skip ${s.wait.failed}fail ${s.wait.timeout}timeout`,
  ].join(", ");
}

/**
 * One line per event: `Apply Started 0`, `apply Successful created ConfigMap/a`, `wait Pending
 * Deployment/web`, `status Current Deployment/web`, `prune Skipped ConfigMap/b: why`,
 * `summary ...`. `waiting` (progress every two seconds) is left out: it depends on the clock.
 */
export function describeEvents(events: EngineEvent[]): string[] {
  return events.flatMap((e): string[] => {
    switch (e.type) {
      case "init":
        return [`init ${e.command}${e.dryRun !== "none" ? ` dry-run=${e.dryRun}` : ""}: ${e.objects.map((o) => `${o.action} ${name(o.ref)}`).join(", ")}`];
      case "group":
        return [`${e.action} ${e.status}${e.wave !== undefined ? ` ${e.wave}` : ""}`];
      case "apply":
        return [`apply ${e.status}${e.operation ? ` ${e.operation}` : ""} ${name(e.ref)}${e.error ? `: ${e.error}` : ""}${e.note ? ` (${e.note})` : ""}`];
      case "prune":
      case "delete":
        return [`${e.type} ${e.status} ${name(e.ref)}${e.error ? `: ${e.error}` : ""}`];
      case "wait":
        return [`wait ${e.status} ${name(e.ref)}${e.status === "Failed" || e.status === "Timeout" ? `: ${e.message ?? ""}` : ""}`];
      case "status":
        return [`status ${e.status} ${name(e.ref)}`];
      case "summary":
        return [`summary ${describeStats(e.stats)}`];
      case "warning":
        return [`warning ${e.message}`];
      case "waiting":
        return [];
      case "hook":
        return [`hook ${e.phase} ${e.action} ${e.status} ${name(e.ref)}${e.message ? `: ${e.message}` : ""}${e.reasons?.length ? ` [${e.reasons.map((r) => r.message).join("; ")}]` : ""}`];
      case "replace":
        return [`replace ${e.status} ${name(e.ref)}: ${e.reason}${e.error ? `: ${e.error}` : ""}`];
    }
  });
}
