// `kpt-ts live apply [PKG_PATH | -]`

import { runApply } from "../engine/run-apply.js";
import { ResultError, UsageError } from "../errors.js";
import type { FlagValues } from "./flag-spec.js";
import type { applyFlags, GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { previewChanges, showPreview } from "./live-diff.js";
import { openClusterEarly } from "./open-cluster.js";
import { showRun } from "./show-run.js";

export async function liveApply(pkgPath: string, f: FlagValues<typeof applyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  if (f.forceConflicts && !f.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  if (!f.wait && (f.reconcileTimeout !== undefined || f.pruneTimeout !== undefined)) {
    throw new UsageError(`--wait=false waits for nothing, so --${f.reconcileTimeout !== undefined ? "reconcile" : "prune"}-timeout has no effect: drop one of them`);
  }
  if (!f.dryRun && (f.local || f.output === "markdown")) throw new UsageError(`${f.local ? "--local" : "--output markdown"} is for previews: add --dry-run, or use live diff`);
  if (f.output === "markdown") {
    // The dry run's plan as the change set `live diff` shows: client-side dry runs are computed
    // locally, as apply's own --dry-run does; server-side ones ask the server (locally when refused).
    const local = f.local || !f.serverSide;
    const localReason = f.local ? "--local" : "a client-side dry run, as kpt's --dry-run";
    const cs = await previewChanges(pkgPath, { ...f, local, localReason, concurrency: f.concurrency ?? 16 }, g, io, f.rgFile);
    await showPreview(cs, "kpt-ts live apply --dry-run", "markdown", g, io);
    if (cs.changes.some((c) => c.error)) throw new ResultError("some objects would fail to apply");
    return;
  }
  const dryRun = f.dryRun ? (f.serverSide && !f.local ? ("server" as const) : ("client" as const)) : ("none" as const);
  const early = openClusterEarly(g, { maxSockets: (f.concurrency ?? 16) + 32, openapi: !f.serverSide, io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, f.rgFile);
    const statusOptions = await statusOptionsFor(pkg, f.healthRules);
    const cluster = early.use();
    const output = f.output;
    const confirm = confirmHook(pkg, { command: "apply", yes: f.yes, dryRun: dryRun !== "none", output, color: colorFor(io, g) }, io);
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
    await showRun(events, { command: "apply", cluster, output, showStatusEvents: f.showStatusEvents, historyLimit: f.historyLimit, globals: g, io });
  } finally {
    early.close();
  }
}
