// `kpt-ts live destroy [PKG_PATH | -]`

import { runDestroy } from "../engine/run.js";
import { guardCluster } from "../fleet/cluster-guard.js";
import type { FlagValues } from "./flag-spec.js";
import type { destroyFlags, GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { planFleetRun, runFleetCommand } from "./live-fleet.js";
import { openClusterEarly, runSockets } from "./open-cluster.js";
import { showRun } from "./show-run.js";

export async function liveDestroy(pkgPath: string, f: FlagValues<typeof destroyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  // Everything but the engine's own options (engine/options.ts, keyed the same).
  const { rgFile, applySet, dryRun: dry, output, showStatusEvents, healthRules, yes, contexts, rollout, maxClustersAtOnce, allowAnyCluster, ...engine } = f;
  const fleet = { contexts, rollout, maxClustersAtOnce };
  const planned = planFleetRun(fleet, g, io, engine.concurrency);
  const early = planned ? undefined : openClusterEarly(g, { maxSockets: runSockets(engine.concurrency), io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, rgFile, { flag: applySet, namespace: g.namespace });
    const options = { ...engine, dryRun: dry ? "client" : "none", statusOptions: await statusOptionsFor(pkg, healthRules) } as const;
    if (planned) return await runFleetCommand("destroy", pkg, planned, options, { ...fleet, output, showStatusEvents, yes, dryRun: dry, allowAnyCluster }, g, io);
    const cluster = early!.use();
    await guardCluster(pkg.inventory, cluster, cluster.context, { allowAnyCluster, signal: io.signal });
    const confirm = confirmHook(pkg, { yes, dryRun: dry, output, color: colorFor(io, g) }, io);
    const events = runDestroy(pkg, cluster, { ...options, signal: io.signal, confirm });
    await showRun(events, { command: "destroy", output, showStatusEvents, globals: g, io, cluster });
  } finally {
    early?.close();
  }
}
