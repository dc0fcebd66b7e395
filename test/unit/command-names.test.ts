// Issue 36: a message that tells a person what to run names the command they are running
// (`kpt-ts live init`), not kpt's. Each message that says what to run, as a user meets it.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readClusterInventory } from "../../src/inventory/cluster-inventory.js";
import { planMigrate } from "../../src/inventory/migrate.js";
import { ClusterError, PackageError, UsageError, formatIssue } from "../../src/model/errors.js";
import { readPackage } from "../../src/object/read-package.js";
import { INVENTORY } from "../helpers/engine-run.js";
import { MemoryCluster } from "../helpers/memory-cluster.js";

const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: app\ndata:\n  k: v\n";

async function pkgDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kpt-ts-names-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

async function thrown(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error");
}

describe("messages that say what to run name kpt-ts", () => {
  it("a package without an inventory: kpt's `Package uninitialized`, then `run \"kpt-ts live init DIR\"`", async () => {
    const dir = await pkgDir({ "cm.yaml": CM });
    const err = await thrown(readPackage(dir));
    expect(err).toBeInstanceOf(PackageError);
    expect((err as PackageError).issues.map(formatIssue)).toEqual([
      `Package uninitialized: no ResourceGroup object was found in the package; run "kpt-ts live init ${dir}" to add one (it records which objects the package owns, so later runs can prune them)`,
    ]);
  });

  it("a stream without an inventory: the resourcegroup.yaml `kpt-ts live init` writes, or --rg-file", async () => {
    const err = await thrown(readPackage("-", { stdin: CM }));
    expect(err.message).toBe(
      'no ResourceGroup object was provided within the stream: include the package\'s ResourceGroup (the resourcegroup.yaml written by "kpt-ts live init") in the input, or give it with --rg-file FILE',
    );
  });

  it("--rg-file naming no file, or a file without a ResourceGroup: `kpt-ts live init --rg-file FILE` writes one", async () => {
    const missing = await thrown(readPackage("-", { stdin: CM, rgFile: "/nonexistent/inventory.yaml" }));
    expect(missing).toBeInstanceOf(UsageError);
    expect(missing.message).toBe('--rg-file "/nonexistent/inventory.yaml" does not exist: give the file that holds the package\'s ResourceGroup (`kpt-ts live init --rg-file FILE` writes one)');
    const dir = await pkgDir({ "inventory.yaml": "# nothing yet\n" });
    const empty = await thrown(readPackage("-", { stdin: CM, rgFile: join(dir, "inventory.yaml") }));
    expect((empty as PackageError).issues.map((i) => i.message)).toContain('--rg-file holds no ResourceGroup: give the file "kpt-ts live init --rg-file FILE" wrote');
  });

  it("an inventory name another package uses: `kpt-ts live init --force --name NEW`", async () => {
    const cluster = new MemoryCluster().seed(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "app" } },
      { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "resourcegroups.kpt.dev" }, spec: { group: "kpt.dev", scope: "Namespaced", names: { kind: "ResourceGroup", plural: "resourcegroups" }, versions: [{ name: "v1alpha1", served: true, storage: true }] } },
    );
    await cluster.create({ apiVersion: "kpt.dev/v1alpha1", kind: "ResourceGroup", metadata: { name: INVENTORY.name, namespace: "app", labels: { "cli-utils.sigs.k8s.io/inventory-id": "someone-else" } } });
    const err = await thrown(readClusterInventory(cluster, INVENTORY));
    expect(err).toBeInstanceOf(ClusterError);
    expect((err as ClusterError).detail).toBe("Another package uses this inventory name. Give this package its own with `kpt-ts live init --force --name NEW`, or restore the package's original resourcegroup.yaml.");
  });

  it("live migrate --name on a Kptfile inventory: rename later with `kpt-ts live init --force --name NEW`", () => {
    const kptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\ninventory:\n  namespace: app\n  name: inventory-1\n  inventoryID: id-1\n";
    expect(() => planMigrate([{ path: "Kptfile", content: kptfile }], { rgFile: "resourcegroup.yaml", force: false, dir: "pkg", name: "other" })).toThrow(
      '--name other: the Kptfile\'s inventory is named inventory-1, and the cluster\'s ResourceGroup has that name; migrate keeps it (kpt ignores --name here). Rename later with "kpt-ts live init --force --name NEW" and a new apply',
    );
  });
});
