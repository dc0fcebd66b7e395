// Issue 16: `live migrate`, as kpt's. A Kptfile-inventory package (as older `kpt live init`
// wrote it) applied by the real kpt is migrated by kpt-ts and by the real kpt (same files, same
// cluster state), then re-applied by both, pruning nothing; a ConfigMap inventory (cli-utils'
// inventory-template.yaml) moves to a ResourceGroup in the package and in the cluster, still
// tracking an object that already left the package.
import { cp, mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kpt, kptTs, kubectl, type RunResult } from "../helpers/run.js";
import { configMap, deployment, docs, getObject, inventoryRefs, lines, printed, ref, uniqueName } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the live migrate tests that use the real kpt: `kpt` is not on PATH");

const ID_LABEL = "cli-utils.sigs.k8s.io/inventory-id";

/** The Kptfile older `kpt live init` wrote: the inventory in the Kptfile itself. */
function kptfileWithInventory(ns: string, name: string, id: string): string {
  return stringify({
    apiVersion: "kpt.dev/v1",
    kind: "Kptfile",
    metadata: { name: "app", annotations: { "config.kubernetes.io/local-config": "true" } },
    info: { description: "sample app" },
    inventory: { namespace: ns, name, inventoryID: id },
  });
}

async function copyPackage(dir: string): Promise<string> {
  const to = join(await mkdtemp(join(tmpdir(), "kpt-ts-migrate-")), "app");
  await cp(dir, to, { recursive: true });
  return to;
}

/** kpt-ts says it pruned nothing as kpt's book does; kpt beta.56 prints no prune phase at all then. */
function expectNothingPruned(tool: "kpt-ts" | "kpt", r: RunResult): void {
  if (tool === "kpt-ts") expect(lines(r), printed(r)).toContain("0 resource(s) pruned, 0 skipped, 0 failed");
  else expect(lines(r).filter((l) => /prune/.test(l)), printed(r)).toEqual([]);
}

const rgOf = (name: string, ns: string) => getObject("resourcegroups.kpt.dev", name, ns);
const uids = async (ns: string) => ({ settings: (await getObject("configmap", "settings", ns))?.metadata.uid, web: (await getObject("deployment", "web", ns))?.metadata.uid });

describe.skipIf(!haveKpt)("live migrate: a Kptfile inventory", () => {
  it("kpt applies it; kpt-ts and kpt migrate it alike; both re-apply it pruning nothing", async () => {
    const ns = await createNamespace("e2e-migrate-kf");
    const name = uniqueName("inventory");
    const id = `${uniqueName("kf")}-1700000000000000000`;
    const dir = await writePackage({
      Kptfile: kptfileWithInventory(ns, name, id),
      "settings.yaml": configMap("settings", ns),
      "deployment.yaml": deployment("web", ns),
    });
    const twin = await copyPackage(dir);

    const applied = await kpt(["live", "apply", "--reconcile-timeout=2m", dir]);
    expect(applied.code, printed(applied)).toBe(0);
    const before = await rgOf(name, ns);
    expect(inventoryRefs(before)).toEqual([ref("", "ConfigMap", ns, "settings"), ref("apps", "Deployment", ns, "web")].sort());
    const objects = await uids(ns);

    const ours = await kptTs(["live", "migrate", dir]);
    expect(ours.code, printed(ours)).toBe(0);
    const theirs = await kpt(["live", "migrate", twin]);
    expect(theirs.code, printed(theirs)).toBe(0);
    expect(lines(ours)).toEqual(lines(theirs));

    // The same files: resourcegroup.yaml byte for byte; the Kptfile without its inventory (kpt re-marshals it).
    expect(await readFile(join(dir, "resourcegroup.yaml"), "utf8")).toBe(await readFile(join(twin, "resourcegroup.yaml"), "utf8"));
    expect(parse(await readFile(join(dir, "resourcegroup.yaml"), "utf8"))).toMatchObject({ metadata: { name, namespace: ns, labels: { [ID_LABEL]: id } } });
    const kf = parse(await readFile(join(dir, "Kptfile"), "utf8"));
    expect(kf.inventory).toBeUndefined();
    expect(kf).toEqual(parse(await readFile(join(twin, "Kptfile"), "utf8")));
    expect((await readdir(dir)).sort()).toEqual((await readdir(twin)).sort());

    // The same cluster state: the ResourceGroup kpt stored stays, with the same objects.
    const after = await rgOf(name, ns);
    expect(after?.metadata.uid).toBe(before?.metadata.uid);
    expect(inventoryRefs(after)).toEqual(inventoryRefs(before));

    for (const [tool, run] of [["kpt-ts", kptTs], ["kpt", kpt]] as const) {
      const again = await run(["live", "apply", "--reconcile-timeout=2m", dir]);
      expect(again.code, `${tool}: ${printed(again)}`).toBe(0);
      expectNothingPruned(tool, again);
      expect(await uids(ns), tool).toEqual(objects);
      expect(inventoryRefs(await rgOf(name, ns)), tool).toEqual(inventoryRefs(before));
    }
  });

  it("--dry-run prints the steps and changes nothing; a package already on a ResourceGroup is left alone", async () => {
    const ns = await createNamespace("e2e-migrate-dry");
    const dir = await writePackage({ Kptfile: kptfileWithInventory(ns, "inv", "dry-1"), "settings.yaml": configMap("settings", ns) });
    const kptfile = await readFile(join(dir, "Kptfile"), "utf8");
    const dry = await kptTs(["live", "migrate", "--dry-run", dir]);
    expect(dry.code, printed(dry)).toBe(0);
    expect(lines(dry)[lines(dry).length - 1]).toBe("inventory migration...success");
    expect(await readFile(join(dir, "Kptfile"), "utf8")).toBe(kptfile);
    expect((await readdir(dir)).sort()).toEqual(["Kptfile", "settings.yaml"]);

    expect((await kptTs(["live", "migrate", dir])).code).toBe(0);
    const rg = await readFile(join(dir, "resourcegroup.yaml"), "utf8");
    const again = await kptTs(["live", "migrate", dir]);
    expect(again.code, printed(again)).toBe(0);
    expect(await readFile(join(dir, "resourcegroup.yaml"), "utf8")).toBe(rg);
  });
});

