// The pure rules behind what a run keeps in the inventory and what it may delete, as named
// tables: kpt's inventory set rule after a run, the inventory policy's table (who may touch an
// object), the prune filters in kpt's order, the candidates, and the delete half of a plan.

import { describe, expect, it } from "vitest";
import { nextInventory, type RunOutcome } from "../../src/inventory/next-inventory.js";
import { ownershipOf, policyRefusal, type InventoryPolicy, type Ownership } from "../../src/inventory/policy.js";
import { OWNING_INVENTORY_ANNOTATION } from "../../src/model/inventory-keys.js";
import { refKey, RefSet, type ObjRef } from "../../src/model/ref.js";
import type { KubeObject } from "../../src/model/kube-object.js";
import { invertDependencies, planDeletes } from "../../src/plan/plan-deletes.js";
import { pruneCandidates, stillThere } from "../../src/prune/candidates.js";
import { decidePrune, type PruneContext } from "../../src/prune/prune-filters.js";

const r = (name: string, kind = "ConfigMap"): ObjRef => ({ group: "", kind, namespace: kind === "Namespace" ? "" : "app", name });
const names = (refs: Iterable<ObjRef>) => [...refs].map((x) => x.name).sort();

describe("nextInventory: everything that may still exist stays listed (kpt's rule)", () => {
  const none = { applied: [], notApplied: [], notDeleted: [], abandoned: [] };
  it.each<{ name: string; run: Partial<RunOutcome> & { previous: ObjRef[] }; want: string[] }>([
    { name: "a first apply lists what it applied", run: { ...none, previous: [], applied: [r("a"), r("b")] }, want: ["a", "b"] },
    { name: "a new object whose apply failed is not listed (it does not exist)", run: { ...none, previous: [], applied: [r("a")], notApplied: [r("b")] }, want: ["a"] },
    { name: "a listed object whose apply failed stays listed", run: { ...none, previous: [r("a"), r("b")], applied: [r("a")], notApplied: [r("b")] }, want: ["a", "b"] },
    { name: "a pruned object leaves the list", run: { ...none, previous: [r("a"), r("old")], applied: [r("a")] }, want: ["a"] },
    { name: "a prune that failed, was skipped or timed out keeps the object listed", run: { ...none, previous: [r("a"), r("old")], applied: [r("a")], notDeleted: [r("old")] }, want: ["a", "old"] },
    { name: "an object let go (on-remove: keep) leaves the list", run: { ...none, previous: [r("a"), r("kept")], applied: [r("a")], abandoned: [r("kept")] }, want: ["a"] },
    { name: "an object let go leaves the list even when also reported not deleted", run: { ...none, previous: [r("kept")], notDeleted: [r("kept")], abandoned: [r("kept")] }, want: [] },
    { name: "a destroy that deleted everything leaves an empty list", run: { ...none, previous: [r("a"), r("b")] }, want: [] },
    { name: "not-deleted objects the inventory never listed are not added", run: { ...none, previous: [], notDeleted: [r("stranger")] }, want: [] },
  ])("$name", ({ run, want }) => {
    expect(names(nextInventory({ ...none, ...run }))).toEqual(want);
  });
});

