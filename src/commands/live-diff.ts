// `kpt-ts live diff [PKG_PATH | -]`: what the next apply would change, as the server computes it
// (or locally, for an identity that may only read, or with --local).
// Resolves to the exit code (0 no changes, 1 changes, 2 trouble); src/cli.ts exits with it.

import { diffExitCode, type ChangeSet } from "../diff/change-set.js";
import { computeDiff, type DiffOptions } from "../diff/compute-diff.js";
import { UsageError } from "../errors.js";
import { printChangeSet, printDiffAnnotations, type DiffOutput } from "../print/diff-printer.js";
import { appendStepSummary, formatChangeSetMarkdown } from "../print/markdown-printer.js";
import type { FlagValues } from "./flag-spec.js";
import type { diffFlags, GlobalFlags } from "./command-specs.js";
import { colorFor, readCommandPackage, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export async function liveDiff(pkgPath: string, f: FlagValues<typeof diffFlags>, g: GlobalFlags, io: CommandIO): Promise<0 | 1 | 2> {
  if (f.forceConflicts && !f.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  const changes = await previewChanges(pkgPath, { ...f, concurrency: f.concurrency ?? 16 }, g, io);
  await showPreview(changes, "kpt-ts live diff", f.output, g, io);
  return diffExitCode(changes);
}

/** The change set of the next apply (shared with `live apply --dry-run --output markdown`). */
export async function previewChanges(pkgPath: string, o: Omit<DiffOptions, "signal">, g: GlobalFlags, io: CommandIO, rgFile?: string): Promise<ChangeSet> {
  const pkg = await readCommandPackage(pkgPath, io, rgFile);
  const cluster = openCluster(g, { maxSockets: o.concurrency + 8, io });
  try {
    return await computeDiff(pkg, cluster, { ...o, signal: io.signal });
  } finally {
    cluster.close();
  }
}

/** Prints the preview, and in a GitHub Actions job appends it as Markdown to the step summary. */
export async function showPreview(changes: ChangeSet, title: string, output: DiffOutput, g: GlobalFlags, io: CommandIO): Promise<void> {
  printChangeSet(changes, { output, stdout: io.stdout, color: colorFor(io, g), title });
  if (io.env.GITHUB_ACTIONS === "true") printDiffAnnotations(changes, io.stderr, process.cwd());
  const summary = io.env.GITHUB_STEP_SUMMARY;
  if (summary) await appendStepSummary(summary, formatChangeSetMarkdown(changes, title));
}
