// Issue 4: prune. kpt's book example, the order of deletions, the propagation policy, and what
// must never be deleted: objects annotated to be kept or detached, and a Namespace still in use.
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs, kubectl, kubectlJson, waitUntil } from "../helpers/run.js";
import {
  clusterInventory,
  configMap,
  deployment,
  getObject,
  inventoryRefs,
  lines,
  namespaceObject,
  printed,
  readInventoryFile,
  ref,
  resourceVersions,
  service,
  uniqueName,
} from "../helpers/scenario.js";

const apply = (dir: string, ...args: string[]) => kptTs(["live", "apply", "--reconcile-timeout=2m", ...args, dir]);

async function initPackage(prefix: string, files: (ns: string) => Record<string, string>): Promise<{ ns: string; dir: string }> {
  const ns = await createNamespace(prefix);
  const dir = await writePackage(files(ns));
  // The inventory lives in the test's namespace even when the package spans several.
  const init = await kptTs(["live", "init", "--namespace", ns, dir]);
  if (init.code !== 0) throw new Error(`init: ${printed(init)}`);
  return { ns, dir };
}

describe("kpt-ts live apply prunes", () => {
  it("kpt's book example: config-map-1 replaced by config-map-2 is created, config-map-1 pruned, the rest unchanged", async () => {
    const { ns, dir } = await initPackage("e2e-prune-book", (ns) => ({
      "service.yaml": service("service-1", ns),
      "deployment.yaml": deployment("deployment-1", ns),
      "config-map.yaml": configMap("config-map-1", ns),
    }));
    const first = await apply(dir);
    expect(first.code, printed(first)).toBe(0);
    expect(inventoryRefs(await clusterInventory(dir))).toEqual(
      [ref("", "Service", ns, "service-1"), ref("apps", "Deployment", ns, "deployment-1"), ref("", "ConfigMap", ns, "config-map-1")].sort(),
    );

    await writeFile(join(dir, "config-map.yaml"), configMap("config-map-2", ns));
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(0);
    const out = lines(r);
    for (const l of ["configmap/config-map-2 created", "service/service-1 unchanged", "deployment.apps/deployment-1 unchanged", "configmap/config-map-1 pruned"]) {
      expect(out, printed(r)).toContain(l);
    }
    expect(out).toContain("3 resource(s) applied. 1 created, 2 unchanged, 0 configured, 0 failed");
    expect(out).toContain("1 resource(s) pruned, 0 skipped, 0 failed");
    // Prune comes after every apply.
    expect(out.indexOf("configmap/config-map-1 pruned")).toBeGreaterThan(out.indexOf("configmap/config-map-2 created"));
    expect(await getObject("configmap", "config-map-1", ns)).toBeUndefined();
    expect(await getObject("configmap", "config-map-2", ns)).toBeDefined();
    expect(inventoryRefs(await clusterInventory(dir))).toEqual(
      [ref("", "Service", ns, "service-1"), ref("apps", "Deployment", ns, "deployment-1"), ref("", "ConfigMap", ns, "config-map-2")].sort(),
    );
  });

  it("prunes dependents first: the objects in a Namespace before the Namespace", async () => {
    const extra = uniqueName("e2e-prune-order-ns");
    const { ns, dir } = await initPackage("e2e-prune-order", (ns) => ({
      "keep.yaml": configMap("stays", ns),
      "extra-ns.yaml": namespaceObject(extra),
      "extra-cm.yaml": configMap("inside", extra),
    }));
    expect((await apply(dir)).code).toBe(0);
    await rm(join(dir, "extra-ns.yaml"));
    await rm(join(dir, "extra-cm.yaml"));
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(0);
    const out = lines(r);
    expect(out).toContain("configmap/inside pruned");
    expect(out).toContain(`namespace/${extra} pruned`);
    expect(out.indexOf("configmap/inside pruned")).toBeLessThan(out.indexOf(`namespace/${extra} pruned`));
    expect(out).toContain("2 resource(s) pruned, 0 skipped, 0 failed");
    await waitUntil("the namespace to be gone", async () => (await getObject("namespace", extra)) === undefined);
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "stays")]);
  });

  it("--prune-propagation-policy=Orphan leaves a pruned Deployment's ReplicaSet behind", async () => {
    const { ns, dir } = await initPackage("e2e-prune-orphan", (ns) => ({ "d.yaml": deployment("web", ns), "cm.yaml": configMap("stays", ns) }));
    expect((await apply(dir)).code).toBe(0);
    const rsBefore = await kubectlJson<{ items: { metadata: { name: string } }[] }>(["get", "replicasets", "-n", ns, "-l", "app=web"]);
    expect(rsBefore.items).toHaveLength(1);
    await rm(join(dir, "d.yaml"));
    const r = await apply(dir, "--prune-propagation-policy=Orphan", "--prune-timeout=1m");
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain("deployment.apps/web pruned");
    expect(await getObject("deployment", "web", ns)).toBeUndefined();
    // Give the garbage collector time to (wrongly) take it.
    await new Promise((res) => setTimeout(res, 3000));
    const rs = await getObject("replicaset", rsBefore.items[0]!.metadata.name, ns);
    expect(rs).toBeDefined();
    expect(rs?.metadata.ownerReferences ?? []).toEqual([]);
  });

  it("rejects an unknown --prune-propagation-policy before touching anything", async () => {
    const { ns, dir } = await initPackage("e2e-prune-badpolicy", (ns) => ({ "cm.yaml": configMap("c", ns) }));
    const r = await apply(dir, "--prune-propagation-policy=Sometimes");
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(3);
    expect(r.stderr).toContain("prune propagation policy must be one of Background, Foreground, Orphan");
    expect(await clusterInventory(dir)).toBeUndefined();
    expect(await getObject("configmap", "c", ns)).toBeUndefined();
  });
});

