// Issue 17: an apply whose plan changes nothing writes nothing: no object, no inventory, no
// inventory status, no change record (as kapp). Checked the way a user would: every object in the
// package's namespaces keeps its resourceVersion, the history ConfigMaps and the ResourceGroup included.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { configMap, docs, printed, service } from "../helpers/scenario.js";
import { createNamespace, kptTs, kubectl, kubectlJson } from "../helpers/run.js";

const KINDS = "configmaps,secrets,services,serviceaccounts,roles.rbac.authorization.k8s.io,resourcegroups.kpt.dev";

/** `Kind/namespace/name` -> resourceVersion of every object of KINDS in the namespaces (history records included). */
async function allResourceVersions(namespaces: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const ns of namespaces) {
    const list = await kubectlJson<{ items: { kind: string; metadata: { name: string; namespace: string; resourceVersion: string } }[] }>(["get", KINDS, "-n", ns]);
    for (const o of list.items) out[`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`] = o.metadata.resourceVersion;
  }
  return out;
}

function pkgFiles(ns: string, other: string, value: string): Record<string, string> {
  return {
    "objects.yaml": docs(
      configMap("settings", ns, { value }),
      configMap("elsewhere", other),
      `apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: ${ns}}\ndata: {password: aHVudGVyMg==}\n`,
      // stringData is write-only: the server folds it into data, so the live object never shows it.
      `apiVersion: v1\nkind: Secret\nmetadata: {name: token, namespace: ${ns}}\nstringData: {token: s3cret}\n`,
      service("web", ns),
      `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: runner, namespace: ${ns}}\n`,
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: reader, namespace: ${ns}}\nrules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]\n`,
    ),
  };
}

async function historyLength(dir: string): Promise<number> {
  const r = await kptTs(["live", "history", dir, "--output", "json"]);
  expect(r.code, printed(r)).toBe(0);
  return (JSON.parse(r.stdout) as { changes: unknown[] }).changes.length;
}

describe("a no-op apply", () => {
  it.each([["client-side", []], ["server-side", ["--server-side"]]] as const)("(%s) leaves every resourceVersion in the package's namespaces unchanged, history and inventory included", async (_name, flags) => {
    const ns = await createNamespace("e2e-noop");
    const other = await createNamespace("e2e-noop-other");
    const dir = await writePackage(pkgFiles(ns, other, "1"));
    expect((await kptTs(["live", "init", "--namespace", ns, dir])).code).toBe(0);

    let r = await kptTs(["live", "apply", ...flags, dir]);
    expect(r.code, printed(r)).toBe(0);
    // A change, so that the history holds more than the first record.
    await writeFile(join(dir, "objects.yaml"), pkgFiles(ns, other, "2")["objects.yaml"]!);
    r = await kptTs(["live", "apply", ...flags, dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(await historyLength(dir)).toBe(2);

    const before = await allResourceVersions([ns, other]);
    expect(Object.keys(before).filter((k) => k.startsWith("ResourceGroup/"))).toHaveLength(1);
    r = await kptTs(["live", "apply", ...flags, dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).toContain("7 resource(s) applied. 0 created, 7 unchanged, 0 configured, 0 failed");
    expect(await allResourceVersions([ns, other])).toEqual(before);
    expect(await historyLength(dir)).toBe(2);

    // A change after the no-op is recorded again.
    await writeFile(join(dir, "objects.yaml"), pkgFiles(ns, other, "3")["objects.yaml"]!);
    r = await kptTs(["live", "apply", ...flags, dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(await historyLength(dir)).toBe(3);
  });

  it("that finds an object of its inventory already gone (deleted by hand, or pruned by another run) drops it from the inventory", async () => {
    const ns = await createNamespace("e2e-noop-gone");
    const dir = await writePackage({ "cms.yaml": docs(configMap("kept", ns), configMap("dropped", ns)) });
    expect((await kptTs(["live", "init", "--namespace", ns, dir])).code).toBe(0);
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    // The object leaves the package and the cluster at once: the next apply has nothing to prune or apply.
    expect((await kubectl(["delete", "configmap", "dropped", "-n", ns])).code).toBe(0);
    await writeFile(join(dir, "cms.yaml"), docs(configMap("kept", ns)));
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(r.stdout).toContain("0 resource(s) pruned, 0 skipped, 0 failed");
    const rgs = await kubectlJson<{ items: { spec: { resources: { name: string }[] } }[] }>(["get", "resourcegroups.kpt.dev", "-n", ns]);
    expect(rgs.items.map((rg) => rg.spec.resources.map((x) => x.name))).toEqual([["kept"]]);
    // Then `live status` shows only what exists.
    const st = await kptTs(["live", "status", dir]);
    expect(st.stdout, printed(st)).not.toContain("dropped");
  });
});
