// `kpt-ts live migrate [PKG_PATH]`: moves a Kptfile or ConfigMap inventory to a ResourceGroup,
// in the package and in the cluster, with kpt's steps and lines. Safe to run again: a package
// already on a ResourceGroup is left as it is, and a migrate that stopped half way finishes.

import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Writer } from "../apply/writer.js";
import { UsageError } from "../model/errors.js";
import { installResourceGroupCrd, resourceGroupCrdInstalled } from "../inventory/cluster-inventory.js";
import { planMigrate } from "../inventory/migrate.js";
import { readConfigMapInventory, storeInResourceGroup } from "../inventory/migrate-cluster.js";
import { readPackageFiles } from "../object/read-package.js";
import { createMigrateSteps } from "../print/migrate-printer.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, migrateFlags } from "./command-specs.js";
import type { CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export async function liveMigrate(pkgPath: string, f: FlagValues<typeof migrateFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  if (pkgPath === "-") throw new UsageError("live migrate rewrites the package's files: give the package directory, not -");
  const plan = planMigrate(await readPackageFiles(pkgPath), { rgFile: f.rgFile, name: f.name, namespace: g.namespace, force: f.force, dir: pkgPath });
  const steps = createMigrateSteps(io.stdout);
  const cluster = openCluster(g, { io });
  const write = async (files: { path: string; content: string; mode: number }[]) => {
    for (const w of files) if (!f.dryRun) await writeFile(join(pkgPath, w.path), w.content, { mode: w.mode });
  };
  try {
    steps.step("ensuring ResourceGroup CRD exists in cluster");
    if (!f.dryRun && !(await resourceGroupCrdInstalled(cluster))) await installResourceGroupCrd(cluster, { signal: io.signal });
    steps.done();
    steps.step("retrieve the current ConfigMap inventory");
    if (plan.from !== "configmap") {
      steps.done("no ConfigMap inventory...completed");
      steps.step("reading existing Kptfile");
      if (plan.from === "kptfile") await write(plan.writes);
      steps.done();
    } else {
      steps.done(`success (inventory-id: ${plan.inventory.id})`);
      steps.step("creating ResourceGroup object file");
      await write(plan.writes);
      steps.done();
      steps.step("retrieve ConfigMap inventory objs");
      const cm = await readConfigMapInventory(cluster, plan.configMap.namespace, plan.inventory.id, io.signal);
      steps.done(`success (${cm?.refs.length ?? 0} inventory objects)`);
      if (cm && cm.refs.length > 0) {
        steps.step("migrate inventory to ResourceGroup");
        if (!f.dryRun) await storeInResourceGroup(cluster, plan.inventory, cm.refs, io.signal);
        steps.done();
      }
      if (cm) {
        // Only once the ResourceGroup lists every object: no moment without an inventory.
        steps.step("deleting old ConfigMap inventory object");
        if (!f.dryRun) await new Writer(cluster, 1).delete({ group: "", kind: "ConfigMap", namespace: plan.configMap.namespace, name: cm.object.metadata.name! }, { uid: cm.object.metadata.uid });
        steps.done();
      }
      steps.step(`deleting inventory template file: ${join(pkgPath, plan.template.path)}`, false);
      if (!f.dryRun) {
        if (plan.template.content === undefined) await rm(join(pkgPath, plan.template.path));
        else await writeFile(join(pkgPath, plan.template.path), plan.template.content);
      }
      steps.done();
    }
    steps.finish(true);
  } catch (err) {
    steps.finish(false);
    throw err;
  } finally {
    cluster.close();
  }
}