describe("prune protection", () => {
  const annotations = [
    ["cli-utils.sigs.k8s.io/on-remove", "keep"],
    ["client.lifecycle.config.k8s.io/deletion", "detach"],
  ] as const;

  it.each(annotations)("%s: %s in the package: prune skipped, object kept, no longer owned, dropped from the inventory", async (key, value) => {
    const { ns, dir } = await initPackage("e2e-prune-keep", (ns) => ({
      "kept.yaml": configMap("kept", ns, { k: "v" }, { annotations: { [key]: value } }),
      "plain.yaml": configMap("plain", ns),
    }));
    expect((await apply(dir)).code).toBe(0);
    const inv = await readInventoryFile(dir);
    expect((await getObject("configmap", "kept", ns))?.metadata.annotations?.["config.k8s.io/owning-inventory"]).toBe(inv.id);

    await rm(join(dir, "kept.yaml"));
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain(`configmap/kept prune skipped: annotation prevents deletion ("${key}": "${value}")`);
    expect(lines(r)).toContain("0 resource(s) pruned, 1 skipped, 0 failed");
    const kept = await getObject("configmap", "kept", ns);
    expect(kept?.data).toEqual({ k: "v" });
    expect(kept?.metadata.annotations?.[key]).toBe(value);
    expect(kept?.metadata.annotations?.["config.k8s.io/owning-inventory"]).toBeUndefined();
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "plain")]);

    // Abandoned for good: the next apply does not mention it, and it is still there.
    const again = await apply(dir);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("configmap/kept");
    expect(await getObject("configmap", "kept", ns)).toBeDefined();
  });

  it("on-remove: keep set on the live object only (not in the package) also prevents the prune", async () => {
    const { ns, dir } = await initPackage("e2e-prune-live-keep", (ns) => ({ "a.yaml": configMap("a", ns), "b.yaml": configMap("b", ns) }));
    expect((await apply(dir)).code).toBe(0);
    expect((await kubectl(["annotate", "configmap", "a", "-n", ns, "cli-utils.sigs.k8s.io/on-remove=keep"])).code).toBe(0);
    await rm(join(dir, "a.yaml"));
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain('configmap/a prune skipped: annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")');
    expect(await getObject("configmap", "a", ns)).toBeDefined();
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "b")]);
  });

  it("--dry-run reports the skip but leaves the object owned and in the inventory", async () => {
    const { ns, dir } = await initPackage("e2e-prune-keep-dry", (ns) => ({
      "kept.yaml": configMap("kept", ns, { k: "v" }, { annotations: { "cli-utils.sigs.k8s.io/on-remove": "keep" } }),
      "plain.yaml": configMap("plain", ns),
    }));
    expect((await apply(dir)).code).toBe(0);
    await rm(join(dir, "kept.yaml"));
    const before = await resourceVersions(ns);
    const r = await kptTs(["live", "apply", "--dry-run", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain('configmap/kept prune skipped: annotation prevents deletion ("cli-utils.sigs.k8s.io/on-remove": "keep")');
    expect(await resourceVersions(ns)).toEqual(before);
  });

  it("a Namespace still in use is not pruned", async () => {
    const extra = uniqueName("e2e-prune-inuse-ns");
    const { ns, dir } = await initPackage("e2e-prune-inuse", (ns) => ({
      "own.yaml": configMap("own", ns),
      "extra-ns.yaml": namespaceObject(extra),
      "extra-cm.yaml": configMap("inside", extra),
    }));
    expect((await apply(dir)).code).toBe(0);
    // The Namespace leaves the package, an object in it stays.
    await rm(join(dir, "extra-ns.yaml"));
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain(`namespace/${extra} prune skipped: namespace still in use: ${extra}`);
    expect(lines(r)).toContain("0 resource(s) pruned, 1 skipped, 0 failed");
    const live = await getObject("namespace", extra);
    expect(live?.status?.phase).toBe("Active");
    expect(live?.metadata.deletionTimestamp).toBeUndefined();
    expect(await getObject("configmap", "inside", extra)).toBeDefined();
    // As in cli-utils, a skipped prune keeps the object in the inventory.
    expect(inventoryRefs(await clusterInventory(dir))).toContain(ref("", "Namespace", "", extra));
  });

  it("the inventory's own Namespace is not pruned while the inventory lives in it", async () => {
    const home = uniqueName("e2e-prune-home");
    const dir = await writePackage({ "ns.yaml": namespaceObject(home), "cm.yaml": configMap("c", home) });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);
    expect((await readInventoryFile(dir)).namespace).toBe(home);
    expect((await apply(dir)).code).toBe(0);
    await rm(join(dir, "ns.yaml"));
    const r = await apply(dir);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain(`namespace/${home} prune skipped: namespace still in use: ${home}`);
    expect((await getObject("namespace", home))?.status?.phase).toBe("Active");
    expect(await clusterInventory(dir)).toBeDefined();
  });
});
