// `kpt-ts live apply [PKG_PATH | -]`

import { localPreviewNote } from "../apply/local-preview.js";
import { collectChangeSet } from "../diff/change-set.js";
import { runApply } from "../engine/run.js";
import { ResultError, UsageError } from "../model/errors.js";
import type { FlagValues } from "./flag-spec.js";
import type { applyFlags, GlobalFlags } from "./command-specs.js";
import { confirmHook } from "./confirm-deletes.js";
import { colorFor, readCommandPackage, statusOptionsFor, type CommandIO } from "./io.js";
import { showPreview } from "./live-diff.js";
import { openClusterEarly, runSockets } from "./open-cluster.js";
import { showRun } from "./show-run.js";

export async function liveApply(pkgPath: string, f: FlagValues<typeof applyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  // Everything but the engine's own options (engine/options.ts, keyed the same).
  const { rgFile, applySet, dryRun: dry, output, local, showStatusEvents, healthRules, yes, ...engine } = f;
  if (engine.forceConflicts && !engine.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  if (!engine.wait && (engine.reconcileTimeoutMs !== undefined || engine.pruneTimeoutMs !== undefined)) {
    throw new UsageError(`--wait=false waits for nothing, so --${engine.reconcileTimeoutMs !== undefined ? "reconcile" : "prune"}-timeout has no effect: drop one of them`);
  }
  if (!dry && (local || output === "markdown")) throw new UsageError(`${local ? "--local" : "--output markdown"} is for previews: add --dry-run, or use live diff`);
  const dryRun = !dry ? "none" : engine.serverSide && !local ? "server" : "client";
  const early = openClusterEarly(g, { maxSockets: runSockets(engine.concurrency), openapi: !engine.serverSide, io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, rgFile, { flag: applySet, namespace: g.namespace });
    const statusOptions = await statusOptionsFor(pkg, healthRules);
    const cluster = early.use();
    const confirm = confirmHook(pkg, { yes, dryRun: dry, output, color: colorFor(io, g) }, io);
    const events = runApply(pkg, cluster, { ...engine, dryRun, statusOptions, signal: io.signal, confirm });
    if (output !== "markdown") return await showRun(events, { command: "apply", output, showStatusEvents, globals: g, io });
    // The dry run's change set, as `live diff` shows it. Client-side dry runs are computed locally.
    const why = local ? "--local" : dryRun === "client" ? "a client-side dry run, as kpt's --dry-run" : undefined;
    const changes = await collectChangeSet(events, why ? { local: localPreviewNote(why, engine.serverSide) } : {});
    await showPreview(changes, "kpt-ts live apply --dry-run", "markdown", g, io);
    if (changes.changes.some((c) => c.error)) throw new ResultError("some objects would fail to apply");
  } finally {
    early.close();
  }
}