describe("live migrate: a ConfigMap inventory", () => {
  it("moves to a ResourceGroup in the cluster and in the package, still tracking an object that left the package", async () => {
    const ns = await createNamespace("e2e-migrate-cm");
    const id = uniqueName("cm-inv");
    const owned = { annotations: { "config.k8s.io/owning-inventory": id } };
    // What cli-utils left in the cluster: the objects (owned by the id) and the ConfigMap inventory listing them.
    const live = docs(
      configMap("settings", ns, { key: "value" }, owned),
      configMap("old", ns, { key: "value" }, owned),
      stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "inventory-cm", namespace: ns, labels: { [ID_LABEL]: id } },
        data: { [`${ns}_settings__ConfigMap`]: "", [`${ns}_old__ConfigMap`]: "", [`${ns}_web_apps_Deployment`]: "" },
      }),
      deployment("web", ns, "nginx:1.25", owned),
    );
    const created = await kubectl(["apply", "-f", "-"], { input: live });
    expect(created.code, printed(created)).toBe(0);
    const template = stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "inventory-cm", namespace: ns, labels: { [ID_LABEL]: id } } });
    const dir = await writePackage({
      "inventory-template.yaml": template,
      "settings.yaml": configMap("settings", ns),
      "deployment.yaml": deployment("web", ns),
    });

    const r = await kptTs(["live", "migrate", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toEqual([
      "inventory migration...",
      "  ensuring ResourceGroup CRD exists in cluster...success",
      `  retrieve the current ConfigMap inventory...success (inventory-id: ${id})`,
      "  creating ResourceGroup object file...success",
      "  retrieve ConfigMap inventory objs...success (3 inventory objects)",
      "  migrate inventory to ResourceGroup...success",
      "  deleting old ConfigMap inventory object...success",
      `deleting inventory template file: ${join(dir, "inventory-template.yaml")}...success`,
      "inventory migration...success",
    ]);
    expect((await readdir(dir)).sort()).toEqual(["deployment.yaml", "resourcegroup.yaml", "settings.yaml"]);
    expect(parse(await readFile(join(dir, "resourcegroup.yaml"), "utf8"))).toMatchObject({ kind: "ResourceGroup", metadata: { name: "inventory-cm", namespace: ns, labels: { [ID_LABEL]: id } } });
    expect(await getObject("configmap", "inventory-cm", ns)).toBeUndefined();
    expect(inventoryRefs(await rgOf("inventory-cm", ns))).toEqual([ref("", "ConfigMap", ns, "old"), ref("", "ConfigMap", ns, "settings"), ref("apps", "Deployment", ns, "web")].sort());

    // Nothing was lost: the next apply prunes the object that had left the package, and only it.
    const apply = await kptTs(["live", "apply", "--reconcile-timeout=2m", dir]);
    expect(apply.code, printed(apply)).toBe(0);
    expect(lines(apply)).toContain("configmap/old pruned");
    expect(lines(apply)).toContain("1 resource(s) pruned, 0 skipped, 0 failed");
    expect(await getObject("configmap", "settings", ns)).toBeDefined();
    if (haveKpt) {
      const real = await kpt(["live", "apply", "--reconcile-timeout=2m", dir]);
      expect(real.code, printed(real)).toBe(0);
      expectNothingPruned("kpt", real);
      expect(lines(real)).toContain("apply result: 2 attempted, 2 successful, 0 skipped, 0 failed");
    }
  });
});
