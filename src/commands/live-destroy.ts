// `kpt-ts live destroy [PKG_PATH | -]`

import { runDestroy } from "../engine/run-destroy.js";
import type { FlagValues } from "./flag-spec.js";
import type { destroyFlags, GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { openClusterEarly } from "./open-cluster.js";
import { showRun } from "./show-run.js";

export async function liveDestroy(pkgPath: string, f: FlagValues<typeof destroyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  const dryRun = f.dryRun ? ("client" as const) : ("none" as const);
  const early = openClusterEarly(g, { maxSockets: (f.concurrency ?? 16) + 32, io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, f.rgFile);
    const statusOptions = await statusOptionsFor(pkg, f.healthRules);
    const cluster = early.use();
    const confirm = confirmHook(pkg, { command: "destroy", yes: f.yes, dryRun: f.dryRun, output: f.output, color: colorFor(io, g) }, io);
    const events = runDestroy(pkg, cluster, {
      dryRun,
      inventoryPolicy: f.inventoryPolicy,
      prunePropagationPolicy: f.deletePropagationPolicy,
      pruneTimeoutMs: f.deleteTimeout,
      concurrency: f.concurrency,
      statusOptions,
      signal: io.signal,
      confirm,
    });
    await showRun(events, { command: "destroy", cluster, output: f.output, showStatusEvents: f.showStatusEvents, historyLimit: f.historyLimit, globals: g, io });
  } finally {
    early.close();
  }
}
