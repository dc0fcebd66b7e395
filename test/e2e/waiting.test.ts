// Issue 16, waiting as users ask: `live apply --wait=false` returns right after its writes and
// prunes (kpt#4599); `--rg-file` keeps a stream's inventory in a file of its own, through apply,
// status and destroy (kpt#4580).
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { parseJsonEvents } from "../helpers/json-events.js";
import { createNamespace, kptTs } from "../helpers/run.js";
import { clusterInventory, configMap, docs, getObject, inventoryRefs, lines, printed, readInventoryFile, ref, uniqueName } from "../helpers/scenario.js";

/** A Deployment whose Pod no node accepts: it never becomes Available. */
function stuckDeployment(name: string, ns: string): string {
  return stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { nodeSelector: { "kpt-ts.dev/no-such-node": "true" }, containers: [{ name: "main", image: "nginx:1.25" }] } },
    },
  });
}

const dependsOn = (ns: string, name: string) => ({ annotations: { "config.kubernetes.io/depends-on": `apps/namespaces/${ns}/Deployment/${name}` } });

describe("live apply --wait=false", () => {
  it("writes, gates depends-on on the writes alone, prunes, and returns while the Deployment is still unavailable", async () => {
    const ns = await createNamespace("e2e-nowait");
    const dir = await writePackage({
      "deploy.yaml": stuckDeployment("stuck", ns),
      "after.yaml": configMap("after", ns, { k: "v" }, dependsOn(ns, "stuck")),
      "gone.yaml": configMap("gone", ns),
    });
    expect((await kptTs(["live", "init", dir])).code).toBe(0);

    const r = await kptTs(["live", "apply", "--wait=false", dir]);
    expect(r.code, printed(r)).toBe(0);
    const out = lines(r);
    expect(out).toContain("deployment.apps/stuck created");
    // The dependent followed its dependency's write: no reconcile in between.
    expect(out.indexOf("configmap/after created")).toBeGreaterThan(out.indexOf("deployment.apps/stuck created"));
    expect(out).toContain("3 resource(s) applied. 3 created, 0 unchanged, 0 configured, 0 failed");
    expect(out).toContain("0 resource(s) pruned, 0 skipped, 0 failed");
    expect(out.filter((l) => /reconcile/.test(l)), printed(r)).toEqual([]);
    // Returned without waiting: the Deployment has no available replica.
    const stuck = await getObject("deployment", "stuck", ns);
    expect(stuck?.status?.availableReplicas ?? 0).toBe(0);
    expect(inventoryRefs(await clusterInventory(dir))).toEqual(
      [ref("apps", "Deployment", ns, "stuck"), ref("", "ConfigMap", ns, "after"), ref("", "ConfigMap", ns, "gone")].sort(),
    );
    const statuses = (await clusterInventory(dir))?.status?.resourceStatuses as { name: string; actuation: string; reconcile: string }[];
    expect(statuses.map((s) => `${s.name} ${s.actuation} ${s.reconcile}`).sort()).toEqual(["after Succeeded Pending", "gone Succeeded Pending", "stuck Succeeded Pending"]);

    // A prune without waiting, in JSON: no wait group, no wait event; the pruned object leaves the inventory.
    await rm(join(dir, "gone.yaml"));
    const pruned = await kptTs(["live", "apply", "--wait=false", "--output", "json", dir]);
    expect(pruned.code, printed(pruned)).toBe(0);
    const events = parseJsonEvents(pruned.stdout);
    expect(events.filter((e) => e.type === "wait" || e.action === "Wait")).toEqual([]);
    expect(events.filter((e) => e.type === "prune").map((e) => `${String(e.name)} ${String(e.status)}`)).toEqual(["gone Successful"]);
    expect(events.filter((e) => e.type === "summary").map((e) => e.action)).toEqual(["Apply", "Prune"]);
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("apps", "Deployment", ns, "stuck"), ref("", "ConfigMap", ns, "after")].sort());

    // The same package, waiting (briefly): the stuck dependency now holds its dependent, as in kpt.
    const waited = await kptTs(["live", "apply", "--reconcile-timeout=2s", dir]);
    expect(waited.code, printed(waited)).toBe(3);
    expect(waited.stdout).toMatch(/^deployment.apps\/stuck reconcile timeout/m);
    expect(waited.stdout).toMatch(/configmap\/after apply skipped: dependency apply reconcile timeout/);
  });

  it("applies a CRD and its custom resource in one run: the custom resource waits only for its kind to be served", async () => {
    for (let round = 0; round < 3; round++) {
      const ns = await createNamespace("e2e-nowait-crd");
      const group = `${ns}.example.com`;
      const crd = stringify({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: `gadgets.${group}` },
        spec: {
          group,
          names: { kind: "Gadget", listKind: "GadgetList", plural: "gadgets", singular: "gadget" },
          scope: "Namespaced",
          versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
        },
      });
      const dir = await writePackage({ "crd.yaml": crd, "gadget.yaml": stringify({ apiVersion: `${group}/v1`, kind: "Gadget", metadata: { name: "g", namespace: ns }, spec: { size: 1 } }) });
      expect((await kptTs(["live", "init", "-n", ns, dir])).code).toBe(0);
      const r = await kptTs(["live", "apply", "--wait=false", dir]);
      expect(r.code, `round ${round}\n${printed(r)}`).toBe(0);
      expect(lines(r)).toEqual([`customresourcedefinition.apiextensions.k8s.io/gadgets.${group} created`, `gadget.${group}/g created`, "2 resource(s) applied. 2 created, 0 unchanged, 0 configured, 0 failed", "0 resource(s) pruned, 0 skipped, 0 failed"]);
      const destroy = await kptTs(["live", "destroy", dir]);
      expect(destroy.code, printed(destroy)).toBe(0);
    }
  });

  it("refuses --wait=false with a reconcile or prune timeout (one would be ignored), before touching the cluster", async () => {
    const dir = await writePackage({ "cm.yaml": configMap("c", "default") });
    const r = await kptTs(["live", "apply", "--wait=false", "--reconcile-timeout=1m", dir]);
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toContain("--wait=false waits for nothing, so --reconcile-timeout has no effect");
  });
});

