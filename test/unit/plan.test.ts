// The planners, without a cluster: facts in (package objects, inventory, live objects), the whole
// run out. Each case is what a user would see the run do: which objects are created, updated,
// left alone, skipped and why, and the order of the waves.

import { describe, expect, it } from "vitest";
import { lastAppliedValue } from "../../src/apply/csa/last-applied.js";
import { ClusterError, PackageError } from "../../src/model/errors.js";
import { OWNING_INVENTORY_ANNOTATION } from "../../src/model/inventory-keys.js";
import { refKey, refOf, type ObjRef } from "../../src/model/ref.js";
import type { InventoryInfo, KubeObject, PackageObject } from "../../src/model/kube-object.js";
import type { ApplyFacts, DestroyFacts } from "../../src/plan/facts.js";
import { planApply, type PlanApplyOptions } from "../../src/plan/plan-apply.js";
import { planDestroy } from "../../src/plan/plan-destroy.js";
import { planStillHolds, replanObject } from "../../src/plan/plan-object.js";
import { countPlan, planChangesNothing, type ApplyPlan } from "../../src/model/plan.js";

const INV_ID = "inv-1";
const INFO: InventoryInfo = { name: "inv", namespace: "app", id: INV_ID, labels: {}, annotations: {}, origin: "resourcegroup", source: { file: "resourcegroup.yaml", line: 1 } };
const RG: KubeObject = { apiVersion: "kpt.dev/v1alpha1", kind: "ResourceGroup", metadata: { name: "inv", namespace: "app", resourceVersion: "7" } };

/** `Kind/name` in namespace app (`Namespace/x` is cluster-scoped), with annotations. */
function cm(name: string, o: { dependsOn?: string; annotations?: Record<string, string>; data?: Record<string, string>; kind?: string } = {}): KubeObject {
  const kind = o.kind ?? "ConfigMap";
  return {
    apiVersion: "v1",
    kind,
    metadata: {
      name,
      ...(kind === "Namespace" ? {} : { namespace: "app" }),
      annotations: { [OWNING_INVENTORY_ANNOTATION]: INV_ID, ...(o.dependsOn ? { "config.kubernetes.io/depends-on": o.dependsOn } : {}), ...o.annotations },
    },
    ...(kind === "Namespace" ? {} : { data: o.data ?? { k: "v" } }),
  };
}

/** What the cluster holds after a client-side apply of `obj` (with its last-applied annotation). */
function applied(obj: KubeObject, change: (o: KubeObject) => void = () => undefined): KubeObject {
  const live = structuredClone(obj);
  live.metadata.annotations = { ...live.metadata.annotations, "kubectl.kubernetes.io/last-applied-configuration": lastAppliedValue(obj) };
  live.metadata.uid = `uid-${obj.metadata.name}`;
  live.metadata.resourceVersion = "1";
  change(live);
  return live;
}

const po = (object: KubeObject, line = 1): PackageObject => ({ object, source: { file: `${object.metadata.name}.yaml`, line }, lineOf: () => line + 3 });

function facts(o: { objects?: KubeObject[]; live?: KubeObject[]; previous?: KubeObject[] | ObjRef[]; unreadable?: ObjRef[]; crd?: boolean; stored?: boolean } = {}): ApplyFacts {
  const previous = (o.previous ?? []).map((x) => ("metadata" in x ? refOf(x) : x));
  const crdInstalled = o.crd ?? true;
  return {
    inventory: { info: INFO, crdInstalled, ...(o.stored ?? previous.length > 0 ? { stored: RG } : {}), previous },
    objects: (o.objects ?? []).map((x) => po(x)),
    live: new Map((o.live ?? []).map((x) => [refKey(refOf(x)), x])),
    unreadable: new Map((o.unreadable ?? []).map((r) => [refKey(r), "configmaps is forbidden"])),
    schemas: new Map(),
  };
}

const OPTS: PlanApplyOptions = { dryRun: false, serverSide: false, fieldManager: "kubectl", inventoryPolicy: "strict", installResourceGroup: true };

