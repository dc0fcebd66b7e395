// `kpt-ts live diff [PKG_PATH | -]`: what the next apply would change. The apply itself, as a
// server-side dry run (computed locally for an identity that may only read, or with --local),
// read into its change set. Resolves to the exit code (0 no changes, 1 changes, 2 trouble);
// src/cli.ts exits with it.

import { collectChangeSet, diffExitCode, type ChangeSet } from "../diff/change-set.js";
import { UsageError } from "../model/errors.js";
import { printChangeSet, printDiffAnnotations, type DiffOutput } from "../print/diff-printer.js";
import { appendStepSummary, formatChangeSetMarkdown } from "../print/markdown-printer.js";
import { localPreviewNote } from "../apply/local-preview.js";
import { runApply } from "../engine/run.js";
import type { FlagValues } from "./flag-spec.js";
import type { diffFlags, GlobalFlags } from "./command-specs.js";
import { colorFor, readCommandPackage, type CommandIO } from "./io.js";
import { planFleetRun, previewFleet } from "./live-fleet.js";
import { openClusterEarly, runSockets } from "./open-cluster.js";

export async function liveDiff(pkgPath: string, f: FlagValues<typeof diffFlags>, g: GlobalFlags, io: CommandIO): Promise<0 | 1 | 2> {
  // Everything but the engine's own options (engine/options.ts, keyed the same).
  const { output, local, applySet, contexts, maxClustersAtOnce, ...engine } = f;
  if (engine.forceConflicts && !engine.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  const localNote = local ? { local: localPreviewNote("--local", engine.serverSide) } : {};
  const planned = planFleetRun({ contexts, maxClustersAtOnce }, g, io, engine.concurrency);
  const early = planned ? undefined : openClusterEarly(g, { maxSockets: runSockets(engine.concurrency), openapi: !engine.serverSide, io });
  try {
    const pkg = await readCommandPackage(pkgPath, io, undefined, { flag: applySet, namespace: g.namespace });
    const options = { ...engine, dryRun: local ? "client" : "server" } as const;
    if (planned) return (await previewFleet(pkg, planned, options, { output, title: "kpt-ts live diff", codes: "diff", maxClustersAtOnce, ...localNote }, g, io)) as 0 | 1 | 2;
    const changes = await collectChangeSet(runApply(pkg, early!.use(), { ...options, signal: io.signal }), localNote);
    await showPreview(changes, "kpt-ts live diff", output, g, io);
    return diffExitCode(changes);
  } finally {
    early?.close();
  }
}

/** Prints the preview, and in a GitHub Actions job appends it as Markdown to the step summary. */
export async function showPreview(changes: ChangeSet, title: string, output: DiffOutput, g: GlobalFlags, io: CommandIO): Promise<void> {
  printChangeSet(changes, { output, stdout: io.stdout, color: colorFor(io, g), title });
  if (io.env.GITHUB_ACTIONS === "true") printDiffAnnotations(changes, io.stderr, process.cwd());
  const summary = io.env.GITHUB_STEP_SUMMARY;
  if (summary) await appendStepSummary(summary, formatChangeSetMarkdown(changes, title));
}