describe("--rg-file: a stream's inventory in a file of its own", () => {
  it("round-trips apply, status and destroy of a stream read from standard input", async () => {
    const ns = await createNamespace("e2e-rgfile");
    const invDir = await writePackage({});
    const init = await kptTs(["live", "init", "--rg-file", "inventory.yaml", "-n", ns, "--name", uniqueName("stream"), invDir]);
    expect(init.code, printed(init)).toBe(0);
    const rgFile = join(invDir, "inventory.yaml");
    const stream = docs(configMap("one", ns), configMap("two", ns));

    const apply = await kptTs(["live", "apply", "-", "--rg-file", rgFile, "--reconcile-timeout=1m"], { input: stream });
    expect(apply.code, printed(apply)).toBe(0);
    expect(lines(apply)).toContain("2 resource(s) applied. 2 created, 0 unchanged, 0 configured, 0 failed");
    const inv = await readInventoryFile(invDir, "inventory.yaml");
    expect((await getObject("configmap", "one", ns))?.metadata.annotations?.["config.k8s.io/owning-inventory"]).toBe(inv.id);

    // The next render dropped "two": pruned through the same inventory.
    const second = await kptTs(["live", "apply", "-", "--rg-file", rgFile, "--reconcile-timeout=1m"], { input: configMap("one", ns) });
    expect(second.code, printed(second)).toBe(0);
    expect(lines(second)).toContain("configmap/two pruned");

    // The CI preview of the same stream reads the same inventory: "two" would be created again.
    const preview = await kptTs(["live", "apply", "-", "--rg-file", rgFile, "--dry-run", "--output", "markdown"], { input: stream });
    expect(preview.code, printed(preview)).toBe(0);
    expect(preview.stdout).toMatch(/\|\s*create\s*\|\s*ConfigMap\s*\|\s*[^|]+\|\s*two\s*\|/);
    expect(preview.stdout).not.toMatch(/\|\s*create\s*\|\s*ConfigMap\s*\|\s*[^|]+\|\s*one\s*\|/);

    const status = await kptTs(["live", "status", "-", "--rg-file", rgFile], { input: configMap("one", ns) });
    expect(status.code, printed(status)).toBe(0);
    expect(lines(status)).toEqual(["configmap/one is Current: Resource is always ready"]);

    // A stream that carries its own inventory as well is refused, naming both, before any write.
    const both = await kptTs(["live", "apply", "-", "--rg-file", rgFile], { input: docs(configMap("one", ns), `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: other\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: other\n`) });
    expect(both.code, printed(both)).toBe(2);
    expect(both.stderr).toContain("--rg-file gives the inventory, but the stream has one too (stdin:");

    const destroy = await kptTs(["live", "destroy", "-", "--rg-file", rgFile], { input: configMap("one", ns) });
    expect(destroy.code, printed(destroy)).toBe(0);
    expect(lines(destroy)).toContain("configmap/one deleted");
    expect(await getObject("configmap", "one", ns)).toBeUndefined();
    expect(await getObject("resourcegroups.kpt.dev", inv.name, ns)).toBeUndefined();
  });

  it("without --rg-file, a stream with no inventory says how to give one", async () => {
    const r = await kptTs(["live", "apply", "-"], { input: configMap("x", "default") });
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toContain("or give it with --rg-file FILE");
  });
});
