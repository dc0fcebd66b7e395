// Issue 4: the inventory policy. Under `strict` (the default) kpt-ts touches only objects its
// inventory owns; `adopt` also takes unowned ones; an object owned by another inventory is
// never applied or pruned (short of the hidden force-adopt).
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePackage } from "../helpers/fixtures.js";
import { createNamespace, kptTs, kubectl } from "../helpers/run.js";
import { clusterInventory, configMap, getObject, inventoryRefs, lines, printed, readInventoryFile, ref } from "../helpers/scenario.js";

const OWNER = "config.k8s.io/owning-inventory";

async function packageIn(ns: string, files: Record<string, string>): Promise<string> {
  const dir = await writePackage(files);
  const init = await kptTs(["live", "init", "--namespace", ns, dir]);
  if (init.code !== 0) throw new Error(`init: ${printed(init)}`);
  return dir;
}

/** An object someone created with kubectl: no owning-inventory annotation. */
async function createUnowned(ns: string, name: string): Promise<void> {
  const r = await kubectl(["create", "configmap", name, "-n", ns, "--from-literal=owner=someone-else"]);
  if (r.code !== 0) throw new Error(r.stderr);
}

describe("inventory policy", () => {
  it("strict (default): an existing unowned object is skipped with a message saying what to do; exit 0; the object untouched", async () => {
    const ns = await createNamespace("e2e-inv-strict");
    await createUnowned(ns, "taken");
    const dir = await packageIn(ns, { "taken.yaml": configMap("taken", ns, { owner: "package" }), "mine.yaml": configMap("mine", ns) });
    const before = await getObject("configmap", "taken", ns);

    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    const skipped = lines(r).find((l) => l.startsWith("configmap/taken apply skipped:"));
    expect(skipped, printed(r)).toBeDefined();
    expect(skipped).toContain("inventory policy prevented actuation (strategy: Apply, status: Empty, policy: MustMatch)");
    expect(skipped).toContain("--inventory-policy=adopt");
    expect(lines(r)).toContain("configmap/mine created");
    expect(lines(r)).toContain("2 resource(s) applied. 1 created, 0 unchanged, 0 configured, 0 failed, 1 skipped");

    const after = await getObject("configmap", "taken", ns);
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    expect(after?.data).toEqual({ owner: "someone-else" });
    expect(after?.metadata.annotations?.[OWNER]).toBeUndefined();
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "mine")]);
  });

  it("--inventory-policy adopt takes an unowned object over: applied, annotated, recorded", async () => {
    const ns = await createNamespace("e2e-inv-adopt");
    await createUnowned(ns, "taken");
    const dir = await packageIn(ns, { "taken.yaml": configMap("taken", ns, { owner: "package" }) });
    const r = await kptTs(["live", "apply", "--inventory-policy", "adopt", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r)).toContain("configmap/taken configured");
    const after = await getObject("configmap", "taken", ns);
    expect(after?.data).toEqual({ owner: "package" });
    expect(after?.metadata.annotations?.[OWNER]).toBe((await readInventoryFile(dir)).id);
    expect(inventoryRefs(await clusterInventory(dir))).toEqual([ref("", "ConfigMap", ns, "taken")]);

    // Owned now: the default strict policy applies it from here on.
    const again = await kptTs(["live", "apply", dir]);
    expect(again.code, printed(again)).toBe(0);
    expect(lines(again)).toContain("configmap/taken unchanged");
  });

  it("an object owned by another inventory is refused, even with adopt; exit 0; the object untouched", async () => {
    const ns = await createNamespace("e2e-inv-other");
    const first = await packageIn(ns, { "shared.yaml": configMap("shared", ns, { by: "first" }) });
    expect((await kptTs(["live", "apply", first])).code).toBe(0);
    const firstId = (await readInventoryFile(first)).id;
    const before = await getObject("configmap", "shared", ns);

    const second = await packageIn(ns, { "shared.yaml": configMap("shared", ns, { by: "second" }) });
    for (const policy of ["strict", "adopt"]) {
      const r = await kptTs(["live", "apply", "--inventory-policy", policy, second]);
      expect(r.code, printed(r)).toBe(0);
      const skipped = lines(r).find((l) => l.startsWith("configmap/shared apply skipped:"));
      expect(skipped, printed(r)).toBeDefined();
      expect(skipped).toContain(`inventory policy prevented actuation (strategy: Apply, status: NoMatch, policy: ${policy === "strict" ? "MustMatch" : "AdoptIfNoInventory"})`);
      const after = await getObject("configmap", "shared", ns);
      expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
      expect(after?.metadata.annotations?.[OWNER]).toBe(firstId);
    }
    expect(inventoryRefs(await clusterInventory(second))).toEqual([]);
    expect(inventoryRefs(await clusterInventory(first))).toEqual([ref("", "ConfigMap", ns, "shared")]);
  });

  it("an object another inventory took over is not pruned", async () => {
    const ns = await createNamespace("e2e-inv-prune-other");
    const dir = await packageIn(ns, { "a.yaml": configMap("a", ns), "b.yaml": configMap("b", ns) });
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    expect((await kubectl(["annotate", "--overwrite", "configmap", "a", "-n", ns, `${OWNER}=some-other-inventory`])).code).toBe(0);
    await rm(join(dir, "a.yaml"));
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r).find((l) => l.startsWith("configmap/a prune skipped:"))).toContain(
      "inventory policy prevented actuation (strategy: Delete, status: NoMatch, policy: MustMatch)",
    );
    expect(lines(r)).toContain("0 resource(s) pruned, 1 skipped, 0 failed");
    expect((await getObject("configmap", "a", ns))?.metadata.annotations?.[OWNER]).toBe("some-other-inventory");
  });

  it("an object that lost its owning annotation is not pruned under strict", async () => {
    const ns = await createNamespace("e2e-inv-prune-empty");
    const dir = await packageIn(ns, { "a.yaml": configMap("a", ns), "b.yaml": configMap("b", ns) });
    expect((await kptTs(["live", "apply", dir])).code).toBe(0);
    expect((await kubectl(["annotate", "configmap", "a", "-n", ns, `${OWNER}-`])).code).toBe(0);
    await rm(join(dir, "a.yaml"));
    const r = await kptTs(["live", "apply", dir]);
    expect(r.code, printed(r)).toBe(0);
    expect(lines(r).find((l) => l.startsWith("configmap/a prune skipped:"))).toContain(
      "inventory policy prevented actuation (strategy: Delete, status: Empty, policy: MustMatch)",
    );
    expect(await getObject("configmap", "a", ns)).toBeDefined();
  });

  it("rejects an unknown --inventory-policy before touching anything", async () => {
    const ns = await createNamespace("e2e-inv-bad");
    const dir = await packageIn(ns, { "a.yaml": configMap("a", ns) });
    await writeFile(join(dir, "b.yaml"), configMap("b", ns));
    const r = await kptTs(["live", "apply", "--inventory-policy", "greedy", dir]);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(3);
    expect(r.stderr).toContain("inventory policy must be one of strict, adopt");
    expect(await clusterInventory(dir)).toBeUndefined();
    expect(await getObject("configmap", "a", ns)).toBeUndefined();
  });
});