/** One line per planned object: `apply 0 ConfigMap/a create`, `delete 1 ConfigMap/b skip: ...`. */
function describePlan(plan: ApplyPlan): string[] {
  return [
    ...plan.applies.map((a) => `apply ${a.wave} ${a.ref.kind}/${a.ref.name} ${a.skip ? `skip: ${a.skip}` : a.operation}`),
    ...plan.deletes.map((d) => `delete ${d.wave} ${d.ref.kind}/${d.ref.name} ${d.unreadable ? `unreadable: ${d.unreadable}` : d.decision.action === "skip" ? `skip: ${d.decision.reason}` : "delete"}`),
  ];
}

describe("planApply", () => {
  it.each<{ name: string; facts: ApplyFacts; opts?: Partial<PlanApplyOptions>; want: string[] }>([
    {
      name: "a first apply creates everything, in dependency waves",
      facts: facts({ objects: [cm("b", { dependsOn: "/namespaces/app/ConfigMap/a" }), cm("a")], crd: false }),
      want: ["apply 0 ConfigMap/a create", "apply 1 ConfigMap/b create"],
    },
    {
      name: "a re-apply of an unchanged package leaves everything alone",
      facts: facts({ objects: [cm("a")], live: [applied(cm("a"))], previous: [cm("a")] }),
      want: ["apply 0 ConfigMap/a unchanged"],
    },
    {
      name: "a changed value is an update",
      facts: facts({ objects: [cm("a", { data: { k: "new" } })], live: [applied(cm("a"))], previous: [cm("a")] }),
      want: ["apply 0 ConfigMap/a update"],
    },
    {
      name: "a field someone else set is kept: still unchanged",
      facts: facts({ objects: [cm("a")], live: [applied(cm("a"), (o) => ((o.data as Record<string, string>).extra = "theirs"))], previous: [cm("a")] }),
      want: ["apply 0 ConfigMap/a unchanged"],
    },
    {
      name: "objects that left the package are pruned; ones already gone are forgotten",
      facts: facts({ objects: [cm("a")], live: [applied(cm("a")), applied(cm("old"))], previous: [cm("a"), cm("old"), cm("gone")] }),
      want: ["apply 0 ConfigMap/a unchanged", "delete 0 ConfigMap/old delete"],
    },
    {
      name: "prune follows depends-on among the pruned objects: the dependent first, each level its own wave (kpt's prune-depends-on)",
      facts: facts({
        objects: [cm("cm")],
        live: [applied(cm("first")), applied(cm("second", { dependsOn: "/namespaces/app/ConfigMap/first" })), applied(cm("third", { dependsOn: "/namespaces/app/ConfigMap/second" }))],
        previous: [cm("first"), cm("second"), cm("third")],
      }),
      want: ["apply 0 ConfigMap/cm create", "delete 0 ConfigMap/third delete", "delete 1 ConfigMap/second delete", "delete 2 ConfigMap/first delete"],
    },
    {
      name: "a pruned object's depends-on naming an object that is gone orders nothing",
      facts: facts({ live: [applied(cm("x", { dependsOn: "/namespaces/app/ConfigMap/long-gone" }))], previous: [cm("x")] }),
      want: ["delete 0 ConfigMap/x delete"],
    },
    {
      name: "an object the package no longer has but a package object depends on is kept: dependent scheduled for apply",
      facts: facts({ objects: [cm("a", { dependsOn: "/namespaces/app/ConfigMap/old" })], live: [applied(cm("old"))], previous: [cm("old")] }),
      want: ["apply 0 ConfigMap/a skip: dependency scheduled for delete: app_old__ConfigMap", "delete 0 ConfigMap/old skip: dependent scheduled for apply: app_a__ConfigMap"],
    },
    {
      name: "on-remove: keep on the live object keeps it (and lets it go)",
      facts: facts({ live: [applied(cm("kept", { annotations: { "cli-utils.sigs.k8s.io/on-remove": "keep" } }))], previous: [cm("kept")] }),
      want: ['delete 0 ConfigMap/kept skip: annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")'],
    },
    {
      // kpt 1.0.0-beta.56 does the same: its objects are skipped while their Namespace is a prune candidate.
      name: "a Namespace the package still uses is not pruned, and what lives in it waits for it (as kpt)",
      facts: facts({ objects: [cm("a")], live: [applied(cm("app", { kind: "Namespace" }))], previous: [cm("app", { kind: "Namespace" })] }),
      want: ["apply 0 ConfigMap/a skip: dependency scheduled for delete: _app__Namespace", "delete 0 Namespace/app skip: namespace still in use: app"],
    },
    {
      name: "an object another inventory owns is refused (strict), named in kpt's words",
      facts: facts({ objects: [cm("a")], live: [applied(cm("a", { annotations: { [OWNING_INVENTORY_ANNOTATION]: "other" } }))] }),
      want: ['apply 0 ConfigMap/a skip: inventory policy prevented actuation (strategy: Apply, status: NoMatch, policy: MustMatch): it belongs to inventory "other"; remove it from one of the two packages, or take it over with --inventory-policy=force-adopt'],
    },
    {
      name: "an unowned object is taken over with adopt",
      facts: facts({ objects: [cm("a")], live: [applied(cm("a", { annotations: { [OWNING_INVENTORY_ANNOTATION]: "" } }))] }),
      opts: { inventoryPolicy: "adopt" },
      want: ["apply 0 ConfigMap/a update"],
    },
    {
      name: "a prune candidate that cannot be read stays in the plan, unreadable",
      facts: facts({ previous: [{ group: "", kind: "Secret", namespace: "app", name: "s" }], unreadable: [{ group: "", kind: "Secret", namespace: "app", name: "s" }] }),
      want: ["delete 0 Secret/s unreadable: configmaps is forbidden"],
    },
    {
      name: "server-side: unchanged when every field already has its value",
      facts: facts({
        objects: [cm("a")],
        live: [{ ...cm("a"), metadata: { ...cm("a").metadata, resourceVersion: "3", managedFields: [{ manager: "kubectl", operation: "Apply", fieldsV1: { "f:data": { "f:k": {} } } }] } }],
        previous: [cm("a")],
      }),
      opts: { serverSide: true },
      want: ["apply 0 ConfigMap/a unchanged"],
    },
    {
      name: "adopt still refuses an object another inventory owns",
      facts: facts({ objects: [cm("a")], live: [applied(cm("a", { annotations: { [OWNING_INVENTORY_ANNOTATION]: "other" } }))] }),
      opts: { inventoryPolicy: "adopt" },
      want: ['apply 0 ConfigMap/a skip: inventory policy prevented actuation (strategy: Apply, status: NoMatch, policy: AdoptIfNoInventory): it belongs to inventory "other"; remove it from one of the two packages, or take it over with --inventory-policy=force-adopt'],
    },
    {
      name: "force-adopt takes over an object another inventory owns",
      facts: facts({ objects: [cm("a")], live: [applied(cm("a", { annotations: { [OWNING_INVENTORY_ANNOTATION]: "other" } }))] }),
      opts: { inventoryPolicy: "force-adopt" },
      want: ["apply 0 ConfigMap/a update"],
    },
    {
      name: "a custom resource waits for the CRD the package defines",
      facts: facts({
        objects: [
          { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "app" } },
          { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "widgets.example.com" }, spec: { group: "example.com", names: { kind: "Widget", plural: "widgets" }, scope: "Namespaced", versions: [{ name: "v1", served: true, storage: true }] } },
        ],
      }),
      want: ["apply 0 CustomResourceDefinition/widgets.example.com create", "apply 1 Widget/w create"],
    },
    {
      name: "objects in a Namespace the package creates wait for it; independent objects share a wave in kind order",
      facts: facts({ objects: [cm("b"), { apiVersion: "v1", kind: "Service", metadata: { name: "s", namespace: "app" } }, cm("app", { kind: "Namespace" }), cm("a")] }),
      want: ["apply 0 Namespace/app create", "apply 1 ConfigMap/a create", "apply 1 ConfigMap/b create", "apply 1 Service/s create"],
    },
    {
      name: "server-side: an update when a value differs",
      facts: facts({
        objects: [cm("a", { data: { k: "new" } })],
        live: [{ ...cm("a"), metadata: { ...cm("a").metadata, resourceVersion: "3", managedFields: [{ manager: "kubectl", operation: "Apply", fieldsV1: { "f:data": { "f:k": {} } } }] } }],
        previous: [cm("a")],
      }),
      opts: { serverSide: true },
      want: ["apply 0 ConfigMap/a update"],
    },
    {
      name: "server-side: an update when another field manager applied it (ours must record its ownership)",
      facts: facts({
        objects: [cm("a")],
        live: [{ ...cm("a"), metadata: { ...cm("a").metadata, resourceVersion: "3", managedFields: [{ manager: "someone", operation: "Apply", fieldsV1: { "f:data": { "f:k": {} } } }] } }],
        previous: [cm("a")],
      }),
      opts: { serverSide: true },
      want: ["apply 0 ConfigMap/a update"],
    },
    {
      name: "client-side: the merge schema could not be read: an update, decided when the run patches",
      facts: { ...facts({ objects: [cm("a", { data: { k: "new" } })], live: [applied(cm("a"))], previous: [cm("a")] }), schemas: new Map([["v1/ConfigMap", new Error("openapi: forbidden")]]) },
      want: ["apply 0 ConfigMap/a update"],
    },
  ])("$name", ({ facts: f, opts, want }) => {
    expect(describePlan(planApply(f, { ...OPTS, ...opts }))).toEqual(want);
  });

  it("records every package object in the inventory before the first apply, unless it lists them already", () => {
    const first = planApply(facts({ objects: [cm("a"), cm("b")], live: [applied(cm("a"))], previous: [cm("a")] }), OPTS);
    expect(first.initialInventory?.map((r) => r.name).sort()).toEqual(["a", "b"]);
    const again = planApply(facts({ objects: [cm("a")], live: [applied(cm("a"))], previous: [cm("a")] }), OPTS);
    expect(again.initialInventory).toBeUndefined();
    expect(planChangesNothing(again)).toBe(true);
    expect(planChangesNothing(first)).toBe(false);
  });

  it("creates the inventory's Namespace first when the package defines it and it is missing", () => {
    const ns = cm("app", { kind: "Namespace" });
    expect(planApply(facts({ objects: [ns, cm("a")] }), OPTS).inventoryNamespace?.object).toBe(ns);
    expect(planApply(facts({ objects: [ns, cm("a")], live: [applied(ns)] }), OPTS).inventoryNamespace).toBeUndefined();
  });

  it("installs the ResourceGroup CRD when missing, and refuses without --install-resource-group (not in a dry run)", () => {
    expect(planApply(facts({ objects: [cm("a")], crd: false }), OPTS).installCrd).toBe(true);
    expect(() => planApply(facts({ objects: [cm("a")], crd: false }), { ...OPTS, installResourceGroup: false })).toThrow(ClusterError);
    expect(planApply(facts({ objects: [cm("a")], crd: false }), { ...OPTS, installResourceGroup: false, dryRun: true }).installCrd).toBe(true);
  });

  it("refuses a depends-on cycle in the package before anything is written, pointing at the annotation's line", () => {
    const f = facts({ objects: [cm("a", { dependsOn: "/namespaces/app/ConfigMap/b" }), cm("b", { dependsOn: "/namespaces/app/ConfigMap/a" })] });
    let err: unknown;
    try {
      planApply(f, OPTS);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PackageError);
    expect((err as PackageError).message).toMatch(/cyclic dependency/);
    expect((err as PackageError).message).toMatch(/a\.yaml:4/);
  });

  it("counts what the plan would change", () => {
    const plan = planApply(facts({ objects: [cm("a"), cm("b", { data: { k: "new" } })], live: [applied(cm("b")), applied(cm("old"))], previous: [cm("b"), cm("old")] }), OPTS);
    expect(countPlan(plan)).toEqual({ create: 1, update: 1, replace: 0, unchanged: 0, delete: 1, skip: 0 });
  });
});

