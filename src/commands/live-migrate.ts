// `kpt-ts live migrate [PKG_PATH]`: moves a Kptfile or ConfigMap inventory to a ResourceGroup,
// in the package and in the cluster, with kpt's steps and lines; with --to, a ResourceGroup to an
// ApplySet and back (engine/migrate-kind.ts), every object kept. Safe to run again: a package
// already on the kind asked for is left as it is, and a migrate that stopped half way finishes.

import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Writer } from "../apply/writer.js";
import { UsageError } from "../model/errors.js";
import { installResourceGroupCrd, resourceGroupCrdInstalled } from "../inventory/cluster-inventory.js";
import { planMigrate } from "../inventory/migrate.js";
import { readConfigMapInventory, storeInResourceGroup } from "../inventory/migrate-cluster.js";
import { readPackage, readPackageFiles } from "../object/read-package.js";
import type { PackageFile } from "../object/parse-package.js";
import { acquireRunLock, awaitFreeLock } from "../inventory/cluster-lock.js";
import { DEFAULT_RG_FILE } from "../inventory/init.js";
import { DEFAULT_APPLYSET_FILE } from "../inventory/init-applyset.js";
import { planKindMigration } from "../inventory/migrate-kind.js";
import { migrateKind } from "../engine/migrate-kind.js";
import { warningLine } from "../print/terminal-text.js";
import { readCommandPackage } from "./io.js";
import { createMigrateSteps } from "../print/migrate-printer.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, migrateFlags } from "./command-specs.js";
import type { CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export async function liveMigrate(pkgPath: string, f: FlagValues<typeof migrateFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  if (pkgPath === "-") throw new UsageError("live migrate rewrites the package's files: give the package directory, not -");
  const files = await readPackageFiles(pkgPath);
  // Between inventory kinds (--to): a package's ResourceGroup to an ApplySet and back.
  if (f.to === "applyset" || (f.to === "resourcegroup" && (await hasApplySet(pkgPath)))) return migrateBetweenKinds(pkgPath, files, f.to, f, g, io);
  const plan = planMigrate(files, { rgFile: f.rgFile, name: f.name, namespace: g.namespace, force: f.force, dir: pkgPath });
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

/** The package records an ApplySet inventory (so `--to resourcegroup` moves it back). */
async function hasApplySet(pkgPath: string): Promise<boolean> {
  const pkg = await readPackage(pkgPath).catch(() => undefined);
  return Boolean(pkg?.inventory.applySet);
}

async function migrateBetweenKinds(pkgPath: string, files: PackageFile[], to: "applyset" | "resourcegroup", f: FlagValues<typeof migrateFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  const pkg = await readCommandPackage(pkgPath, io);
  const file = to === "applyset" && f.rgFile === DEFAULT_RG_FILE ? DEFAULT_APPLYSET_FILE : f.rgFile;
  const plan = planKindMigration(files, pkg.inventory, { to, ...(f.name ? { name: f.name } : {}), file, parentKind: f.applysetParent === "configmaps" ? "ConfigMap" : "Secret", dir: pkgPath });
  const steps = createMigrateSteps(io.stdout);
  if (!plan) {
    steps.step(`the package's inventory is already ${to === "applyset" ? "an ApplySet" : "a ResourceGroup"}`);
    steps.done("nothing to do");
    return steps.finish(true);
  }
  const cluster = openCluster(g, { io });
  const lockOptions = { timeoutMs: f.lockTimeoutMs, command: "migrate", signal: io.signal, onWarning: (w: string) => io.stderr.write(warningLine(w)) };
  const lock = f.dryRun ? undefined : (await acquireRunLock(cluster, plan.from, lockOptions, await awaitFreeLock(cluster, plan.from, lockOptions))).lock;
  try {
    const result = await migrateKind(cluster, plan, steps, {
      dryRun: f.dryRun,
      signal: io.signal,
      writePackage: async () => {
        for (const w of plan.writes) await writeFile(join(pkgPath, w.path), w.content, { mode: w.mode });
        for (const r of plan.removes) await rm(join(pkgPath, r));
      },
    });
    for (const s of result.skipped) io.stderr.write(warningLine(`${s.ref.kind} ${s.ref.namespace ? `${s.ref.namespace}/` : ""}${s.ref.name} was left as it is: inventory "${s.owner}" owns it, not this package`));
    steps.finish(true);
  } catch (err) {
    steps.finish(false);
    throw err;
  } finally {
    // The old inventory's Lease goes with it.
    await lock?.release({ remove: true });
    cluster.close();
  }
}
