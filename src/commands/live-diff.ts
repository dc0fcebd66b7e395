// `kpt-ts live diff [PKG_PATH | -]`: what the next apply would change, as the server computes it.
// Resolves to the exit code (0 no changes, 1 changes, 2 trouble); src/cli.ts exits with it.

import { diffExitCode } from "../diff/change-set.js";
import { computeDiff } from "../diff/compute-diff.js";
import { UsageError } from "../errors.js";
import { printChangeSet } from "../print/diff-printer.js";
import type { FlagValues } from "./flag-spec.js";
import type { diffFlags, GlobalFlags } from "./command-specs.js";
import { colorFor, readCommandPackage, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export async function liveDiff(pkgPath: string, f: FlagValues<typeof diffFlags>, g: GlobalFlags, io: CommandIO): Promise<0 | 1 | 2> {
  if (f.forceConflicts && !f.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  const concurrency = f.concurrency ?? 16;
  const pkg = await readCommandPackage(pkgPath, io);
  const cluster = openCluster(g, { maxSockets: concurrency + 8 });
  try {
    const changes = await computeDiff(pkg, cluster, {
      serverSide: f.serverSide,
      fieldManager: f.fieldManager,
      forceConflicts: f.forceConflicts,
      inventoryPolicy: f.inventoryPolicy,
      concurrency,
      signal: io.signal,
    });
    printChangeSet(changes, { output: f.output, stdout: io.stdout, color: colorFor(io, g) });
    return diffExitCode(changes);
  } finally {
    cluster.close();
  }
}
