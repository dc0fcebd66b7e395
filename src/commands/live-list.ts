// `kpt-ts live list [-n NAMESPACE]`: every inventory in the cluster (kpt-ts' and the real kpt's
// ResourceGroups), with its objects, the namespaces they span and its last recorded change.

import { listResourceGroups } from "../inventory/cluster-inventory.js";
import { listChanges } from "../history/cluster-history.js";
import { inventoryRows } from "../history/inventory-list.js";
import { createPalette } from "../print/color.js";
import { formatInventoryList, inventoryListJson, printDocument } from "../print/history-printer.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, listFlags } from "./command-specs.js";
import { colorFor, type CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export async function liveList(f: FlagValues<typeof listFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  const output = f.output;
  const cluster = openCluster(g, { io });
  try {
    // Without -n: every namespace (the context's namespace does not narrow it, as `kapp ls -A`).
    const namespace = cluster.namespaceEnforced ? cluster.defaultNamespace : undefined;
    const groups = await listResourceGroups(cluster, { namespace, signal: io.signal });
    const changes = groups.length ? await listChanges(cluster, { namespace, signal: io.signal }) : [];
    const rows = inventoryRows(groups, changes, new Date());
    const color = colorFor(io, g);
    printDocument(() => formatInventoryList(rows, createPalette(color)), () => inventoryListJson(rows), { output, stdout: io.stdout, color });
  } finally {
    cluster.close();
  }
}
