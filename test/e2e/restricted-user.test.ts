// Users with narrow RBAC (ServiceAccounts with a token, in one namespace): kpt-ts says
// "forbidden" naming verb, resource and namespace, on one line with what to do (the server's
// words with -v); it never writes what it cannot record in the inventory (every object that
// carries the package's owning-inventory annotation is listed in the inventory); and
// `live status` works read-only.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createServiceAccount, serviceAccountKubeconfig, type PolicyRule } from "../helpers/credentials.js";
import { createNamespace, kptTs, kubectlJson } from "../helpers/run.js";
import { clusterInventory, configMap, docs, getObject, inventoryRefs, lines, printed, readInventoryFile } from "../helpers/scenario.js";

const OWNING_INVENTORY = "config.k8s.io/owning-inventory";
const READ = ["get", "list", "watch"];

const rg = (ns: string) => `apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-rbac\n  namespace: ${ns}\n  labels:\n    cli-utils.sigs.k8s.io/inventory-id: rbac-${ns}\n`;
const secret = (name: string, ns: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nstringData:\n  password: not-a-real-one\n`;

/** Objects in the namespace that say this package owns them, and whether the cluster's inventory lists each. */
async function expectInventoryCoversOwned(ns: string, dir: string): Promise<void> {
  const { id } = await readInventoryFile(dir);
  const owned: string[] = [];
  for (const kind of ["configmaps", "secrets"]) {
    const list = await kubectlJson<{ items: { kind?: string; metadata: { name: string; annotations?: Record<string, string> } }[] }>(["get", kind, "-n", ns]);
    for (const o of list.items) if (o.metadata.annotations?.[OWNING_INVENTORY] === id) owned.push(`/${kind === "secrets" ? "Secret" : "ConfigMap"}/${ns}/${o.metadata.name}`);
  }
  const listed = inventoryRefs(await clusterInventory(dir));
  for (const o of owned) expect(listed, `${o} exists, owned by the package, but the inventory does not list it`).toContain(o);
}

describe("a user who may create ConfigMaps, and nothing else, in one namespace", () => {
  const rules: PolicyRule[] = [
    { apiGroups: [""], resources: ["configmaps", "secrets"], verbs: READ },
    { apiGroups: [""], resources: ["configmaps"], verbs: ["create"] },
    { apiGroups: ["kpt.dev"], resources: ["resourcegroups"], verbs: [...READ, "create", "update"] },
    { apiGroups: ["kpt.dev"], resources: ["resourcegroups/status"], verbs: ["update"] },
  ];

  it("applies what it may, reports each forbidden create and delete with the permission to ask for, and the inventory covers every object", async () => {
    const ns = await createNamespace("e2e-rbac-writer");
    await createServiceAccount(ns, "writer", rules);
    const kubeconfig = await serviceAccountKubeconfig(ns, "writer");
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns), "objects.yaml": docs(configMap("allowed", ns), secret("refused", ns)) });

    const first = await kptTs(["live", "apply", "--kubeconfig", kubeconfig, dir]);
    expect(first.code, printed(first)).toBe(3);
    expect(lines(first)).toContain("configmap/allowed created");
    const refusal = lines(first).find((l) => l.startsWith("secret/refused apply failed: "));
    expect(refusal, printed(first)).toMatch(new RegExp(`forbidden: User "system:serviceaccount:${ns}:writer" cannot create resource "secrets" in API group "" in the namespace "${ns}"; ask a cluster administrator to grant "create" on secrets in namespace ${ns}, or use a context that has it`));
    expect(await getObject("configmaps", "allowed", ns)).toBeDefined();
    expect(await getObject("secrets", "refused", ns)).toBeUndefined();
    await expectInventoryCoversOwned(ns, dir);

    // The ConfigMap leaves the package: pruning it needs "delete", which this user lacks.
    const second = await kptTs(["live", "apply", "--kubeconfig", kubeconfig, await rewrite(dir, { "objects.yaml": configMap("another", ns) })]);
    expect(second.code, printed(second)).toBe(3);
    expect(lines(second)).toContain("configmap/another created");
    expect(lines(second).find((l) => l.startsWith("configmap/allowed prune failed: ")), printed(second)).toMatch(
      new RegExp(`cannot delete resource "configmaps" in API group "" in the namespace "${ns}"; ask a cluster administrator to grant "delete" on configmaps in namespace ${ns}`),
    );
    expect(await getObject("configmaps", "allowed", ns)).toBeDefined();
    expect(inventoryRefs(await clusterInventory(dir))).toEqual(expect.arrayContaining([`/ConfigMap/${ns}/allowed`, `/ConfigMap/${ns}/another`]));
    await expectInventoryCoversOwned(ns, dir);
  });

  it("may create ConfigMaps but not the inventory: nothing is applied, one error says which permission is missing (after the lock's warning)", async () => {
    const ns = await createNamespace("e2e-rbac-noinv");
    await createServiceAccount(ns, "noinv", [
      { apiGroups: [""], resources: ["configmaps"], verbs: [...READ, "create"] },
      { apiGroups: ["kpt.dev"], resources: ["resourcegroups"], verbs: READ },
    ]);
    const kubeconfig = await serviceAccountKubeconfig(ns, "noinv");
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns), "objects.yaml": configMap("would-be-orphan", ns) });

    const r = await kptTs(["live", "apply", "--kubeconfig", kubeconfig, dir]);
    expect(r.code, printed(r)).toBe(1);
    // Without rights on Leases the run goes on unlocked (kpt needs none), and says which right keeps runs apart.
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      lockWarning(ns, "noinv"),
      `error: cannot write the inventory ResourceGroup ${ns}/inventory-rbac: forbidden: user "system:serviceaccount:${ns}:noinv" may not create resourcegroups.kpt.dev in namespace ${ns}`,
      `ask a cluster administrator to grant "create" on resourcegroups.kpt.dev in namespace ${ns}, or use a context that has it (--context)`,
    ]);
    expect(await getObject("configmaps", "would-be-orphan", ns)).toBeUndefined();
    expect(await clusterInventory(dir)).toBeUndefined();

    // -v adds the server's own words.
    const verbose = await kptTs(["live", "apply", "-v", "--kubeconfig", kubeconfig, dir]);
    expect(verbose.stderr).toContain(`caused by: HTTP 403 Forbidden: resourcegroups.kpt.dev is forbidden: User "system:serviceaccount:${ns}:noinv" cannot create resource "resourcegroups" in API group "kpt.dev" in the namespace "${ns}"`);
    expect(await getObject("configmaps", "would-be-orphan", ns)).toBeUndefined();
  });
});

describe("a read-only user", () => {
  it("can run live status; apply and destroy change nothing and say which permission is missing", async () => {
    const ns = await createNamespace("e2e-rbac-reader");
    await createServiceAccount(ns, "reader", [
      { apiGroups: [""], resources: ["configmaps"], verbs: READ },
      { apiGroups: ["kpt.dev"], resources: ["resourcegroups"], verbs: READ },
    ]);
    const dir = await writePackage({ "resourcegroup.yaml": rg(ns), "objects.yaml": docs(configMap("one", ns), configMap("two", ns)) });
    // The admin applies the package; the reader looks at it.
    const applied = await kptTs(["live", "apply", dir]);
    expect(applied.code, printed(applied)).toBe(0);
    const before = await clusterInventory(dir);
    const kubeconfig = await serviceAccountKubeconfig(ns, "reader");

    const status = await kptTs(["live", "status", "--kubeconfig", kubeconfig, dir]);
    expect(status.code, printed(status)).toBe(0);
    expect(lines(status).sort()).toEqual(["configmap/one is Current: Resource is always ready", "configmap/two is Current: Resource is always ready"]);
    const table = await kptTs(["live", "status", "--output", "json", "--kubeconfig", kubeconfig, dir]);
    expect(table.code, printed(table)).toBe(0);

    const apply = await kptTs(["live", "apply", "--kubeconfig", kubeconfig, await rewrite(dir, { "objects.yaml": docs(configMap("one", ns), configMap("two", ns), configMap("three", ns)) })]);
    expect(apply.code, printed(apply)).toBe(1);
    expect(apply.stderr.trimEnd().split("\n")).toEqual([
      lockWarning(ns, "reader"),
      `error: cannot write the inventory ResourceGroup ${ns}/inventory-rbac: forbidden: user "system:serviceaccount:${ns}:reader" may not update resourcegroups.kpt.dev in namespace ${ns}`,
      `ask a cluster administrator to grant "update" on resourcegroups.kpt.dev in namespace ${ns}, or use a context that has it (--context)`,
    ]);
    expect(await getObject("configmaps", "three", ns)).toBeUndefined();

    const destroy = await kptTs(["live", "destroy", "--kubeconfig", kubeconfig, dir]);
    // kpt's result code: the deletes failed; the inventory, unchanged, is not rewritten (a forbidden write would exit 1).
    expect(destroy.code, printed(destroy)).toBe(3);
    expect(destroy.stdout, printed(destroy)).toMatch(new RegExp(`configmap/one deletion failed: .*cannot delete resource "configmaps" in API group "" in the namespace "${ns}"; ask a cluster administrator to grant "delete" on configmaps in namespace ${ns}`));
    expect(await getObject("configmaps", "one", ns)).toBeDefined();
    expect(await getObject("configmaps", "two", ns)).toBeDefined();
    // Nothing the reader did changed the inventory.
    expect((await clusterInventory(dir))?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  });
});

/** Replaces some files of a package in place; returns its directory. */
async function rewrite(dir: string, files: Record<string, string>): Promise<string> {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

/** The one warning of a run whose user may not create the inventory's Lease (docs/inventories.md). */
function lockWarning(ns: string, user: string): string {
  const lease = `leases.coordination.k8s.io in namespace ${ns}`;
  return `[WARN] this run does not hold the lock of the inventory ResourceGroup ${ns}/inventory-rbac (Lease ${ns}/kpt-ts-lock.resourcegroup.inventory-rbac): forbidden: user "system:serviceaccount:${ns}:${user}" may not create ${lease} (grant get, create, update and delete on ${lease} to keep runs apart); another run of the package at the same time is not kept out`;
}
