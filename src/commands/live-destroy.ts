// `kpt-ts live destroy [PKG_PATH | -]`

import { runDestroy } from "../engine/run.js";
import type { FlagValues } from "./flag-spec.js";
import type { destroyFlags, GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { openClusterEarly, runSockets } from "./open-cluster.js";
import { showRun } from "./show-run.js";

export async function liveDestroy(pkgPath: string, f: FlagValues<typeof destroyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  // Everything but the engine's own options (engine/options.ts, keyed the same).
  const { rgFile, applySet, dryRun: dry, output, showStatusEvents, healthRules, yes, ...engine } = f;
  const early = openClusterEarly(g, { maxSockets: runSockets(engine.concurrency), io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, rgFile, { flag: applySet, namespace: g.namespace });
    const statusOptions = await statusOptionsFor(pkg, healthRules);
    const cluster = early.use();
    const confirm = confirmHook(pkg, { yes, dryRun: dry, output, color: colorFor(io, g) }, io);
    const events = runDestroy(pkg, cluster, { ...engine, dryRun: dry ? "client" : "none", statusOptions, signal: io.signal, confirm });
    await showRun(events, { command: "destroy", output, showStatusEvents, globals: g, io });
  } finally {
    early.close();
  }
}