describe("one object's decision, taken again when the plan no longer holds (plan/plan-object.ts)", () => {
  const a = cm("a", { data: { k: "new" } });
  const was = applied(cm("a"));
  const plan = planApply(facts({ objects: [a], live: [was], previous: [was] }), OPTS);
  const planned = plan.applies[0]!;
  const o = { serverSide: false, fieldManager: "kubectl", inventoryId: INV_ID, inventoryPolicy: "strict" as const };

  it.each<{ name: string; live: KubeObject | undefined; holds: boolean; want: string }>([
    { name: "the live object the plan read: the plan holds", live: was, holds: true, want: "update" },
    { name: "someone applied the same change since: unchanged", live: applied(a, (l) => (l.metadata.resourceVersion = "2")), holds: false, want: "unchanged" },
    { name: "another inventory took it: skipped by the inventory policy", live: applied(cm("a"), (l) => ((l.metadata.resourceVersion = "2"), (l.metadata.annotations![OWNING_INVENTORY_ANNOTATION] = "other"))), holds: false, want: "skip: inventory policy prevented actuation (strategy: Apply, status: NoMatch" },
    { name: "deleted since: created again", live: undefined, holds: false, want: "create" },
    { name: "deleted and made again (another uid): decided again", live: applied(cm("a"), (l) => (l.metadata.uid = "uid-other")), holds: false, want: "update" },
  ])("$name", ({ live, holds, want }) => {
    expect(planStillHolds(planned, live)).toBe(holds);
    const again = replanObject(planned, live, undefined, o);
    expect(again.skip ? `skip: ${again.skip}` : again.operation).toContain(want);
    expect(again.live).toBe(live);
  });
});

