// `kpt-ts live diff [PKG_PATH | -]`: what the next apply would change, as the server computes it.
// Resolves to the exit code (0 no changes, 1 changes, 2 trouble); src/cli.ts exits with it.

import { UsageError } from "../errors.js";
import { computeDiff } from "../diff/compute-diff.js";
import { diffExitCode } from "../diff/change-set.js";
import { readPackage } from "../object/read-package.js";
import { printChangeSet, type DiffOutput } from "../print/diff-printer.js";
import { inventoryPolicyFlag, parseFlag, positiveIntFlag, type GlobalFlags } from "./flags.js";
import { colorFor, packageText, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export interface DiffFlags extends GlobalFlags {
  serverSide?: boolean;
  fieldManager: string;
  forceConflicts?: boolean;
  inventoryPolicy: string;
  output: string;
  concurrency?: string;
}

export async function liveDiff(pkgPath: string, f: DiffFlags, io: CommandIO): Promise<0 | 1 | 2> {
  if (f.output !== "text" && f.output !== "json") throw new UsageError(`unknown output type: use text or json (got --output=${JSON.stringify(f.output)})`);
  const output: DiffOutput = f.output;
  if (f.forceConflicts && !f.serverSide) throw new UsageError("--force-conflicts only applies with --server-side");
  const options = {
    serverSide: Boolean(f.serverSide),
    fieldManager: f.fieldManager,
    forceConflicts: Boolean(f.forceConflicts),
    inventoryPolicy: parseFlag(inventoryPolicyFlag, f.inventoryPolicy, "inventory-policy"),
    concurrency: positiveIntFlag(f.concurrency, "concurrency") ?? 16,
    signal: io.signal,
  };
  const pkg = await readPackage(pkgPath, { stdin: await packageText(pkgPath, io), onWarning: (w) => io.stderr.write(`[WARN] ${w}\n`) });
  const cluster = openCluster(f, { maxSockets: options.concurrency + 8 });
  try {
    const changes = await computeDiff(pkg, cluster, options);
    printChangeSet(changes, { output, stdout: io.stdout, color: colorFor(io, f) });
    return diffExitCode(changes);
  } finally {
    cluster.close();
  }
}
