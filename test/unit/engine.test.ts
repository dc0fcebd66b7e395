// The engine's exact event sequences, run on the in-memory cluster (test/helpers/memory-cluster.ts),
// the way cli-utils' applier_test.go tables its runs: each case sets the cluster up (often by an
// earlier run), runs apply or destroy, and lists every event in order. A reordered or dropped
// event fails the case. Runs use concurrency 1, so events within a wave come in plan order.

import { describe, expect, it } from "vitest";
import type { EngineOptions } from "../../src/engine/options.js";
import type { EngineEvent } from "../../src/model/events.js";
import { statsFailed } from "../../src/model/run-tally.js";
import { ClusterError, PackageError, formatIssue } from "../../src/model/errors.js";
import { collectChangeSet } from "../../src/diff/change-set.js";
import { runApply as runEngine } from "../../src/engine/run.js";
import { OWNING_INVENTORY_ANNOTATION } from "../../src/model/inventory-keys.js";
import { lastAppliedValue } from "../../src/apply/csa/last-applied.js";
import { refsOfResourceGroup } from "../../src/inventory/resource-group.js";
import { refOf, type ObjRef } from "../../src/model/ref.js";
import type { KubeObject, Package } from "../../src/model/kube-object.js";
import {
  configMap,
  deployment,
  describeEvents,
  INVENTORY,
  NS,
  namespace,
  ownedBy,
  pkg,
  plannedSteps,
  pod,
  rollOutDeployments,
  runApply,
  runDestroy,
  service,
} from "../helpers/engine-run.js";
import { invalid, MemoryCluster } from "../helpers/memory-cluster.js";

const INV_REF: ObjRef = { group: "kpt.dev", kind: "ResourceGroup", namespace: INVENTORY.namespace, name: INVENTORY.name };

/** What the inventory in the cluster lists, as `Kind/name`, sorted. */
function inventoryList(cluster: MemoryCluster): string[] | undefined {
  const rg = cluster.peek(INV_REF);
  return rg && refsOfResourceGroup(rg).map((r) => `${r.kind}/${r.name}`).sort();
}

function exists(cluster: MemoryCluster, obj: KubeObject): boolean {
  return cluster.peek(refOf(obj)) !== undefined;
}

/**
 * A cluster whose Deployments roll out a moment after each write. With `withNamespace`, the
 * namespace "app" exists already (created by someone else), and packages leave it out.
 */
function freshCluster(o: { withNamespace?: boolean } = {}): MemoryCluster {
  const c = rollOutDeployments(new MemoryCluster());
  return o.withNamespace === false ? c : c.seed(namespace());
}

/** The cluster after an apply of `p` that did everything it planned. */
async function appliedCluster(p: Package, o: EngineOptions = {}): Promise<MemoryCluster> {
  const cluster = freshCluster({ withNamespace: !p.objects.some((po) => po.object.kind === "Namespace") });
  const r = await runApply(cluster, p, o);
  const s = r.error ? undefined : lastStats(r.events);
  if (!s || statsFailed(s) || s.apply.skipped + s.prune.skipped > 0) throw new Error(`setup apply failed: ${describeEvents(r.events).join("\n")} ${String(r.error)}`);
  return cluster;
}

function lastStats(events: EngineEvent[]) {
  const s = events.at(-1);
  if (s?.type !== "summary") throw new Error("the run ended without a summary");
  return s.stats;
}

const cm = configMap("config");
/** The object as the engine sends it: marked with the inventory that owns it. */
const withOwner = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, [OWNING_INVENTORY_ANNOTATION]: INVENTORY.id } } });
const web = deployment("web", { dependsOn: [cm] });
const svc = service("web");
const app = pkg(namespace(), cm, svc, web);
/** The same objects in the namespace someone else created. */
const inApp = (...objs: KubeObject[]) => pkg(...objs);

interface Scenario {
  name: string;
  /** The cluster before the run (earlier runs included). */
  given: () => Promise<MemoryCluster>;
  run: (cluster: MemoryCluster) => Promise<{ events: EngineEvent[]; error?: unknown }>;
  want: string[];
  /** The steps the run planned (describeSteps), in order. */
  steps?: string[];
  /** What the cluster holds afterwards. */
  then?: (cluster: MemoryCluster) => void;
}

const apply = (p: Package, o: EngineOptions = {}) => (c: MemoryCluster) => runApply(c, p, o);
const destroy = (p: Package, o: EngineOptions = {}) => (c: MemoryCluster) => runDestroy(c, p, o);

const kept = configMap("kept", { annotations: { "cli-utils.sigs.k8s.io/on-remove": "keep" } });
const detached = configMap("detached", { annotations: { "client.lifecycle.config.k8s.io/deletion": "detach" } });
const first = configMap("first");
const second = configMap("second", { dependsOn: [first] });
const third = configMap("third", { dependsOn: [second] });
const badpod = pod("badpod");
const afterPod = deployment("after-pod", { dependsOn: [badpod] });
const slow = deployment("slow");
const widgetCrd: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: { group: "example.com", scope: "Namespaced", names: { kind: "Widget", plural: "widgets" }, versions: [{ name: "v1", served: true, storage: true }] },
};
const widget: KubeObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: NS }, spec: { size: 1 } };
const afterSlow = configMap("after-slow", { dependsOn: [slow] });

