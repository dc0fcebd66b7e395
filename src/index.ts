// kpt-ts as a library: the engine the CLI uses, for TypeScript programs that deploy without
// shelling out. Every function yields the same typed events the CLI prints.
//
//   import { apply, runOutcome } from "kpt-ts";
//   const { exitCode, failures } = await runOutcome(apply({ path: "./wordpress", reconcileTimeoutMs: 120_000 }));
//
// `runOutcome` drains a run into how it ended: the CLI's exit code, the summary's counts, each
// failed object, and the error that stopped it early if one did (it never throws those).
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
import { readInventoryForStatus } from "./inventory/cluster-inventory.js";
import { applySetInventory as applySetInfo } from "./inventory/applyset.js";
import type { InventoryInfo } from "./model/kube-object.js";
import { loadHealthRules } from "./health/load-health-rules.js";
import { guardCluster } from "./fleet/cluster-guard.js";
import { fleetRun, type FleetRun } from "./fleet/fleet-run.js";
import { runFleet } from "./fleet/run-fleet.js";
import { planFleet, type ClusterTarget, type FleetSelection } from "./fleet/targets.js";

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
  /**
   * Apply or destroy even on a cluster the package's `kpt-ts.dev/clusters` annotation does not
   * pin (the CLI's --allow-any-cluster; docs/fleet.md).
   */
  allowAnyCluster?: boolean;
}

/**
 * A run on several clusters (docs/fleet.md): `clusters` names kubeconfig contexts (globs such as
 * `prod-*` select several) or gives `{ context, cluster }` targets; `rollout` splits them into
 * waves, each started only when every cluster of the one before succeeded.
 */
export interface FleetOptions extends FleetSelection {
  clusters: readonly (string | ClusterTarget)[];
  /** Clusters of one wave run at once at most (default DEFAULT_MAX_CLUSTERS_AT_ONCE). */
  maxClustersAtOnce?: number;
}

/** What a fleet run takes: the package, the connection every context shares (kubeconfig, -n, ...), the clusters. */
export type FleetTargetOptions = Omit<TargetOptions, "context" | "cluster" | "clusterName"> & FleetOptions;

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

/** Stops before the first write on a cluster the package does not pin (kpt-ts.dev/clusters). */
async function* guarded(pkg: Package, cluster: Cluster, t: TargetOptions & EngineOptions, run: () => AsyncIterable<EngineEvent>): AsyncIterable<EngineEvent> {
  const context = t.context ?? (cluster instanceof KubeCluster ? cluster.context : "");
  await guardCluster(pkg.inventory, cluster, context, { allowAnyCluster: t.allowAnyCluster, signal: t.signal });
  yield* run();
}

/**
 * Applies a package (like `kpt-ts live apply`), yielding events until the run ends. With
 * `clusters`, on each of them (like `live apply --contexts`): a FleetRun, whose events name
 * their cluster and whose results() are each cluster's.
 */
export function apply(options: FleetTargetOptions & EngineOptions): FleetRun;
export function apply(options: TargetOptions & EngineOptions): AsyncIterable<EngineEvent>;
export function apply(options: (TargetOptions | FleetTargetOptions) & EngineOptions): AsyncIterable<EngineEvent> | FleetRun {
  if ("clusters" in options && options.clusters) return onFleet("apply", options);
  const o = options as TargetOptions & EngineOptions;
  return withCluster(o, (pkg, cluster, statusOptions) => guarded(pkg, cluster, o, () => runApply(pkg, cluster, { ...o, statusOptions })));
}

/** Deletes everything a package's inventory lists (like `kpt-ts live destroy`); with `clusters`, on each of them. */
export function destroy(options: FleetTargetOptions & EngineOptions): FleetRun;
export function destroy(options: TargetOptions & EngineOptions): AsyncIterable<EngineEvent>;
export function destroy(options: (TargetOptions | FleetTargetOptions) & EngineOptions): AsyncIterable<EngineEvent> | FleetRun {
  if ("clusters" in options && options.clusters) return onFleet("destroy", options);
  const o = options as TargetOptions & EngineOptions;
  return withCluster(o, (pkg, cluster, statusOptions) => guarded(pkg, cluster, o, () => runDestroy(pkg, cluster, { ...o, statusOptions })));
}

/** The package read once, its health rules compiled once, then every cluster's run. */
function onFleet(command: "apply" | "destroy", options: FleetTargetOptions & EngineOptions): FleetRun {
  return fleetRun(
    (async function* () {
      const { path: _path, package: _pkg, clusters, rollout, maxClustersAtOnce, allowAnyCluster, ...rest } = options;
      const pkg = await packageOf(options);
      const healthRules = options.statusOptions ? undefined : await loadHealthRules({ packageDocuments: pkg.healthRules ?? [] });
      const { waves, targets } = planFleet({ clusters, ...(rollout ? { rollout } : {}) }, rest, { contexts: "clusters", rollout: "rollout" });
      const statusOptions = options.statusOptions ?? (healthRules ? { healthRules } : undefined);
      yield* runFleet(pkg, targets, { command, waves, maxClustersAtOnce, allowAnyCluster, engine: { ...rest, statusOptions } });
    })(),
  );
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
    yield* followStatus(cluster, (await readInventoryForStatus(cluster, pkg.inventory, options.signal)).refs, { ...options, statusOptions });
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
export type { PlannedApply, PlannedDelete, PlannedHook, ObjectWait, RunStep } from "./model/plan.js";
export type { Operation, OperationCounts } from "./model/operation.js";
export * from "./model/lifecycle-keys.js";
export { countPlan, planChangesNothing } from "./model/plan.js";
export type * from "./model/events.js";
export { RunTally, statsFailed, type RunFailure } from "./model/run-tally.js";
export { runOutcome, type RunOutcome } from "./model/run-outcome.js";
export { ENGINE_DEFAULTS } from "./engine/options.js";
export { formatRef, refKey, type ObjRef } from "./model/ref.js";
export { computeStatus } from "./status/compute-status.js";
export { loadHealthRules, type HealthRuleSources } from "./health/load-health-rules.js";
export { PackageError, UsageError, ClusterError, ResultError, CancelledError, InternalError, KptTsError, WrongClusterError, InventoryLockedError, EXIT, exitCodeFor, formatIssue, type ExitCode, type PackageIssue } from "./model/errors.js";
export type { FleetRun, FleetResult } from "./fleet/fleet-run.js";
export type { ClusterTarget } from "./fleet/targets.js";
export type * from "./model/fleet.js";
export { DEFAULT_MAX_CLUSTERS_AT_ONCE } from "./fleet/options.js";
export { CLUSTERS_ANNOTATION } from "./fleet/cluster-guard.js";
