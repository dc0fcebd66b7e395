// Issue 17: inventories near the server's limit. etcd stores at most 1.5 MiB per request (its
// default `--max-request-bytes`, as on our local cluster), and the ResourceGroup lists every
// object, with its status under `--status-policy all`. A package whose statuses would not fit
// is applied in full, its inventory written without them, with one warning; a package whose list
// alone would not fit is refused before anything is written. Small ConfigMaps with the longest
// names Kubernetes allows (253 characters) reach the limit with the fewest objects.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { CHANGE_LABEL, printed, readInventoryFile } from "../helpers/scenario.js";
import { createNamespace, kptTs, kubectl, kubectlJson } from "../helpers/run.js";

/** A name of exactly 253 characters, unique per index. */
const longName = (i: number) => `${"c".repeat(245)}-${String(i).padStart(7, "0")}`;

function manyConfigMaps(ns: string, n: number): Record<string, string> {
  const docs: string[] = [];
  for (let i = 0; i < n; i++) docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${longName(i)}\n  namespace: ${ns}\ndata:\n  k: v\n`);
  return { "objects.yaml": docs.join("---\n") };
}

async function writePackageFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

interface Listed {
  items: { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: { resources?: unknown[] }; status?: { resourceStatuses?: unknown[] } }[];
}

describe("an inventory near the server's limit", () => {
  // 2,300 objects: about 0.76 MB of list, and 1.71 MB with statuses, over etcd's 1.5 MiB.
  it("applies a package whose statuses would not fit in full, writes the inventory without them, and warns once", async () => {
    const ns = await createNamespace("e2e-invlimit");
    const n = 2_300;
    const dir = await writePackage(manyConfigMaps(ns, n));
    expect((await kptTs(["live", "init", "--namespace", ns, dir])).code).toBe(0);
    const { name } = await readInventoryFile(dir);

    const r = await kptTs(["live", "apply", dir], { timeoutMs: 280_000 });
    expect(r.code, printed(r).slice(-3000)).toBe(0);
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("[WARN]"));
    expect(warnings, r.stderr.slice(-3000)).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`inventory ResourceGroup ${ns}/${name} lists 2,300 objects; with their statuses it would take 1\\.\\d\\d MiB, more than the API server stores in one object`));
    expect(warnings[0]).toMatch(/--status-policy=none/);
    expect(r.stdout).toContain(`${n} resource(s) applied. ${n} created, 0 unchanged, 0 configured, 0 failed`);
    expect(r.stdout).not.toMatch(/overloaded/);

    const rg = await kubectlJson<Listed["items"][number]>(["get", "resourcegroups.kpt.dev", name, "-n", ns]);
    expect(rg.spec?.resources).toHaveLength(n);
    expect(rg.status?.resourceStatuses ?? []).toEqual([]);
    const cms = await kubectlJson<Listed>(["get", "configmaps", "-n", ns]);
    expect(cms.items.filter((o) => o.metadata.name.startsWith("ccc"))).toHaveLength(n);
    await kubectl(["delete", "namespace", ns, "--wait=false"]);
  });

  // 2,050 objects fit with their statuses (0.86 MB of them); 4,000 do not, and the longer list
  // (1.32 MB) beside the old statuses would not fit either: the old statuses go first.
  it("a package that grows past the limit: the old statuses are cleared, the longer list stored, one warning", async () => {
    const ns = await createNamespace("e2e-invlimit-grow");
    const dir = await writePackage(manyConfigMaps(ns, 2_050));
    expect((await kptTs(["live", "init", "--namespace", ns, dir])).code).toBe(0);
    const { name } = await readInventoryFile(dir);
    let r = await kptTs(["live", "apply", dir], { timeoutMs: 280_000 });
    expect(r.code, printed(r).slice(-3000)).toBe(0);
    expect(r.stderr).not.toContain("[WARN]");
    let rg = await kubectlJson<Listed["items"][number]>(["get", "resourcegroups.kpt.dev", name, "-n", ns]);
    expect(rg.status?.resourceStatuses).toHaveLength(2_050);

    await writePackageFiles(dir, manyConfigMaps(ns, 4_000));
    r = await kptTs(["live", "apply", dir], { timeoutMs: 280_000 });
    expect(r.code, printed(r).slice(-3000)).toBe(0);
    expect(r.stderr.split("\n").filter((l) => l.startsWith("[WARN]"))).toHaveLength(1);
    rg = await kubectlJson<Listed["items"][number]>(["get", "resourcegroups.kpt.dev", name, "-n", ns]);
    expect(rg.spec?.resources).toHaveLength(4_000);
    expect(rg.status?.resourceStatuses ?? []).toEqual([]);
    await kubectl(["delete", "namespace", ns, "--wait=false"]);
  });

  // 5,000 objects: about 1.65 MB of list alone.
  it("refuses a package whose object list would not fit, before writing anything (exit 2), saying how many fit", async () => {
    const ns = await createNamespace("e2e-invlimit-no");
    const dir = await writePackage(manyConfigMaps(ns, 5_000));
    expect((await kptTs(["live", "init", "--namespace", ns, dir])).code).toBe(0);
    const { name } = await readInventoryFile(dir);

    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`ResourceGroup ${ns}/${name}: the inventory would list 5,000 objects \\(1\\.\\d\\d MiB\\), more than the API server can store in one object`));
    expect(r.stderr).toMatch(/at most 4,\d{3} objects like these fit in one inventory, 2,\d{3} with their statuses\. Nothing was written\./);
    expect(r.stderr).toContain("Use an ApplySet inventory, which lists nothing and has no such ceiling: `kpt-ts live migrate --to applyset` moves this package's inventory to one");
    expect(r.stderr).toMatch(/split the package into packages of at most 4,\d{3} objects/);
    expect(r.stdout).toBe("");

    // Nothing at all in the namespace: no object, no inventory, no change record.
    const left = await kubectlJson<Listed>(["get", "configmaps,resourcegroups.kpt.dev", "-n", ns]);
    expect(left.items.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(["ConfigMap/kube-root-ca.crt"]);
    expect(left.items.filter((o) => o.metadata.labels?.[CHANGE_LABEL])).toEqual([]);
    await kubectl(["delete", "namespace", ns, "--wait=false"]);
  });
});
