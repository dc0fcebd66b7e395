// `kpt-ts live apply [PKG_PATH | -]`

import { runApply } from "../engine/run-apply.js";
import { ResultError, UsageError } from "../model/errors.js";
import type { FlagValues } from "./flag-spec.js";
import type { applyFlags, GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { showPreview } from "./live-diff.js";
import { collectChangeSet } from "../diff/change-set.js";
import { localPreviewNote } from "../apply/local-preview.js";
import { openClusterEarly } from "./open-cluster.js";
import { showRun } from "./show-run.js";

export async function liveApply(pkgPath: string, f: FlagValues<typeof applyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  if (f.forceConflicts && !f.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  if (!f.wait && (f.reconcileTimeout !== undefined || f.pruneTimeout !== undefined)) {
    throw new UsageError(`--wait=false waits for nothing, so --${f.reconcileTimeout !== undefined ? "reconcile" : "prune"}-timeout has no effect: drop one of them`);
  }
  if (!f.dryRun && (f.local || f.output === "markdown")) throw new UsageError(`${f.local ? "--local" : "--output markdown"} is for previews: add --dry-run, or use live diff`);
  const dryRun = f.dryRun ? (f.serverSide && !f.local ? ("server" as const) : ("client" as const)) : ("none" as const);
  const early = openClusterEarly(g, { maxSockets: (f.concurrency ?? 16) + 32, openapi: !f.serverSide });
  try {
    const pkg = await readCommandPackage(pkgPath, io, f.rgFile);
    const statusOptions = await statusOptionsFor(pkg, f.healthRules);
    const cluster = early.use();
    const output = f.output;
    const confirm = confirmHook(pkg, { yes: f.yes, dryRun: dryRun !== "none", output, color: colorFor(io, g) }, io);
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
    if (output !== "markdown") return await showRun(events, { command: "apply", cluster, output, showStatusEvents: f.showStatusEvents, historyLimit: f.historyLimit, globals: g, io });
    // The dry run's change set, as `live diff` shows it. Client-side dry runs are computed locally.
    const why = f.local ? "--local" : dryRun === "client" ? "a client-side dry run, as kpt's --dry-run" : undefined;
    const changes = await collectChangeSet(events, why ? { local: localPreviewNote(why, f.serverSide) } : {});
    await showPreview(changes, "kpt-ts live apply --dry-run", "markdown", g, io);
    if (changes.changes.some((c) => c.error)) throw new ResultError("some objects would fail to apply");
  } finally {
    early.close();
  }
}
