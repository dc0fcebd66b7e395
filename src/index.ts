// kpt-ts as a library: the engine the CLI uses, for TypeScript programs that deploy without
// shelling out. Every function yields the same typed events the CLI prints.
//
//   import { apply } from "kpt-ts";
//   for await (const e of apply({ path: "./wordpress", reconcileTimeoutMs: 120_000 })) console.log(e);
//
// `plan()` returns what a run would do (the same plan the run performs), writing nothing. Runs
// leave the CLI's change record (`live history`) unless `history: false` (or `historyLimit: 0`).

import { previewPlan, runApply, runDestroy } from "./engine/run.js";
import type { EngineOptions } from "./engine/options.js";
import type { ApplyPlan, DestroyPlan, RunPlan } from "./model/plan.js";
import { KubeCluster } from "./cluster/kube-cluster.js";
import type { KubeconfigOptions } from "./cluster/kubeconfig.js";
import type { Cluster } from "./cluster/types.js";
import type { EngineEvent, StatusEvent } from "./model/events.js";
import { readPackage } from "./object/read-package.js";
import type { Package } from "./model/kube-object.js";
import { followStatus, type FollowStatusOptions } from "./status/follow-status.js";
import { inventoryObjects } from "./inventory/cluster-inventory.js";
import { applySetInventory as applySetInfo } from "./inventory/applyset.js";
import type { InventoryInfo } from "./model/kube-object.js";
import { loadHealthRules } from "./health/load-health-rules.js";

export interface TargetOptions extends Omit<KubeconfigOptions, "cluster"> {
  /** The kubeconfig cluster entry to use (kubectl's --cluster). */
  clusterName?: string;
  /** A package directory, or an already read package. */
  path?: string;
  package?: Package;
  /**
   * Use this cluster instead of opening one from the kubeconfig (it is then not closed here): any
   * implementation of `Cluster`, such as a `KubeCluster` shared by several runs, or the in-memory
   * one the engine tests use (test/helpers/memory-cluster.ts).
   */
  cluster?: Cluster;
}

async function packageOf(t: TargetOptions): Promise<Package> {
  const pkg = t.package ?? (t.path !== undefined ? await readPackage(t.path) : undefined);
  if (!pkg) throw new TypeError("give either `path` or `package`");
  return pkg;
}

function clusterOf(t: TargetOptions): { cluster: Cluster; owned: boolean } {
  const { cluster: given, clusterName, path: _path, package: _pkg, ...connection } = t;
  return given ? { cluster: given, owned: false } : { cluster: new KubeCluster({ ...connection, cluster: clusterName }), owned: true };
}

async function* withCluster<T>(t: TargetOptions & Pick<EngineOptions, "statusOptions">, run: (pkg: Package, cluster: Cluster, statusOptions: EngineOptions["statusOptions"]) => AsyncIterable<T>): AsyncIterable<T> {
  const pkg = await packageOf(t);
  // The package's health rules (docs/health-rules.md), unless the caller gave its own statusOptions:
  // bad rules stop the run before any connection is opened.
  const healthRules = t.statusOptions ? undefined : await loadHealthRules({ packageDocuments: pkg.healthRules ?? [] });
  const { cluster, owned } = clusterOf(t);
  try {
    yield* run(pkg, cluster, t.statusOptions ?? (healthRules ? { healthRules } : undefined));
  } finally {
    if (owned) cluster.close();
  }
}

/** Applies a package (like `kpt-ts live apply`), yielding events until the run ends. */
export function apply(options: TargetOptions & EngineOptions): AsyncIterable<EngineEvent> {
  return withCluster(options, (pkg, cluster, statusOptions) => runApply(pkg, cluster, { ...options, statusOptions }));
}

/** Deletes everything a package's inventory lists (like `kpt-ts live destroy`). */
export function destroy(options: TargetOptions & EngineOptions): AsyncIterable<EngineEvent> {
  return withCluster(options, (pkg, cluster, statusOptions) => runDestroy(pkg, cluster, { ...options, statusOptions }));
}

/** What `apply` (or, with `command: "destroy"`, `destroy`) would do, as data; nothing is written. */
export async function plan(options: TargetOptions & EngineOptions & { command?: "apply" | "destroy" }): Promise<RunPlan> {
  const pkg = await packageOf(options);
  const { cluster, owned } = clusterOf(options);
  try {
    return await previewPlan(options.command ?? "apply", pkg, cluster, options);
  } finally {
    if (owned) cluster.close();
  }
}

/** The status of the inventory's objects (like `kpt-ts live status`). */
export function status(options: TargetOptions & FollowStatusOptions): AsyncIterable<StatusEvent> {
  return withCluster(options, async function* (pkg, cluster, statusOptions) {
    yield* followStatus(cluster, await inventoryObjects(cluster, pkg.inventory, options.signal), { ...options, statusOptions });
  });
}

/**
 * An ApplySet inventory (KEP-3659) for a package without one of its own, as `--applyset` and `-n`
 * give it: `readPackage(dir, { inventory: applySetInventory({ name: "web", namespace: "app" }) })`.
 * The parent is a Secret unless `kind` says ConfigMap (docs/inventories.md).
 */
export function applySetInventory(o: { name: string; namespace: string; kind?: "Secret" | "ConfigMap" }): InventoryInfo {
  return applySetInfo({ name: o.name, namespace: o.namespace, kind: o.kind ?? "Secret", origin: "flag", source: { file: "applySetInventory()", line: 1 } });
}

export { runApply, runDestroy, readPackage, KubeCluster, followStatus };
export type { InventoryInfo };
export type { EngineOptions, Cluster, Package, FollowStatusOptions, RunPlan, ApplyPlan, DestroyPlan };
export type { PlannedApply, PlannedDelete, PlannedOperation, RunStep } from "./model/plan.js";
export { countPlan, planChangesNothing } from "./model/plan.js";
export type * from "./model/events.js";
export { RunTally, statsFailed } from "./model/run-tally.js";
export { ENGINE_DEFAULTS } from "./engine/options.js";
export { formatRef, refKey, type ObjRef } from "./model/ref.js";
export { computeStatus } from "./status/compute-status.js";
export { loadHealthRules, type HealthRuleSources } from "./health/load-health-rules.js";
export { PackageError, ClusterError, ResultError, KptTsError, InventoryLockedError, exitCodeFor } from "./model/errors.js";
