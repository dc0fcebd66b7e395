// Issue 30: a CRD's finalizer lists its custom resources as the first request for their kind, which
// a Kubernetes 1.34+ API server refuses while it fills that kind's watch cache ("storage is
// (re)initializing"), and it then backs off, once for three minutes. A delete of a CRD reads its
// custom resources first (one item, metadata), so the cache is ready when the finalizer asks.

import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/model/kube-object.js";
import { configMap, describeEvents, namespace, pkg, rollOutDeployments, runApply, runDestroy } from "../helpers/engine-run.js";
import { MemoryCluster, type Call } from "../helpers/memory-cluster.js";

const widgetCrd: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: { group: "example.com", scope: "Namespaced", names: { kind: "Widget", plural: "widgets" }, versions: [{ name: "v1", served: true, storage: true }] },
};
const gadgetCrd: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.com" },
  spec: { group: "example.com", scope: "Cluster", names: { kind: "Gadget", plural: "gadgets" }, versions: [{ name: "v1", served: true, storage: true }] },
};
const cm = configMap("config");

async function applied(...objects: KubeObject[]): Promise<MemoryCluster> {
  const c = rollOutDeployments(new MemoryCluster()).seed(namespace());
  const r = await runApply(c, pkg(...objects));
  if (r.error) throw new Error(`setup apply failed: ${describeEvents(r.events).join("\n")}`);
  c.calls.length = 0;
  return c;
}

/** The reads of custom resources and the deletes, in order: `list Widget`, `delete CustomResourceDefinition/widgets.example.com`. */
const crdCalls = (calls: Call[]) =>
  calls.filter((x) => (x.verb === "list" && x.ref.group === "example.com") || (x.verb === "delete" && x.ref.kind !== "Lease" && x.ref.kind !== "ResourceGroup")).map((x) => (x.verb === "list" ? `list ${x.ref.kind}` : `delete ${x.ref.kind}/${x.ref.name}`));

describe("a CRD's custom resources are read before the CRD is deleted", () => {
  it("destroy: each CRD's kind is listed before its delete; other objects are deleted as before", async () => {
    const c = await applied(widgetCrd, gadgetCrd, cm);
    const r = await runDestroy(c, pkg(widgetCrd, gadgetCrd, cm));
    expect(r.error).toBeUndefined();
    const calls = crdCalls(c.calls);
    expect(calls.filter((x) => x.startsWith("delete ConfigMap"))).toEqual(["delete ConfigMap/config"]);
    for (const [kind, name] of [["Widget", "widgets.example.com"], ["Gadget", "gadgets.example.com"]] as const) {
      expect(calls).toContain(`list ${kind}`);
      expect(calls.indexOf(`list ${kind}`)).toBeLessThan(calls.indexOf(`delete CustomResourceDefinition/${name}`));
    }
    expect(c.peek({ group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", namespace: "", name: "widgets.example.com" })).toBeUndefined();
  });

  it("apply's prune of a CRD reads its custom resources first too", async () => {
    const c = await applied(widgetCrd, cm);
    const r = await runApply(c, pkg(cm));
    expect(r.error).toBeUndefined();
    expect(crdCalls(c.calls)).toEqual(["list Widget", "delete CustomResourceDefinition/widgets.example.com"]);
  });

  it("a dry run reads nothing more, and a CRD that is not deleted is not read", async () => {
    const c = await applied(widgetCrd, cm);
    for (const dryRun of ["client", "server"] as const) expect((await runDestroy(c, pkg(widgetCrd, cm), { dryRun })).error).toBeUndefined();
    expect(crdCalls(c.calls).filter((x) => x.startsWith("list"))).toEqual([]);
    // Another inventory owns it now: skipped, so not read.
    await c.patch({ group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", namespace: "", name: "widgets.example.com" }, { metadata: { annotations: { "config.k8s.io/owning-inventory": "theirs" } } }, "merge");
    c.calls.length = 0;
    const r = await runDestroy(c, pkg(widgetCrd, cm));
    expect(describeEvents(r.events).some((e) => e.startsWith("delete Skipped CustomResourceDefinition/widgets.example.com: inventory policy prevented actuation"))).toBe(true);
    expect(crdCalls(c.calls)).toEqual(["delete ConfigMap/config"]);
  });
});

