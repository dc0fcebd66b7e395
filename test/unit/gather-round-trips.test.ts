// Issue 17: at a distance, every sequential request costs a round trip. Gathering an apply's
// facts reads the inventory while discovery is on its way, and lists the package's objects
// without waiting for the inventory: discovery and the inventory, then the objects, is two round
// trips where it was three. A fake cluster whose answers wait until released shows the order.
import { describe, expect, it } from "vitest";
import type { Cluster, ListResult } from "../../src/cluster/types.js";
import type { ObjRef } from "../../src/model/ref.js";
import type { InventoryInfo, KubeObject, Package } from "../../src/model/kube-object.js";
import { gatherApplyFacts } from "../../src/plan/gather.js";

const INFO: InventoryInfo = { name: "inv", namespace: "app", id: "inv-1", labels: {}, annotations: {}, origin: "resourcegroup", source: { file: "resourcegroup.yaml", line: 1 } };

function deferred(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

describe("gathering an apply's facts", () => {
  it("asks for discovery, the inventory and (once discovery answers) the live objects without waiting for each other", async () => {
    const log: string[] = [];
    const discovery = deferred();
    const inventory = deferred();
    const stored: KubeObject = { apiVersion: "kpt.dev/v1alpha1", kind: "ResourceGroup", metadata: { name: "inv", namespace: "app", labels: { "cli-utils.sigs.k8s.io/inventory-id": "inv-1" } }, spec: { resources: [{ group: "", kind: "ConfigMap", namespace: "app", name: "old" }] } };
    const cluster = {
      defaultNamespace: "app",
      namespaceEnforced: false,
      server: "https://example",
      async scopeOf() {
        log.push("discovery asked");
        await discovery.promise;
        return "Namespaced" as const;
      },
      async serves() {
        await discovery.promise;
        return true;
      },
      async get(ref: ObjRef) {
        log.push(`get ${ref.kind}`);
        await inventory.promise;
        log.push(`got ${ref.kind}`);
        return stored;
      },
      async list(_g: string, kind: string): Promise<ListResult> {
        log.push(`list ${kind}`);
        return { items: [], resourceVersion: "1" };
      },
      watch: async function* (_q: unknown, signal: AbortSignal) {
        await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      },
      async openapi() {
        return undefined;
      },
    } as unknown as Cluster;
    const pkg: Package = {
      path: "pkg",
      inventory: INFO,
      objects: [1, 2, 3].map((i) => ({ object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` }, data: { k: "v" } }, source: { file: "cm.yaml", line: i }, lineOf: () => i })),
    };

    const gathering = gatherApplyFacts(pkg, cluster, { serverSide: true });
    await new Promise((r) => setTimeout(r, 10));
    // Discovery has not answered: the inventory is already being read.
    expect(log).toEqual(expect.arrayContaining(["discovery asked", "get ResourceGroup"]));
    expect(log.some((l) => l.startsWith("list"))).toBe(false);
    discovery.release();
    await new Promise((r) => setTimeout(r, 10));
    // Discovery answered, the inventory has not: the package's objects are listed already.
    expect(log).toContain("list ConfigMap");
    expect(log).not.toContain("got ResourceGroup");
    inventory.release();
    const { facts, cache } = await gathering;
    cache.close();
    expect(facts.inventory.previous.map((r) => r.name)).toEqual(["old"]);
    expect(facts.objects.map((po) => po.object.metadata.namespace)).toEqual(["app", "app", "app"]);
  });
});
