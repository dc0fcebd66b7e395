// `kpt-ts live apply [PKG_PATH | -]`

import { localPreviewNote } from "../apply/local-preview.js";
import { collectChangeSet } from "../diff/change-set.js";
import { runApply } from "../engine/run.js";
import { guardCluster } from "../fleet/cluster-guard.js";
import { FleetError, ResultError, UsageError } from "../model/errors.js";
import type { FlagValues } from "./flag-spec.js";
import type { applyFlags, GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { showPreview } from "./live-diff.js";
import { planFleetRun, previewFleet, runFleetCommand } from "./live-fleet.js";
import { openClusterEarly, runSockets } from "./open-cluster.js";
import { showRun } from "./show-run.js";

export async function liveApply(pkgPath: string, f: FlagValues<typeof applyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  // Everything but the engine's own options (engine/options.ts, keyed the same).
  const { rgFile, applySet, dryRun: dry, output, local, showStatusEvents, healthRules, yes, contexts, rollout, maxClustersAtOnce, allowAnyCluster, ...engine } = f;
  if (engine.forceConflicts && !engine.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  if (!engine.wait && engine.waitForJobs) throw new UsageError("--wait=false waits for nothing, so --wait-for-jobs has no effect: drop one of them");
  if (!engine.wait && (engine.reconcileTimeoutMs !== undefined || engine.pruneTimeoutMs !== undefined)) {
    throw new UsageError(`--wait=false waits for nothing, so --${engine.reconcileTimeoutMs !== undefined ? "reconcile" : "prune"}-timeout has no effect: drop one of them`);
  }
  if (!dry && (local || output === "markdown")) throw new UsageError(`${local ? "--local" : "--output markdown"} is for previews: add --dry-run, or use live diff`);
  const dryRun = !dry ? "none" : engine.serverSide && !local ? "server" : "client";
  // The dry run's change set, as `live diff` shows it. Client-side dry runs are computed locally.
  const why = local ? "--local" : dryRun === "client" ? "a client-side dry run, as kpt's --dry-run" : undefined;
  const fleet = { contexts, rollout, maxClustersAtOnce };
  const planned = planFleetRun(fleet, g, io, engine.concurrency);
  const early = planned ? undefined : openClusterEarly(g, { maxSockets: runSockets(engine.concurrency), openapi: !engine.serverSide, io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, rgFile, { flag: applySet, namespace: g.namespace });
    const options = { ...engine, dryRun, statusOptions: await statusOptionsFor(pkg, healthRules) } as const;
    const localNote = why ? { local: localPreviewNote(why, engine.serverSide) } : {};
    const title = "kpt-ts live apply --dry-run";
    if (planned) {
      if (output !== "markdown") return await runFleetCommand("apply", pkg, planned, options, { ...fleet, output, showStatusEvents, yes, dryRun: dry, allowAnyCluster }, g, io);
      const code = await previewFleet(pkg, planned, options, { output, title, codes: "run", guard: { allowAnyCluster }, maxClustersAtOnce, ...localNote }, g, io);
      if (code !== 0) throw new FleetError("the dry run did not succeed on every cluster (see the summary)", code);
      return;
    }
    const cluster = early!.use();
    await guardCluster(pkg.inventory, cluster, cluster.context, { allowAnyCluster, signal: io.signal });
    const confirm = confirmHook(pkg, { yes, dryRun: dry, output, color: colorFor(io, g) }, io);
    const events = runApply(pkg, cluster, { ...options, signal: io.signal, confirm });
    if (output !== "markdown") return await showRun(events, { command: "apply", output, showStatusEvents, globals: g, io });
    const changes = await collectChangeSet(events, localNote);
    await showPreview(changes, title, "markdown", g, io);
    if (changes.changes.some((c) => c.error)) throw new ResultError("some objects would fail to apply");
  } finally {
    early?.close();
  }
}
