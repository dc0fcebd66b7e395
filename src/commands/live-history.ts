// `kpt-ts live history [PKG_PATH | -]`: the changes kpt-ts recorded for the package's inventory,
// newest first (who ran which command when, what it did, how it ended).

import { listChanges } from "../history/cluster-history.js";
import { createPalette } from "../print/color.js";
import { formatHistory, historyJson, printDocument } from "../print/history-printer.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, historyFlags } from "./command-specs.js";
import { colorFor, readCommandPackage, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export async function liveHistory(pkgPath: string, f: FlagValues<typeof historyFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  const output = f.output;
  const pkg = await readCommandPackage(pkgPath, io, undefined, { flag: f.applySet, namespace: g.namespace });
  const { name, namespace, id } = pkg.inventory;
  const cluster = openCluster(g, { io });
  try {
    const records = await listChanges(cluster, { namespace, inventoryId: id, signal: io.signal });
    const color = colorFor(io, g);
    const kind = pkg.inventory.applySet ? `ApplySet (${pkg.inventory.applySet.kind})` : "ResourceGroup";
    printDocument(() => formatHistory({ name, namespace, id, kind }, records, createPalette(color)), () => historyJson({ name, namespace, id }, records), { output, stdout: io.stdout });
  } finally {
    cluster.close();
  }
}
