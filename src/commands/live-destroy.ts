// `kpt-ts live destroy [PKG_PATH | -]`

import { runDestroy } from "../engine/run-destroy.js";
import { ResultError } from "../errors.js";
import { statsFailed } from "../events.js";
import { DEFAULT_HISTORY_LIMIT } from "../history/change-record.js";
import { recordChanges } from "../history/record-changes.js";
import { readPackage } from "../object/read-package.js";
import { printRun } from "../print/printer.js";
import { wantsProgressView } from "../print/progress-view.js";
import { durationFlag, inventoryPolicyFlag, nonNegativeIntFlag, outputFlag, parseFlag, positiveIntFlag, propagationFlag, type GlobalFlags } from "./flags.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, packageText, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export interface DestroyFlags extends GlobalFlags {
  dryRun?: boolean;
  inventoryPolicy: string;
  output: string;
  showStatusEvents?: boolean;
  statusPolicy: string;
  deletePropagationPolicy: string;
  deleteTimeout?: string;
  concurrency?: string;
  historyLimit?: string;
  yes?: boolean;
}

export async function liveDestroy(pkgPath: string, f: DestroyFlags, io: CommandIO): Promise<void> {
  const output = parseFlag(outputFlag, f.output, "output");
  const options = {
    dryRun: f.dryRun ? ("client" as const) : ("none" as const),
    inventoryPolicy: parseFlag(inventoryPolicyFlag, f.inventoryPolicy, "inventory-policy"),
    prunePropagationPolicy: parseFlag(propagationFlag, f.deletePropagationPolicy, "delete-propagation-policy"),
    pruneTimeoutMs: durationFlag(f.deleteTimeout, "delete-timeout"),
    concurrency: positiveIntFlag(f.concurrency, "concurrency"),
    signal: io.signal,
  };
  const historyLimit = nonNegativeIntFlag(f.historyLimit, "history-limit") ?? DEFAULT_HISTORY_LIMIT;
  const pkg = await readPackage(pkgPath, { stdin: await packageText(pkgPath, io), onWarning: (w) => io.stderr.write(`[WARN] ${w}\n`) });
  const cluster = openCluster(f, { maxSockets: (options.concurrency ?? 16) + 32 });
  try {
    const color = colorFor(io, f);
    const events = runDestroy(pkg, cluster, { ...options, confirm: confirmHook(pkg, { command: "destroy", yes: Boolean(f.yes), dryRun: options.dryRun !== "none", output, color }, io) });
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
    if (statsFailed(stats)) throw new ResultError("some objects failed to be deleted");
  } finally {
    cluster.close();
  }
}
