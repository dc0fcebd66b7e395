// The line a person reads when the package's inventory is not in the cluster: `live destroy`
// then deletes nothing and `live status` finds nothing, exit 0 as kpt, whose output alone looks
// the same as an empty package's (a wrong context, say). It names the inventory and the cluster
// asked, on stderr, so kpt's own output (stdout, `--output json`) stays as kpt's. Pure.

import { escapeTerminal } from "./terminal-text.js";

export interface AskedCluster {
  /** The kubeconfig context, when there is one. */
  context?: string;
  server: string;
}

export function absentInventoryLine(command: "destroy" | "status", inventory: { name: string; namespace: string }, asked: AskedCluster): string {
  const where = asked.context ? `context "${asked.context}", ${asked.server}` : asked.server;
  const what = command === "destroy" ? "nothing to delete: " : "";
  const line =
    `${what}the inventory ResourceGroup ${inventory.namespace}/${inventory.name} is not in the cluster (${where}): ` +
    `this package was never applied there${command === "destroy" ? ", or was destroyed already" : ""}; if it was applied to another cluster, pass that cluster's --context`;
  return `${escapeTerminal(line)}\n`;
}
