// `kpt-ts live history [PKG_PATH | -]`: the changes kpt-ts recorded for the package's inventory,
// newest first (who ran which command when, what it did, how it ended).

import { UsageError } from "../errors.js";
import { listChanges } from "../history/cluster-history.js";
import { readPackage } from "../object/read-package.js";
import { createPalette } from "../print/color.js";
import { formatHistory, historyJson, printDocument, type ListOutput } from "../print/history-printer.js";
import type { GlobalFlags } from "./flags.js";
import { colorFor, packageText, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export interface HistoryFlags extends GlobalFlags {
  output: string;
}

export function listOutputFlag(value: string): ListOutput {
  if (value !== "table" && value !== "json") throw new UsageError(`unknown output type: use table or json (got --output=${JSON.stringify(value)})`);
  return value;
}

export async function liveHistory(pkgPath: string, f: HistoryFlags, io: CommandIO): Promise<void> {
  const output = listOutputFlag(f.output);
  const pkg = await readPackage(pkgPath, { stdin: await packageText(pkgPath, io), onWarning: (w) => io.stderr.write(`[WARN] ${w}\n`) });
  const { name, namespace, id } = pkg.inventory;
  const cluster = openCluster(f);
  try {
    const records = await listChanges(cluster, { namespace, inventoryId: id, signal: io.signal });
    const color = colorFor(io, f);
    printDocument(() => formatHistory({ name, namespace, id }, records, createPalette(color)), () => historyJson({ name, namespace, id }, records), { output, stdout: io.stdout, color });
  } finally {
    cluster.close();
  }
}
