// `kpt-ts live apply [PKG_PATH | -]`

import { runApply } from "../engine/run-apply.js";
import { ResultError, UsageError } from "../errors.js";
import { statsFailed } from "../events.js";
import { DEFAULT_HISTORY_LIMIT } from "../history/change-record.js";
import { recordChanges } from "../history/record-changes.js";
import { readPackage } from "../object/read-package.js";
import { printRun } from "../print/printer.js";
import { wantsProgressView } from "../print/progress-view.js";
import { durationFlag, inventoryPolicyFlag, nonNegativeIntFlag, outputFlag, parseFlag, positiveIntFlag, propagationFlag, statusPolicyFlag, type GlobalFlags } from "./flags.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, packageText, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export interface ApplyFlags extends GlobalFlags {
  dryRun?: boolean;
  serverSide?: boolean;
  fieldManager: string;
  forceConflicts?: boolean;
  reconcileTimeout?: string;
  pruneTimeout?: string;
  prunePropagationPolicy: string;
  inventoryPolicy: string;
  installResourceGroup?: boolean;
  output: string;
  showStatusEvents?: boolean;
  statusPolicy: string;
  concurrency?: string;
  pollPeriod?: string;
  historyLimit?: string;
  yes?: boolean;
}

export async function liveApply(pkgPath: string, f: ApplyFlags, io: CommandIO): Promise<void> {
  const output = parseFlag(outputFlag, f.output, "output");
  const options = {
    dryRun: f.dryRun ? (f.serverSide ? ("server" as const) : ("client" as const)) : ("none" as const),
    serverSide: Boolean(f.serverSide),
    fieldManager: f.fieldManager,
    forceConflicts: Boolean(f.forceConflicts),
    reconcileTimeoutMs: durationFlag(f.reconcileTimeout, "reconcile-timeout"),
    pruneTimeoutMs: durationFlag(f.pruneTimeout, "prune-timeout"),
    prunePropagationPolicy: parseFlag(propagationFlag, f.prunePropagationPolicy, "prune-propagation-policy"),
    inventoryPolicy: parseFlag(inventoryPolicyFlag, f.inventoryPolicy, "inventory-policy"),
    installResourceGroup: f.installResourceGroup !== false,
    statusPolicy: parseFlag(statusPolicyFlag, f.statusPolicy, "status-policy"),
    concurrency: positiveIntFlag(f.concurrency, "concurrency"),
    pollPeriodMs: durationFlag(f.pollPeriod, "poll-period"),
    signal: io.signal,
  };
  if (f.forceConflicts && !f.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  const historyLimit = nonNegativeIntFlag(f.historyLimit, "history-limit") ?? DEFAULT_HISTORY_LIMIT;
  const pkg = await readPackage(pkgPath, { stdin: await packageText(pkgPath, io), onWarning: (w) => io.stderr.write(`[WARN] ${w}\n`) });
  const cluster = openCluster(f, { maxSockets: (options.concurrency ?? 16) + 32 });
  try {
    const color = colorFor(io, f);
    const events = runApply(pkg, cluster, { ...options, confirm: confirmHook(pkg, { command: "apply", yes: Boolean(f.yes), dryRun: options.dryRun !== "none", output, color }, io) });
    const stats = await printRun(recordChanges(events, { cluster, keep: historyLimit, onWarning: (w) => io.stderr.write(`[WARN] ${w}\n`) }), {
      output,
      stdout: io.stdout,
      stderr: io.stderr,
      color,
      tty: Boolean(io.stdout.isTTY),
      showStatusEvents: Boolean(f.showStatusEvents),
      ...(wantsProgressView({ output, stderrIsTTY: Boolean(io.stderr.isTTY), env: io.env, colorFlag: f.color === false ? false : undefined })
        ? { progress: { columns: io.stderr.columns ?? 80, rows: io.stderr.rows ?? 24, signal: io.signal } }
        : {}),
    });
    if (statsFailed(stats)) throw new ResultError("some objects failed to apply, prune or reconcile");
  } finally {
    cluster.close();
  }
}