describe("planDestroy", () => {
  const destroyFacts = (live: KubeObject[], previous: KubeObject[]): DestroyFacts => ({
    inventory: { info: INFO, crdInstalled: true, stored: RG, previous: previous.map(refOf) },
    live: new Map(live.map((x) => [refKey(refOf(x)), x])),
    unreadable: new Map(),
  });

  it("deletes dependents first, objects in a Namespace before it, and forgets what is gone", () => {
    const ns = applied(cm("app", { kind: "Namespace" }));
    const db = applied(cm("db"));
    const web = applied(cm("web", { dependsOn: "/namespaces/app/ConfigMap/db" }));
    const plan = planDestroy(destroyFacts([ns, db, web], [ns, db, web, cm("gone")]), { inventoryPolicy: "strict" });
    expect(plan.deleteWaves.map((w) => w.map((r) => r.name))).toEqual([["web"], ["db"], ["app"]]);
    expect(plan.deletes.find((d) => d.ref.name === "db")!.dependents.map((r) => r.name)).toEqual(["web"]);
    expect(plan.deletes.find((d) => d.ref.name === "app")!.dependents.map((r) => r.name).sort()).toEqual(["db", "web"]);
  });

  it("keeps a protected object and an object of another inventory, with kpt's reasons", () => {
    const kept = applied(cm("kept", { annotations: { "client.lifecycle.config.k8s.io/deletion": "detach" } }));
    const theirs = applied(cm("theirs", { annotations: { [OWNING_INVENTORY_ANNOTATION]: "other" } }));
    const plan = planDestroy(destroyFacts([kept, theirs], [kept, theirs]), { inventoryPolicy: "strict" });
    const reasons = Object.fromEntries(plan.deletes.map((d) => [d.ref.name, d.decision.action === "skip" ? d.decision.reason : "delete"]));
    expect(reasons.kept).toMatch(/annotation prevents deletion/);
    expect(reasons.theirs).toMatch(/inventory policy prevented actuation \(strategy: Delete, status: NoMatch/);
  });
});
