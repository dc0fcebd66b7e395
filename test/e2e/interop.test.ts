// Issue 4: interop with the real kpt, both ways. A package applied by one tool is re-applied by
// the other with a changed object and a removed one (updated and pruned correctly, removed fields
// gone), then applied again by the first with nothing to do: no object is written again.
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, hasBinary, kpt, kptTs, type RunResult } from "../helpers/run.js";
import { clusterInventory, configMap, deployment, getObject, inventoryRefs, lines, printed, readInventoryFile, ref, resourceVersions } from "../helpers/scenario.js";

const haveKpt = hasBinary("kpt");
if (!haveKpt) console.warn("skipping the interop tests: the real `kpt` is not on PATH");

type Tool = (args: string[]) => Promise<RunResult>;

const v1 = (ns: string): Record<string, string> => ({
  "settings.yaml": configMap("settings", ns, { mode: "fast", size: "3" }, { labels: { app: "demo", tier: "web" } }),
  "extra.yaml": configMap("extra", ns),
  "deployment.yaml": deployment("web", ns, "nginx:1.25"),
});

/** settings loses a data key and a label, the Deployment's image changes, extra leaves the package. */
async function changeToV2(dir: string, ns: string): Promise<void> {
  await writeFile(join(dir, "settings.yaml"), configMap("settings", ns, { mode: "slow" }, { labels: { app: "demo" } }));
  await writeFile(join(dir, "deployment.yaml"), deployment("web", ns, "nginx:1.26"));
  await rm(join(dir, "extra.yaml"));
}

async function expectV2InCluster(ns: string, dir: string): Promise<void> {
  const settings = await getObject("configmap", "settings", ns);
  expect(settings?.data).toEqual({ mode: "slow" });
  expect(settings?.metadata.labels).toEqual({ app: "demo" });
  expect((await getObject("deployment", "web", ns))?.spec.template.spec.containers[0].image).toBe("nginx:1.26");
  expect(await getObject("configmap", "extra", ns)).toBeUndefined();
  expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "settings"), ref("apps", "Deployment", ns, "web")].sort());
  const id = (await readInventoryFile(dir)).id;
  expect((await getObject("configmap", "settings", ns))?.metadata.annotations?.["config.k8s.io/owning-inventory"]).toBe(id);
}

/** resourceVersions of the objects only: the real kpt rewrites its inventory on every apply. */
async function objectVersions(ns: string): Promise<Record<string, string>> {
  return resourceVersions(ns, "configmaps,services,deployments.apps");
}

const apply = (tool: Tool, dir: string, ...args: string[]) => tool(["live", "apply", "--reconcile-timeout=2m", ...args, dir]);

describe.skipIf(!haveKpt)("interop with the real kpt", () => {
  for (const serverSide of [false, true]) {
    const flags = serverSide ? ["--server-side"] : [];
    const mode = serverSide ? "server-side" : "client-side";

    it(`${mode}: kpt applies, kpt-ts updates and prunes, kpt then finds nothing to do`, async () => {
      const ns = await createNamespace(`e2e-interop-k${serverSide ? "s" : "c"}`);
      const dir = await writePackage(v1(ns));
      expect((await kpt(["live", "init", dir])).code).toBe(0);
      const first = await apply(kpt, dir, ...flags);
      expect(first.code, printed(first)).toBe(0);

      await changeToV2(dir, ns);
      const ours = await apply(kptTs, dir, ...flags);
      expect(ours.code, printed(ours)).toBe(0);
      const out = lines(ours);
      for (const l of ["configmap/settings configured", "deployment.apps/web configured", "configmap/extra pruned"]) expect(out, printed(ours)).toContain(l);
      expect(out).toContain("2 resource(s) applied. 0 created, 0 unchanged, 2 configured, 0 failed");
      expect(out).toContain("1 resource(s) pruned, 0 skipped, 0 failed");
      await expectV2InCluster(ns, dir);

      const before = await objectVersions(ns);
      const real = await apply(kpt, dir, ...flags);
      expect(real.code, printed(real)).toBe(0);
      expect(real.stdout).toContain("apply result: 2 attempted, 2 successful, 0 skipped, 0 failed");
      expect(real.stdout).not.toContain("prune result");
      expect(await objectVersions(ns)).toEqual(before);
    });

    it(`${mode}: kpt-ts applies, kpt updates and prunes, kpt-ts then reports everything unchanged`, async () => {
      const ns = await createNamespace(`e2e-interop-t${serverSide ? "s" : "c"}`);
      const dir = await writePackage(v1(ns));
      expect((await kptTs(["live", "init", dir])).code).toBe(0);
      const first = await apply(kptTs, dir, ...flags);
      expect(first.code, printed(first)).toBe(0);

      await changeToV2(dir, ns);
      const real = await apply(kpt, dir, ...flags);
      expect(real.code, printed(real)).toBe(0);
      expect(real.stdout).toContain("configmap/extra prune successful");
      expect(real.stdout).toContain("apply result: 2 attempted, 2 successful, 0 skipped, 0 failed");
      await expectV2InCluster(ns, dir);

      const before = await objectVersions(ns);
      const ours = await apply(kptTs, dir, ...flags);
      expect(ours.code, printed(ours)).toBe(0);
      expect(lines(ours)).toContain("2 resource(s) applied. 0 created, 2 unchanged, 0 configured, 0 failed");
      expect(lines(ours)).toContain("0 resource(s) pruned, 0 skipped, 0 failed");
      expect(await objectVersions(ns)).toEqual(before);
    });
  }

  it("kpt-ts destroys what the real kpt applied, and the real kpt destroys what kpt-ts applied", async () => {
    const nsA = await createNamespace("e2e-interop-da");
    const a = await writePackage(v1(nsA));
    expect((await kpt(["live", "init", a])).code).toBe(0);
    expect((await apply(kpt, a)).code).toBe(0);
    const ours = await kptTs(["live", "destroy", a]);
    expect(ours.code, printed(ours)).toBe(0);
    expect(lines(ours)).toContain("3 resource(s) deleted, 0 skipped, 0 failed to delete");
    expect(await objectVersions(nsA)).toEqual({});
    expect(await clusterInventory(a)).toBeUndefined();

    const nsB = await createNamespace("e2e-interop-db");
    const b = await writePackage(v1(nsB));
    expect((await kptTs(["live", "init", b])).code).toBe(0);
    expect((await apply(kptTs, b)).code).toBe(0);
    const real = await kpt(["live", "destroy", b]);
    expect(real.code, printed(real)).toBe(0);
    expect(real.stdout).toContain("delete result: 3 attempted, 3 successful, 0 skipped, 0 failed");
    expect(await objectVersions(nsB)).toEqual({});
    expect(await clusterInventory(b)).toBeUndefined();
  });
});