describe("inventory policy: who may touch a live object", () => {
  const live = (owner?: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", ...(owner !== undefined ? { annotations: { [OWNING_INVENTORY_ANNOTATION]: owner } } : {}) } });
  it.each<{ owner?: string; want: Ownership }>([{ want: "Empty" }, { owner: "", want: "Empty" }, { owner: "ours", want: "Match" }, { owner: "theirs", want: "NoMatch" }])(
    "owning-inventory $owner is $want",
    ({ owner, want }) => expect(ownershipOf(live(owner), "ours")).toBe(want),
  );

  // kpt's table (cli-utils inventory.CanApply / CanPrune): the one filter, refusing in kpt's words.
  const owners: Record<Ownership, string | undefined> = { Match: "ours", Empty: undefined, NoMatch: "theirs" };
  it.each<[Ownership, InventoryPolicy, boolean]>([
    ["Match", "strict", true],
    ["Match", "adopt", true],
    ["Match", "force-adopt", true],
    ["Empty", "strict", false],
    ["Empty", "adopt", true],
    ["Empty", "force-adopt", true],
    ["NoMatch", "strict", false],
    ["NoMatch", "adopt", false],
    ["NoMatch", "force-adopt", true],
  ])("%s under %s: allowed %s", (ownership, policy, want) => {
    for (const strategy of ["Apply", "Delete"] as const) {
      const refused = policyRefusal(live(owners[ownership]), "ours", policy, strategy);
      if (want) expect(refused).toBeUndefined();
      else expect(refused).toMatch(new RegExp(`^inventory policy prevented actuation \\(strategy: ${strategy}, status: ${ownership}, policy: \\w+\\)`));
    }
  });
});

describe("prune filters, in kpt's order", () => {
  const ctx: PruneContext = { inventoryId: "ours", policy: "strict", strategy: "Delete", namespacesInUse: new Set(["app"]) };
  const obj = (name: string, kind = "ConfigMap", annotations: Record<string, string> = { [OWNING_INVENTORY_ANNOTATION]: "ours" }): KubeObject => ({
    apiVersion: "v1",
    kind,
    metadata: { name, ...(kind === "Namespace" ? {} : { namespace: "app" }), annotations },
  });
  const decide = (o: KubeObject, c: Partial<PruneContext> = {}) => {
    const d = decidePrune({ group: "", kind: o.kind, namespace: o.metadata.namespace ?? "", name: o.metadata.name! }, o, { ...ctx, ...c });
    return d.action === "delete" ? "delete" : `${d.abandon ? "abandon" : "skip"}: ${d.reason}`;
  };

  it.each<{ name: string; object: KubeObject; ctx?: Partial<PruneContext>; want: string }>([
    { name: "ours, unprotected: deleted", object: obj("a"), want: "delete" },
    { name: "on-remove: keep: kept and let go", object: obj("a", "ConfigMap", { [OWNING_INVENTORY_ANNOTATION]: "ours", "cli-utils.sigs.k8s.io/on-remove": "keep" }), want: 'abandon: annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")' },
    { name: "deletion: detach: kept and let go", object: obj("a", "ConfigMap", { [OWNING_INVENTORY_ANNOTATION]: "ours", "client.lifecycle.config.k8s.io/deletion": "detach" }), want: 'abandon: annotation prevents deletion ("client.lifecycle.config.k8s.io/deletion": "detach")' },
    { name: "another on-remove value protects nothing", object: obj("a", "ConfigMap", { [OWNING_INVENTORY_ANNOTATION]: "ours", "cli-utils.sigs.k8s.io/on-remove": "delete" }), want: "delete" },
    {
      name: "protection is checked before ownership: another inventory's protected object is let go, not refused",
      object: obj("a", "ConfigMap", { [OWNING_INVENTORY_ANNOTATION]: "theirs", "cli-utils.sigs.k8s.io/on-remove": "keep" }),
      want: 'abandon: annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")',
    },
    {
      name: "another inventory's object: refused, stays theirs",
      object: obj("a", "ConfigMap", { [OWNING_INVENTORY_ANNOTATION]: "theirs" }),
      want: 'skip: inventory policy prevented actuation (strategy: Delete, status: NoMatch, policy: MustMatch): it belongs to inventory "theirs"; remove it from one of the two packages, or take it over with --inventory-policy=force-adopt',
    },
    { name: "an unowned object is not deleted under strict", object: obj("a", "ConfigMap", {}), want: "skip: inventory policy prevented actuation (strategy: Delete, status: Empty, policy: MustMatch): no inventory owns it, so it is not deleted" },
    { name: "an unowned object is deleted under adopt", object: obj("a", "ConfigMap", {}), ctx: { policy: "adopt" }, want: "delete" },
    { name: "another inventory's object is deleted under force-adopt", object: obj("a", "ConfigMap", { [OWNING_INVENTORY_ANNOTATION]: "theirs" }), ctx: { policy: "force-adopt" }, want: "delete" },
    { name: "a Namespace the package still uses is kept", object: obj("app", "Namespace"), want: "skip: namespace still in use: app" },
    { name: "a Namespace no longer used is deleted", object: obj("old", "Namespace"), want: "delete" },
    { name: "destroy passes no namespaces in use: the Namespace is deleted", object: obj("app", "Namespace"), ctx: { namespacesInUse: undefined }, want: "delete" },
  ])("$name", ({ object, ctx: c, want }) => expect(decide(object, c)).toBe(want));
});

describe("prune candidates", () => {
  it.each<{ name: string; previous: string[]; pkg: string[]; live: string[]; unreadable?: string[]; want: string[] }>([
    { name: "what left the package and still exists", previous: ["a", "b", "c"], pkg: ["a"], live: ["a", "b", "c"], want: ["b", "c"] },
    { name: "one already gone is forgotten", previous: ["a", "b"], pkg: [], live: ["a"], want: ["a"] },
    { name: "one that cannot be read is kept, never taken for gone", previous: ["a", "b"], pkg: [], live: [], unreadable: ["b"], want: ["b"] },
    { name: "nothing left the package: nothing to prune", previous: ["a"], pkg: ["a", "new"], live: ["a"], want: [] },
  ])("$name", ({ previous, pkg, live, unreadable, want }) => {
    const candidates = pruneCandidates(previous.map((n) => r(n)), new RefSet(pkg.map((n) => r(n))));
    const present = stillThere(candidates, new Map(live.map((n) => [refKey(r(n)), true])), new Map((unreadable ?? []).map((n) => [refKey(r(n)), "forbidden"])));
    expect(names(present)).toEqual(want);
  });
});

describe("the delete half of a plan (prune and destroy)", () => {
  const live = (ref: ObjRef, o: { dependsOn?: string; kind?: string; spec?: unknown } = {}): KubeObject => ({
    apiVersion: ref.kind === "CustomResourceDefinition" ? "apiextensions.k8s.io/v1" : ref.group ? `${ref.group}/v1` : "v1",
    kind: ref.kind,
    metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}), annotations: { [OWNING_INVENTORY_ANNOTATION]: "ours", ...(o.dependsOn ? { "config.kubernetes.io/depends-on": o.dependsOn } : {}) } },
    ...(o.spec ? { spec: o.spec } : {}),
  });
  const crd: ObjRef = { group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", namespace: "", name: "widgets.example.com" };
  const widget: ObjRef = { group: "example.com", kind: "Widget", namespace: "app", name: "w" };
  const ns = r("app", "Namespace");

  function plan(objs: KubeObject[], extra: { unreadable?: ObjRef[]; appliedDependents?: Map<string, ObjRef[]> } = {}) {
    const refs = [...objs.map((o) => ({ group: o.apiVersion.includes("/") ? o.apiVersion.split("/")[0]! : "", kind: o.kind, namespace: o.metadata.namespace ?? "", name: o.metadata.name! })), ...(extra.unreadable ?? [])];
    const out = planDeletes({
      refs,
      live: new Map(objs.map((o, i) => [refKey(refs[i]!), o])),
      unreadable: new Map((extra.unreadable ?? []).map((u) => [refKey(u), "forbidden"])),
      inventoryId: "ours",
      policy: "strict",
      ...(extra.appliedDependents ? { appliedDependents: extra.appliedDependents } : {}),
    });
    return out;
  }

  it.each<{ name: string; objects: () => KubeObject[]; unreadable?: ObjRef[]; want: string[][] }>([
    { name: "unrelated objects: one wave", objects: () => [live(r("a")), live(r("b"))], want: [["a", "b"]] },
    { name: "a chain of depends-on: one wave per level, dependents first", objects: () => [live(r("a")), live(r("b"), { dependsOn: "/namespaces/app/ConfigMap/a" }), live(r("c"), { dependsOn: "/namespaces/app/ConfigMap/b" })], want: [["c"], ["b"], ["a"]] },
    { name: "objects in a Namespace go before it", objects: () => [live(ns), live(r("a"))], want: [["a"], ["app"]] },
    {
      name: "custom resources go before their CRD",
      objects: () => [live(crd, { spec: { group: "example.com", names: { kind: "Widget" } } }), live(widget)],
      want: [["w"], ["widgets.example.com"]],
    },
    { name: "an object that cannot be read has no known edges: it goes in the first wave", objects: () => [live(r("a"))], unreadable: [r("secret", "Secret")], want: [["a", "secret"]] },
  ])("$name", ({ objects, unreadable, want }) => {
    expect(plan(objects(), { unreadable }).waves.map((w) => names(w))).toEqual(want);
  });

  it("each planned delete knows the deleted objects that depend on it, and a package object that does keeps it", () => {
    const objs = [live(r("a")), live(r("b"), { dependsOn: "/namespaces/app/ConfigMap/a" })];
    const withoutApply = plan(objs);
    expect(withoutApply.deletes.map((d) => [d.ref.name, names(d.dependents), d.decision.action])).toEqual([
      ["b", [], "delete"],
      ["a", ["b"], "delete"],
    ]);
    const kept = plan(objs, { appliedDependents: new Map([[refKey(r("a")), [r("web", "Deployment")]]]) });
    expect(kept.deletes.find((d) => d.ref.name === "a")?.decision).toEqual({ action: "skip", reason: "dependent scheduled for apply: app_web__Deployment", abandon: false });
  });

  it("turns `depends on` around into `depended on by`, only for the given objects", () => {
    const deps = new Map([
      [refKey(r("b")), [r("a")]],
      [refKey(r("c")), [r("a"), r("b")]],
      [refKey(r("outside")), [r("a")]],
    ]);
    const inverted = invertDependencies(deps, [r("a"), r("b"), r("c")]);
    expect(names(inverted.get(refKey(r("a"))) ?? [])).toEqual(["b", "c"]);
    expect(names(inverted.get(refKey(r("b"))) ?? [])).toEqual(["c"]);
    expect(inverted.has(refKey(r("c")))).toBe(false);
  });
});
