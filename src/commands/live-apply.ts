// `kpt-ts live apply [PKG_PATH | -]`

import { runApply } from "../engine/run-apply.js";
import { UsageError } from "../errors.js";
import type { FlagValues } from "./flag-spec.js";
import type { applyFlags, GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";
import { showRun } from "./show-run.js";

export async function liveApply(pkgPath: string, f: FlagValues<typeof applyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  if (f.forceConflicts && !f.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  if (!f.wait && (f.reconcileTimeout !== undefined || f.pruneTimeout !== undefined)) {
    throw new UsageError(`--wait=false waits for nothing, so --${f.reconcileTimeout !== undefined ? "reconcile" : "prune"}-timeout has no effect: drop one of them`);
  }
  const dryRun = f.dryRun ? (f.serverSide ? ("server" as const) : ("client" as const)) : ("none" as const);
  const pkg = await readCommandPackage(pkgPath, io, f.rgFile);
  const statusOptions = await statusOptionsFor(pkg, f.healthRules);
  const cluster = openCluster(g, { maxSockets: (f.concurrency ?? 16) + 32 });
  try {
    const confirm = confirmHook(pkg, { command: "apply", yes: f.yes, dryRun: dryRun !== "none", output: f.output, color: colorFor(io, g) }, io);
    const events = runApply(pkg, cluster, {
      dryRun,
      serverSide: f.serverSide,
      fieldManager: f.fieldManager,
      forceConflicts: f.forceConflicts,
      wait: f.wait,
      reconcileTimeoutMs: f.reconcileTimeout,
      pruneTimeoutMs: f.pruneTimeout,
      prunePropagationPolicy: f.prunePropagationPolicy,
      inventoryPolicy: f.inventoryPolicy,
      installResourceGroup: f.installResourceGroup,
      statusPolicy: f.statusPolicy,
      concurrency: f.concurrency,
      pollPeriodMs: f.pollPeriod,
      statusOptions,
      signal: io.signal,
      confirm,
    });
    await showRun(events, { command: "apply", cluster, output: f.output, showStatusEvents: f.showStatusEvents, historyLimit: f.historyLimit, globals: g, io });
  } finally {
    cluster.close();
  }
}