const scenarios: Scenario[] = [
  {
    name: "a first apply installs the inventory CRD, records the inventory, applies wave by wave and waits for each wave to reconcile",
    given: async () => freshCluster({ withNamespace: false }),
    run: apply(app),
    steps: [
      "install-crd",
      "inventory-add 4 objects after Namespace/app",
      "apply 0: Namespace/app",
      "wait 0 Current: Namespace/app",
      "apply 1: ConfigMap/config, Service/web",
      "wait 1 Current: ConfigMap/config, Service/web",
      "apply 2: Deployment/web",
      "wait 2 Current: Deployment/web",
      "inventory-set",
    ],
    want: [
      "init apply: Apply Namespace/app, Apply ConfigMap/config, Apply Service/web, Apply Deployment/web",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful created Namespace/app",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current Namespace/app",
      "wait Successful Namespace/app",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Successful created ConfigMap/config",
      "apply Successful created Service/web",
      "Apply Finished 1",
      "Wait Started 1",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "status Current Service/web",
      "wait Successful Service/web",
      "Wait Finished 1",
      "Apply Started 2",
      "apply Successful created Deployment/web",
      "Apply Finished 2",
      "Wait Started 2",
      "status InProgress Deployment/web",
      "wait Pending Deployment/web",
      "status Current Deployment/web",
      "wait Successful Deployment/web",
      "Wait Finished 2",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 4ok 0skip 0fail (4 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 4ok 0skip 0fail 0timeout",
    ],
    then: (c) => expect(inventoryList(c)).toEqual(["ConfigMap/config", "Deployment/web", "Namespace/app", "Service/web"]),
  },
  {
    name: "a re-apply of an unchanged package: every object unchanged, nothing written",
    given: () => appliedCluster(app),
    run: async (c) => {
      const before = c.writes().length;
      const r = await runApply(c, app);
      expect(c.writes().slice(before)).toEqual([]);
      return r;
    },
    steps: [
      "inventory-add",
      "apply 0: Namespace/app",
      "wait 0 Current: Namespace/app",
      "apply 1: ConfigMap/config, Service/web",
      "wait 1 Current: ConfigMap/config, Service/web",
      "apply 2: Deployment/web",
      "wait 2 Current: Deployment/web",
      "inventory-set",
    ],
    want: [
      "init apply: Apply Namespace/app, Apply ConfigMap/config, Apply Service/web, Apply Deployment/web",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged Namespace/app",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current Namespace/app",
      "wait Successful Namespace/app",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Successful unchanged ConfigMap/config",
      "apply Successful unchanged Service/web",
      "Apply Finished 1",
      "Wait Started 1",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "status Current Service/web",
      "wait Successful Service/web",
      "Wait Finished 1",
      "Apply Started 2",
      "apply Successful unchanged Deployment/web",
      "Apply Finished 2",
      "Wait Started 2",
      "status Current Deployment/web",
      "wait Successful Deployment/web",
      "Wait Finished 2",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 4ok 0skip 0fail (0 created, 0 configured, 4 unchanged), prune 0/0/0, delete 0/0/0, wait 4ok 0skip 0fail 0timeout",
    ],
  },
  {
    name: "an update: the changed object is configured, the rest unchanged",
    given: () => appliedCluster(app),
    run: apply(pkg(namespace(), configMap("config", { data: { key: "new" } }), svc, web)),
    want: [
      "init apply: Apply Namespace/app, Apply ConfigMap/config, Apply Service/web, Apply Deployment/web",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged Namespace/app",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current Namespace/app",
      "wait Successful Namespace/app",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Successful configured ConfigMap/config",
      "apply Successful unchanged Service/web",
      "Apply Finished 1",
      "Wait Started 1",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "status Current Service/web",
      "wait Successful Service/web",
      "Wait Finished 1",
      "Apply Started 2",
      "apply Successful unchanged Deployment/web",
      "Apply Finished 2",
      "Wait Started 2",
      "status Current Deployment/web",
      "wait Successful Deployment/web",
      "Wait Finished 2",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 4ok 0skip 0fail (0 created, 1 configured, 3 unchanged), prune 0/0/0, delete 0/0/0, wait 4ok 0skip 0fail 0timeout",
    ],
    then: (c) => expect(c.peek(refOf(cm))?.data).toEqual({ key: "new" }),
  },
  {
    name: "an object dropped from the package is pruned after the applies, and waited for until gone",
    given: () => appliedCluster(app),
    run: apply(pkg(namespace(), cm, web)),
    steps: [
      "inventory-add",
      "apply 0: Namespace/app",
      "wait 0 Current: Namespace/app",
      "apply 1: ConfigMap/config",
      "wait 1 Current: ConfigMap/config",
      "apply 2: Deployment/web",
      "wait 2 Current: Deployment/web",
      "prune 3: Service/web",
      "wait 3 NotFound: Service/web",
      "inventory-set",
    ],
    want: [
      "init apply: Apply Namespace/app, Apply ConfigMap/config, Apply Deployment/web, Prune Service/web",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged Namespace/app",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current Namespace/app",
      "wait Successful Namespace/app",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Successful unchanged ConfigMap/config",
      "Apply Finished 1",
      "Wait Started 1",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 1",
      "Apply Started 2",
      "apply Successful unchanged Deployment/web",
      "Apply Finished 2",
      "Wait Started 2",
      "status Current Deployment/web",
      "wait Successful Deployment/web",
      "Wait Finished 2",
      "Prune Started 3",
      "prune Successful Service/web",
      "Prune Finished 3",
      "Wait Started 3",
      "status NotFound Service/web",
      "wait Successful Service/web",
      "Wait Finished 3",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 3ok 0skip 0fail (0 created, 0 configured, 3 unchanged), prune 1/0/0, delete 0/0/0, wait 4ok 0skip 0fail 0timeout",
    ],
    then: (c) => {
      expect(exists(c, svc)).toBe(false);
      expect(inventoryList(c)).toEqual(["ConfigMap/config", "Deployment/web", "Namespace/app"]);
    },
  },
  {
    name: "prune in reverse dependency order: one prune wave per depends-on level, each gone before the next (kpt's prune-depends-on)",
    given: () => appliedCluster(inApp(cm, first, second, third)),
    run: apply(inApp(cm)),
    want: [
      "init apply: Apply ConfigMap/config, Prune ConfigMap/third, Prune ConfigMap/second, Prune ConfigMap/first",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged ConfigMap/config",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Prune Started 1",
      "prune Successful ConfigMap/third",
      "Prune Finished 1",
      "Wait Started 1",
      "status NotFound ConfigMap/third",
      "wait Successful ConfigMap/third",
      "Wait Finished 1",
      "Prune Started 2",
      "prune Successful ConfigMap/second",
      "Prune Finished 2",
      "Wait Started 2",
      "status NotFound ConfigMap/second",
      "wait Successful ConfigMap/second",
      "Wait Finished 2",
      "Prune Started 3",
      "prune Successful ConfigMap/first",
      "Prune Finished 3",
      "Wait Started 3",
      "status NotFound ConfigMap/first",
      "wait Successful ConfigMap/first",
      "Wait Finished 3",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 0skip 0fail (0 created, 0 configured, 1 unchanged), prune 3/0/0, delete 0/0/0, wait 4ok 0skip 0fail 0timeout",
    ],
    then: (c) => expect([first, second, third].map((o) => exists(c, o))).toEqual([false, false, false]),
  },
  {
    name: "a dependent held by a finalizer keeps its dependency from being pruned: dependent delete reconcile timeout",
    given: async () => {
      const c = await appliedCluster(inApp(cm, first, second));
      const held = c.peek(refOf(second))!;
      held.metadata.finalizers = ["example.com/hold"];
      await c.update(held);
      return c;
    },
    run: apply(inApp(cm), { pruneTimeoutMs: 150 }),
    want: [
      "init apply: Apply ConfigMap/config, Prune ConfigMap/second, Prune ConfigMap/first",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged ConfigMap/config",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Prune Started 1",
      "prune Successful ConfigMap/second",
      "Prune Finished 1",
      "Wait Started 1",
      "status Terminating ConfigMap/second",
      "wait Pending ConfigMap/second",
      "wait Timeout ConfigMap/second: not yet deleted (Terminating: held by finalizer example.com/hold)",
      "Wait Finished 1",
      "Prune Started 2",
      "prune Skipped ConfigMap/first: dependent delete reconcile timeout: app_second__ConfigMap",
      "Prune Finished 2",
      "Wait Started 2",
      "wait Skipped ConfigMap/first",
      "Wait Finished 2",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 0skip 0fail (0 created, 0 configured, 1 unchanged), prune 1/1/0, delete 0/0/0, wait 1ok 1skip 0fail 1timeout",
    ],
    then: (c) => {
      expect(exists(c, first)).toBe(true);
      expect(c.peek(refOf(second))?.metadata.deletionTimestamp).toBeDefined();
      expect(inventoryList(c)).toEqual(["ConfigMap/config", "ConfigMap/first", "ConfigMap/second"]);
    },
  },
  {
    name: "protected objects (on-remove: keep, deletion: detach) are not pruned; they leave the inventory and lose its annotation",
    given: () => appliedCluster(inApp(cm, kept, detached)),
    run: apply(inApp(cm)),
    want: [
      "init apply: Apply ConfigMap/config, Prune ConfigMap/kept, Prune ConfigMap/detached",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged ConfigMap/config",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Prune Started 1",
      "prune Skipped ConfigMap/kept: annotation prevents deletion (\"cli-utils.sigs.k8s.io/on-remove\": \"keep\")",
      "prune Skipped ConfigMap/detached: annotation prevents deletion (\"client.lifecycle.config.k8s.io/deletion\": \"detach\")",
      "Prune Finished 1",
      "Wait Started 1",
      "wait Skipped ConfigMap/kept",
      "wait Skipped ConfigMap/detached",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 0skip 0fail (0 created, 0 configured, 1 unchanged), prune 0/2/0, delete 0/0/0, wait 1ok 2skip 0fail 0timeout",
    ],
    then: (c) => {
      expect([exists(c, kept), exists(c, detached)]).toEqual([true, true]);
      expect(c.peek(refOf(kept))?.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION]).toBeUndefined();
      expect(inventoryList(c)).toEqual(["ConfigMap/config"]);
    },
  },
  {
    name: "inventory policy: an object another inventory owns is neither applied nor pruned",
    given: async () => {
      const c = await appliedCluster(inApp(cm, first));
      // Since then, another package took `first` over, and `theirs` was always theirs.
      await c.patch(refOf(first), { metadata: { annotations: { [OWNING_INVENTORY_ANNOTATION]: "other-inv" } } }, "merge");
      c.seed(ownedBy(configMap("theirs"), "other-inv"));
      return c;
    },
    run: apply(inApp(cm, configMap("theirs", { data: { key: "ours" } }))),
    want: [
      "init apply: Apply ConfigMap/config, Apply ConfigMap/theirs, Prune ConfigMap/first",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged ConfigMap/config",
      "apply Skipped ConfigMap/theirs: inventory policy prevented actuation (strategy: Apply, status: NoMatch, policy: MustMatch): it belongs to inventory \"other-inv\"; remove it from one of the two packages, or take it over with --inventory-policy=force-adopt",
      "Apply Finished 0",
      "Wait Started 0",
      "wait Skipped ConfigMap/theirs",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Prune Started 1",
      "prune Skipped ConfigMap/first: inventory policy prevented actuation (strategy: Delete, status: NoMatch, policy: MustMatch): it belongs to inventory \"other-inv\"; remove it from one of the two packages, or take it over with --inventory-policy=force-adopt",
      "Prune Finished 1",
      "Wait Started 1",
      "wait Skipped ConfigMap/first",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 1skip 0fail (0 created, 0 configured, 1 unchanged), prune 0/1/0, delete 0/0/0, wait 1ok 2skip 0fail 0timeout",
    ],
    then: (c) => {
      expect(exists(c, first)).toBe(true);
      expect(c.peek(refOf(configMap("theirs")))?.data).toEqual({ key: "value" });
    },
  },
  {
    name: "an apply refused by the server (422 invalid, 403 forbidden) fails, and what depends on it is skipped",
    given: async () =>
      freshCluster()
        .failOn({ verb: "create", kind: "Pod", name: "badpod" }, () => invalid("Pod", "badpod", "spec.containers[0].image", "Required value"))
        .forbid({ verb: "create", kind: "Secret" }),
    run: apply(inApp(badpod, afterPod, { apiVersion: "v1", kind: "Secret", metadata: { name: "token", namespace: "app" }, data: { t: "c2VjcmV0" } })),
    want: [
      "init apply: Apply Secret/token, Apply Pod/badpod, Apply Deployment/after-pod",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Failed Secret/token: error when creating \"token.yaml\": secrets is forbidden: User \"test\" cannot create resource \"secrets\" in API group \"\" in the namespace \"app\"; ask a cluster administrator to grant \"create\" on secrets in namespace app, or use a context that has it (--context)",
      "apply Failed Pod/badpod: error when creating \"badpod.yaml\": Pod \"badpod\" is invalid: spec.containers[0].image: Required value",
      "Apply Finished 0",
      "Wait Started 0",
      "wait Skipped Secret/token",
      "wait Skipped Pod/badpod",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Skipped Deployment/after-pod: dependency apply actuation failed: app_badpod__Pod",
      "Apply Finished 1",
      "Wait Started 1",
      "wait Skipped Deployment/after-pod",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 0ok 1skip 2fail (0 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 0ok 3skip 0fail 0timeout",
    ],
    // Nothing was created, so the inventory lists nothing.
    then: (c) => expect(inventoryList(c)).toEqual([]),
  },
  {
    name: "a reconcile timeout: the object times out, what depends on it is skipped",
    given: async () => new MemoryCluster().seed(namespace()),
    run: apply(inApp(slow, afterSlow), { reconcileTimeoutMs: 150 }),
    steps: ["install-crd", "inventory-add 2 objects", "apply 0: Deployment/slow", "wait 0 Current 150ms: Deployment/slow", "apply 1: ConfigMap/after-slow", "wait 1 Current 150ms: ConfigMap/after-slow", "inventory-set"],
    want: [
      "init apply: Apply Deployment/slow, Apply ConfigMap/after-slow",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful created Deployment/slow",
      "Apply Finished 0",
      "Wait Started 0",
      "status InProgress Deployment/slow",
      "wait Pending Deployment/slow",
      "wait Timeout Deployment/slow: Replicas: 0/1",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Skipped ConfigMap/after-slow: dependency apply reconcile timeout: app_slow_apps_Deployment",
      "Apply Finished 1",
      "Wait Started 1",
      "wait Skipped ConfigMap/after-slow",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 1skip 0fail (1 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 0ok 1skip 0fail 1timeout",
    ],
  },
  {
    name: "a reconcile failure: the Deployment's progress deadline is exceeded",
    given: async () => {
      const c = new MemoryCluster().seed(namespace());
      return c.onWrite({ kind: "Deployment" }, (d) =>
        c.setStatus(refOf(d), { observedGeneration: d.metadata.generation, conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" }] }),
      );
    },
    run: apply(inApp(slow, afterSlow)),
    want: [
      "init apply: Apply Deployment/slow, Apply ConfigMap/after-slow",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful created Deployment/slow",
      "Apply Finished 0",
      "Wait Started 0",
      "status InProgress Deployment/slow",
      "wait Pending Deployment/slow",
      "status Failed Deployment/slow",
      "wait Failed Deployment/slow: Progress deadline exceeded",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Skipped ConfigMap/after-slow: dependency apply reconcile failed: app_slow_apps_Deployment",
      "Apply Finished 1",
      "Wait Started 1",
      "wait Skipped ConfigMap/after-slow",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 1skip 0fail (1 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 0ok 1skip 1fail 0timeout",
    ],
  },
  {
    name: "destroy deletes in reverse dependency order, waits for each wave to be gone (a Namespace terminates), then deletes the inventory",
    given: async () => {
      const c = await appliedCluster(app);
      const ns = c.peek(refOf(namespace()))!;
      ns.metadata.finalizers = ["kubernetes"];
      await c.update(ns);
      // The namespace controller empties the namespace, then lets it go.
      c.onWrite({ kind: "Namespace", verb: "delete" }, (n) => c.removeFinalizers(refOf(n)), { delayMs: 20 });
      return c;
    },
    run: destroy(app),
    steps: [
      "delete 0: Deployment/web",
      "wait 0 NotFound: Deployment/web",
      "delete 1: Service/web, ConfigMap/config",
      "wait 1 NotFound: Service/web, ConfigMap/config",
      "delete 2: Namespace/app",
      "wait 2 NotFound: Namespace/app",
      "inventory-delete",
    ],
    want: [
      "init destroy: Delete Deployment/web, Delete Service/web, Delete ConfigMap/config, Delete Namespace/app",
      "Delete Started 0",
      "delete Successful Deployment/web",
      "Delete Finished 0",
      "Wait Started 0",
      "status NotFound Deployment/web",
      "wait Successful Deployment/web",
      "Wait Finished 0",
      "Delete Started 1",
      "delete Successful Service/web",
      "delete Successful ConfigMap/config",
      "Delete Finished 1",
      "Wait Started 1",
      "status NotFound Service/web",
      "wait Successful Service/web",
      "status NotFound ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 1",
      "Delete Started 2",
      "delete Successful Namespace/app",
      "Delete Finished 2",
      "Wait Started 2",
      "status Terminating Namespace/app",
      "wait Pending Namespace/app",
      "status NotFound Namespace/app",
      "wait Successful Namespace/app",
      "Wait Finished 2",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 0ok 0skip 0fail (0 created, 0 configured, 0 unchanged), prune 0/0/0, delete 4/0/0, wait 4ok 0skip 0fail 0timeout",
    ],
    then: (c) => {
      expect(c.peek(INV_REF)).toBeUndefined();
      // The change records (inv-change-*) go with the namespace, by the namespace controller the memory cluster does not run.
      expect(c.contents().filter((o) => !o.startsWith("CustomResourceDefinition/") && !o.includes("/inv-change-"))).toEqual([]);
    },
  },
  {
    name: "destroy: a dependent held by a finalizer keeps what it depends on (dependent delete reconcile timeout), and the inventory stays",
    given: async () => {
      const c = await appliedCluster(inApp(first, second));
      const held = c.peek(refOf(second))!;
      held.metadata.finalizers = ["example.com/hold"];
      await c.update(held);
      return c;
    },
    run: destroy(inApp(first, second), { pruneTimeoutMs: 150 }),
    want: [
      "init destroy: Delete ConfigMap/second, Delete ConfigMap/first",
      "Delete Started 0",
      "delete Successful ConfigMap/second",
      "Delete Finished 0",
      "Wait Started 0",
      "status Terminating ConfigMap/second",
      "wait Pending ConfigMap/second",
      "wait Timeout ConfigMap/second: not yet deleted (Terminating: held by finalizer example.com/hold)",
      "Wait Finished 0",
      "Delete Started 1",
      "delete Skipped ConfigMap/first: dependent delete reconcile timeout: app_second__ConfigMap",
      "Delete Finished 1",
      "Wait Started 1",
      "wait Skipped ConfigMap/first",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 0ok 0skip 0fail (0 created, 0 configured, 0 unchanged), prune 0/0/0, delete 1/1/0, wait 0ok 1skip 0fail 1timeout",
    ],
    then: (c) => {
      expect(exists(c, first)).toBe(true);
      expect(inventoryList(c)).toEqual(["ConfigMap/first", "ConfigMap/second"]);
    },
  },
  {
    name: "server-side apply: created, then unchanged on a re-apply (the field manager owns every field)",
    given: () => appliedCluster(inApp(cm, web), { serverSide: true }),
    run: apply(inApp(configMap("config", { data: { key: "new" } }), web), { serverSide: true }),
    want: [
      "init apply: Apply ConfigMap/config, Apply Deployment/web",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful configured ConfigMap/config",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Successful unchanged Deployment/web",
      "Apply Finished 1",
      "Wait Started 1",
      "status Current Deployment/web",
      "wait Successful Deployment/web",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 2ok 0skip 0fail (0 created, 1 configured, 1 unchanged), prune 0/0/0, delete 0/0/0, wait 2ok 0skip 0fail 0timeout",
    ],
    then: (c) => expect(c.peek(refOf(cm))?.data).toEqual({ key: "new" }),
  },
  {
    name: "a prune the server refuses (403) fails, and what the refused object depended on is kept: dependent delete actuation failed",
    given: async () => (await appliedCluster(inApp(cm, first, second))).forbid({ verb: "delete", kind: "ConfigMap", name: "second" }),
    run: apply(inApp(cm)),
    steps: [
      "inventory-add",
      "apply 0: ConfigMap/config",
      "wait 0 Current: ConfigMap/config",
      "prune 1: ConfigMap/second",
      "wait 1 NotFound: ConfigMap/second",
      "prune 2: ConfigMap/first",
      "wait 2 NotFound: ConfigMap/first",
      "inventory-set",
    ],
    want: [
      "init apply: Apply ConfigMap/config, Prune ConfigMap/second, Prune ConfigMap/first",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged ConfigMap/config",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Prune Started 1",
      "prune Failed ConfigMap/second: configmaps \"second\" is forbidden: User \"test\" cannot delete resource \"configmaps\" in API group \"\" in the namespace \"app\"; ask a cluster administrator to grant \"delete\" on configmaps in namespace app, or use a context that has it (--context)",
      "Prune Finished 1",
      "Wait Started 1",
      "wait Skipped ConfigMap/second",
      "Wait Finished 1",
      "Prune Started 2",
      "prune Skipped ConfigMap/first: dependent delete actuation failed: app_second__ConfigMap",
      "Prune Finished 2",
      "Wait Started 2",
      "wait Skipped ConfigMap/first",
      "Wait Finished 2",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 0skip 0fail (0 created, 0 configured, 1 unchanged), prune 0/1/1, delete 0/0/0, wait 1ok 2skip 0fail 0timeout",
    ],
    then: (c) => expect(inventoryList(c)).toEqual(["ConfigMap/config", "ConfigMap/first", "ConfigMap/second"]),
  },
  {
    name: "server-side apply: a field another manager applied with another value is a conflict, unless forced",
    given: async () => {
      const c = freshCluster();
      await c.apply(ownedBy(configMap("config", { data: { key: "theirs" } }), INVENTORY.id), { fieldManager: "someone-else", force: false });
      return c;
    },
    run: async (c) => {
      const refused = await runApply(c, inApp(cm), { serverSide: true });
      expect(c.peek(refOf(cm))?.data).toEqual({ key: "theirs" });
      const forced = await runApply(c, inApp(cm), { serverSide: true, forceConflicts: true });
      expect(c.peek(refOf(cm))?.data).toEqual({ key: "value" });
      return { events: [...refused.events, ...forced.events] };
    },
    want: [
      "init apply: Apply ConfigMap/config",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Failed ConfigMap/config: Apply failed with 1 conflict: conflict with \"someone-else\": .data.key (use --force-conflicts to take these fields over, or stop setting them in the package, or leave them to the other manager with the kpt-ts.dev/ignore-fields annotation)",
      "Apply Finished 0",
      "Wait Started 0",
      "wait Skipped ConfigMap/config",
      "Wait Finished 0",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 0ok 0skip 1fail (0 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 0ok 1skip 0fail 0timeout",
      "init apply: Apply ConfigMap/config",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful configured ConfigMap/config",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 0skip 0fail (0 created, 1 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 1ok 0skip 0fail 0timeout",
    ],
  },
  {
    name: "a CRD and its custom resource: the resource waits a wave for its CRD to be established and served",
    given: async () => freshCluster(),
    run: apply(inApp(widget, widgetCrd)),
    steps: [
      "install-crd",
      "inventory-add 2 objects",
      "apply 0: CustomResourceDefinition/widgets.example.com",
      "wait 0 Current: CustomResourceDefinition/widgets.example.com",
      "serve-kinds 0: CustomResourceDefinition/widgets.example.com",
      "apply 1: Widget/w",
      "wait 1 Current: Widget/w",
      "inventory-set",
    ],
    want: [
      "init apply: Apply CustomResourceDefinition/widgets.example.com, Apply Widget/w",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful created CustomResourceDefinition/widgets.example.com",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current CustomResourceDefinition/widgets.example.com",
      "wait Successful CustomResourceDefinition/widgets.example.com",
      "Wait Finished 0",
      "Apply Started 1",
      "apply Successful created Widget/w",
      "Apply Finished 1",
      "Wait Started 1",
      "status Current Widget/w",
      "wait Successful Widget/w",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 2ok 0skip 0fail (2 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 2ok 0skip 0fail 0timeout",
    ],
    then: (c) => expect(exists(c, widget)).toBe(true),
  },
  {
    name: "destroy deletes a custom resource before its CRD",
    given: () => appliedCluster(inApp(widget, widgetCrd)),
    run: destroy(inApp(widget, widgetCrd)),
    want: [
      "init destroy: Delete Widget/w, Delete CustomResourceDefinition/widgets.example.com",
      "Delete Started 0",
      "delete Successful Widget/w",
      "Delete Finished 0",
      "Wait Started 0",
      "status NotFound Widget/w",
      "wait Successful Widget/w",
      "Wait Finished 0",
      "Delete Started 1",
      "delete Successful CustomResourceDefinition/widgets.example.com",
      "Delete Finished 1",
      "Wait Started 1",
      "status NotFound CustomResourceDefinition/widgets.example.com",
      "wait Successful CustomResourceDefinition/widgets.example.com",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 0ok 0skip 0fail (0 created, 0 configured, 0 unchanged), prune 0/0/0, delete 2/0/0, wait 2ok 0skip 0fail 0timeout",
    ],
  },
  {
    name: "the plan no longer holds when its object is applied (another inventory took it after the plan was made): the object is decided again, the planner's way, and skipped",
    given: () => appliedCluster(inApp(cm)),
    run: (c) =>
      runApply(c, inApp(configMap("config", { data: { key: "new" } })), {
        // Between the plan and the first write: someone else's package takes the ConfigMap over.
        confirm: async () => {
          await c.patch(refOf(cm), { metadata: { annotations: { [OWNING_INVENTORY_ANNOTATION]: "theirs" } } }, "merge");
          await new Promise((r) => setTimeout(r, 50));
        },
      }),
    want: [
      "init apply: Apply ConfigMap/config",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      'apply Skipped ConfigMap/config: inventory policy prevented actuation (strategy: Apply, status: NoMatch, policy: MustMatch): it belongs to inventory "theirs"; remove it from one of the two packages, or take it over with --inventory-policy=force-adopt',
      "Apply Finished 0",
      "Wait Started 0",
      "wait Skipped ConfigMap/config",
      "Wait Finished 0",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 0ok 1skip 0fail (0 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 0ok 1skip 0fail 0timeout",
    ],
    then: (c) => expect(c.peek(refOf(cm))?.data).toEqual({ key: "value" }),
  },
  {
    name: "the plan no longer holds when its object is applied (someone already made the change): decided again, unchanged, nothing written",
    given: () => appliedCluster(inApp(cm)),
    run: async (c) => {
      const next = configMap("config", { data: { key: "new" } });
      const r = await runApply(c, inApp(next), {
        confirm: async () => {
          await c.patch(refOf(cm), { data: { key: "new" }, metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastAppliedValue(withOwner(next)) } } }, "merge");
          await new Promise((r) => setTimeout(r, 50));
        },
      });
      return r;
    },
    want: [
      "init apply: Apply ConfigMap/config",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged ConfigMap/config",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 0skip 0fail (0 created, 0 configured, 1 unchanged), prune 0/0/0, delete 0/0/0, wait 1ok 0skip 0fail 0timeout",
    ],
  },
  {
    name: "the plan no longer holds when its object is pruned (another inventory took it after the plan was made): the delete is decided again, kpt's way, and skipped",
    given: () => appliedCluster(inApp(cm, first)),
    run: (c) =>
      runApply(c, inApp(cm), {
        confirm: async () => {
          await c.patch(refOf(first), { metadata: { annotations: { [OWNING_INVENTORY_ANNOTATION]: "theirs" } } }, "merge");
          await new Promise((r) => setTimeout(r, 50));
        },
      }),
    want: [
      "init apply: Apply ConfigMap/config, Prune ConfigMap/first",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful unchanged ConfigMap/config",
      "Apply Finished 0",
      "Wait Started 0",
      "status Current ConfigMap/config",
      "wait Successful ConfigMap/config",
      "Wait Finished 0",
      "Prune Started 1",
      'prune Skipped ConfigMap/first: inventory policy prevented actuation (strategy: Delete, status: NoMatch, policy: MustMatch): it belongs to inventory "theirs"; remove it from one of the two packages, or take it over with --inventory-policy=force-adopt',
      "Prune Finished 1",
      "Wait Started 1",
      "wait Skipped ConfigMap/first",
      "Wait Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 1ok 0skip 0fail (0 created, 0 configured, 1 unchanged), prune 0/1/0, delete 0/0/0, wait 1ok 1skip 0fail 0timeout",
    ],
    then: (c) => expect(c.peek(refOf(first))?.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION]).toBe("theirs"),
  },
  {
    name: "--dry-run=server of a package that brings its Namespace and CRD: what the server cannot preview yet is shown as the package has it, and says so",
    given: async () => freshCluster({ withNamespace: false }),
    run: apply(pkg(namespace(), cm, widgetCrd, widget), { dryRun: "server" }),
    steps: [
      "inventory-add",
      "apply 0: Namespace/app, CustomResourceDefinition/widgets.example.com",
      "apply 1: ConfigMap/config, Widget/w",
      "inventory-set",
    ],
    want: [
      "init apply dry-run=server: Apply Namespace/app, Apply CustomResourceDefinition/widgets.example.com, Apply ConfigMap/config, Apply Widget/w",
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful created Namespace/app",
      "apply Successful created CustomResourceDefinition/widgets.example.com",
      "Apply Finished 0",
      "Apply Started 1",
      "apply Successful created ConfigMap/config (namespace app is created by this apply: shown as in the package, not previewed by the server)",
      "apply Successful created Widget/w (its CustomResourceDefinition widgets.example.com is created by this apply: shown as in the package, not previewed by the server)",
      "Apply Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 4ok 0skip 0fail (4 created, 0 configured, 0 unchanged), prune 0/0/0, delete 0/0/0, wait 0ok 0skip 0fail 0timeout",
    ],
    then: (c) => expect(exists(c, namespace())).toBe(false),
  },
  ...(["client", "server"] as const).map(
    (dryRun): Scenario => ({
      name: `--dry-run=${dryRun}: a create, an update and a prune are reported, nothing is written, nothing is waited for`,
      given: () => appliedCluster(inApp(cm, first)),
      run: async (c) => {
        const before = c.contents();
        const writes = c.writes().length;
        const r = await runApply(c, inApp(configMap("config", { data: { key: "new" } }), deployment("web")), { dryRun });
        expect(c.contents()).toEqual(before);
        expect(c.writes().slice(writes).filter((w) => !w.dryRun)).toEqual([]);
        return r;
      },
      steps: [
      "inventory-add",
      "apply 0: ConfigMap/config, Deployment/web",
      "prune 1: ConfigMap/first",
      "inventory-set",
    ],
    want: [
      `init apply dry-run=${dryRun}: Apply ConfigMap/config, Apply Deployment/web, Prune ConfigMap/first`,
      "Inventory Started",
      "Inventory Finished",
      "Apply Started 0",
      "apply Successful configured ConfigMap/config",
      "apply Successful created Deployment/web",
      "Apply Finished 0",
      "Prune Started 1",
      "prune Successful ConfigMap/first",
      "Prune Finished 1",
      "Inventory Started",
      "Inventory Finished",
      "summary apply 2ok 0skip 0fail (1 created, 1 configured, 0 unchanged), prune 1/0/0, delete 0/0/0, wait 0ok 0skip 0fail 0timeout",
      ],
    }),
  ),
];

describe("engine on the in-memory cluster: exact event sequences", () => {
  it.each(scenarios)("$name", async ({ given, run, want, steps, then }) => {
    const cluster = await given();
    const r = await run(cluster);
    if (r.error) throw r.error;
    if (steps) expect(plannedSteps(r.events)).toEqual(steps);
    expect(describeEvents(r.events)).toEqual(want);
    then?.(cluster);
  });
});


describe("diff, dry-run and apply read one plan", () => {
  const secret: KubeObject = { apiVersion: "v1", kind: "Secret", metadata: { name: "token", namespace: NS }, data: { t: "c2VjcmV0" } };

  it("a prune candidate that cannot be read is kept and reported by apply, by its dry run and by live diff alike", async () => {
    const c = await appliedCluster(inApp(cm, secret));
    // Since then, this user lost the right to read Secrets.
    c.forbid({ verb: ["get", "list", "watch"], kind: "Secret" });
    const why = 'cannot read it, so it is neither deleted nor forgotten: secrets is forbidden: User "test" cannot list resource "secrets" in API group "" in the namespace "app"';

    const diff = await collectChangeSet(runEngine(inApp(cm), c, { dryRun: "server", concurrency: 1 }));
    expect(diff.changes.map((ch) => `${ch.operation} ${ch.ref.kind}/${ch.ref.name}${ch.error ? `: ${ch.error}` : ""}`)).toEqual(["unchanged ConfigMap/config", `delete Secret/token: ${why}`]);

    const dry = await runApply(c, inApp(cm), { dryRun: "client" });
    expect(describeEvents(dry.events).filter((l) => l.startsWith("prune "))).toEqual([`prune Failed Secret/token: ${why}`]);

    const real = await runApply(c, inApp(cm));
    expect(describeEvents(real.events).filter((l) => l.startsWith("prune "))).toEqual([`prune Failed Secret/token: ${why}`]);
    expect(exists(c, secret)).toBe(true);
    expect(inventoryList(c)).toEqual(["ConfigMap/config", "Secret/token"]);
  });
});

describe("the inventory's namespace", () => {
  it("missing, and not in the package: bad input before the first write, naming the first object in it and the inventory (issue 36)", async () => {
    const c = freshCluster({ withNamespace: false });
    const r = await runApply(c, inApp(cm));
    expect(r.error).toBeInstanceOf(PackageError);
    expect((r.error as PackageError).issues.map(formatIssue)).toEqual([
      'config.yaml:1: ConfigMap/config: namespace "app" does not exist in the cluster, and the package does not create it (2 objects of the package are in it): create it (kubectl create namespace app), add a Namespace object for it to the package, or fix metadata.namespace',
    ]);
    expect(c.writes()).toEqual([]);
    // A dry run tells the same: its apply would fail.
    const dry = await runApply(c, inApp(cm), { dryRun: "server" });
    expect(dry.error).toBeInstanceOf(PackageError);
  });

  it("an object's namespace missing, the inventory's there: the object is named; a Namespace in the package is enough", async () => {
    const c = freshCluster();
    const elsewhere = configMap("elsewhere", { namespace: "nope" });
    const r = await runApply(c, inApp(cm, elsewhere));
    expect((r.error as PackageError).issues.map(formatIssue)).toEqual([
      'elsewhere.yaml:1: ConfigMap/elsewhere: namespace "nope" does not exist in the cluster, and the package does not create it: create it (kubectl create namespace nope), add a Namespace object for it to the package, or fix metadata.namespace',
    ]);
    expect(c.writes()).toEqual([]);
    const ok = await runApply(c, inApp(namespace("nope"), cm, elsewhere));
    expect(ok.error).toBeUndefined();
    expect(exists(c, elsewhere)).toBe(true);
  });

  it("a namespace this identity may not read is left to the server, and not read (issue 33: no cluster-scoped read)", async () => {
    const c = freshCluster().forbid({ verb: "get", kind: "Namespace" });
    const r = await runApply(c, inApp(cm));
    expect(r.error).toBeUndefined();
    expect(c.reviews).toEqual(["get namespaces  app"]);
    expect(c.calls.filter((x) => x.ref.kind === "Namespace")).toEqual([]);
  });

  it("a re-apply asks nothing about a namespace where it found the package's objects", async () => {
    const c = freshCluster();
    expect((await runApply(c, inApp(cm))).error).toBeUndefined();
    expect(c.calls.filter((x) => x.ref.kind === "Namespace").map((x) => `${x.verb} ${x.ref.name}`)).toEqual(["get app"]);
    c.calls.length = 0;
    const elsewhere = configMap("elsewhere", { namespace: "nope" });
    // "nope" holds nothing yet, so it is asked about (and missing); "app" is not.
    const r = await runApply(c, inApp(cm, elsewhere));
    expect(r.error).toBeInstanceOf(PackageError);
    expect(c.calls.filter((x) => x.ref.kind === "Namespace").map((x) => `${x.verb} ${x.ref.name}`)).toEqual(["get nope"]);
    c.calls.length = 0;
    expect((await runApply(c, inApp(cm))).error).toBeUndefined();
    expect(c.calls.filter((x) => x.ref.kind === "Namespace")).toEqual([]);
  });

  it("in the package and missing: applied once, before the inventory, and reported in its wave", async () => {
    // Namespaces are polled, not watched: the run's cache has not seen the namespace it created
    // when wave 0 comes (before, wave 0 created it a second time, and was refused).
    const c = freshCluster({ withNamespace: false }).forbid({ verb: "watch", kind: "Namespace" });
    const r = await runApply(c, pkg(namespace(), cm), { pollPeriodMs: 5_000 });
    expect(describeEvents(r.events).filter((l) => l.startsWith("apply "))).toEqual(["apply Successful created Namespace/app", "apply Successful created ConfigMap/config"]);
    expect(c.writes().filter((w) => w.ref.kind === "Namespace").map((w) => w.verb)).toEqual(["create"]);
  });
});

describe("the change history observes every run (the CLI's and the library's alike)", () => {
  const records = (c: MemoryCluster) => c.contents().filter((o) => o.startsWith("ConfigMap/app/inv-change-"));

  it("an apply leaves one record, finished; history: false and historyLimit: 0 leave none; a dry run none", async () => {
    const c = freshCluster();
    await runApply(c, inApp(cm));
    expect(records(c)).toHaveLength(1);
    const stored = JSON.parse((c.peek({ group: "", kind: "ConfigMap", namespace: NS, name: records(c)[0]!.split("/")[2]!.split("@")[0]! })!.data as { change: string }).change);
    expect(stored).toMatchObject({ command: "apply", result: "succeeded", counts: { create: 1, update: 0, delete: 0, noop: 0 }, user: "test" });
    for (const o of [{ history: false }, { historyLimit: 0 }, { dryRun: "server" as const }]) {
      await runApply(c, inApp(configMap("config", { data: { key: String(Math.random()) } })), o);
      expect(records(c), JSON.stringify(o)).toHaveLength(1);
    }
  });
});
