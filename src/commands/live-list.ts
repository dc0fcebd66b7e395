// `kpt-ts live list [-n NAMESPACE]`: every inventory in the cluster (kpt-ts' and the real kpt's
// ResourceGroups, and ApplySets, kubectl's included), with its objects, the namespaces they span
// and its last recorded change.

import { ApiError } from "../cluster/api-error.js";
import { listInventories } from "../inventory/list-inventories.js";
import { warningLine } from "../print/terminal-text.js";
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
    const { inventories } = await listInventories(cluster, { namespace, signal: io.signal, onWarning: (w) => io.stderr.write(warningLine(w)) });
    // The change records are extra: a user who may not list them (across namespaces) still gets the list.
    const changes = inventories.length ? await listChanges(cluster, { namespace, signal: io.signal }).catch((err: unknown) => (err instanceof ApiError && err.status === 403 ? [] : Promise.reject(err))) : [];
    const rows = inventoryRows(inventories, changes, new Date());
    const color = colorFor(io, g);
    printDocument(() => formatInventoryList(rows, createPalette(color)), () => inventoryListJson(rows), { output, stdout: io.stdout });
  } finally {
    cluster.close();
  }
}
