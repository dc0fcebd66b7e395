// `kpt-ts live __names context|namespace|inventory` (hidden): the names the completion scripts
// offer for --context, -n / --namespaces and --inv-names (ResourceGroups and ApplySet parents),
// one a line, read with the connection flags typed earlier on the command line (--kubeconfig,
// --context), as kubectl's own completion reads them. These names come from a kubeconfig or an API server, so they are text only: the
// scripts read them line by line and quote them for the command line, never evaluating them, and
// a name no line can hold (a newline or any other control character) is left out here.

import { readKubeconfigs } from "../cluster/kubeconfig-files.js";
import { listApplySetParents } from "../inventory/cluster-applyset.js";
import { listResourceGroups } from "../inventory/cluster-inventory.js";
import { UsageError } from "../model/errors.js";
import type { GlobalFlags } from "./command-specs.js";
import type { CommandIO } from "./io.js";
import { openCluster } from "./open-cluster.js";

export const NAME_KINDS = ["context", "namespace", "inventory"] as const;
export type NameKind = (typeof NAME_KINDS)[number];

/** A TAB waits no longer than this for the server, unless --request-timeout says otherwise. */
const COMPLETION_TIMEOUT_MS = 5000;

/** A name a line of text holds as it is: not empty, no control character (newline, tab, escape...). */
export function offerable(name: unknown): name is string {
  return typeof name === "string" && name !== "" && !/[\u0000-\u001f\u007f-\u009f]/.test(name);
}

export async function completeNames(kind: string, g: GlobalFlags, io: CommandIO): Promise<void> {
  const names = [...new Set((await listNames(kind, g, io)).filter(offerable))];
  // Inventories come from every namespace: one name may be several inventories'.
  if (kind === "inventory") names.sort();
  io.stdout.write(names.map((n) => `${n}\n`).join(""));
}

async function listNames(kind: string, g: GlobalFlags, io: CommandIO): Promise<unknown[]> {
  if (kind === "context") return [...readKubeconfigs(g.kubeconfig, io.env).contexts.keys()];
  if (kind !== "namespace" && kind !== "inventory") throw new UsageError(`unknown kind of name ${JSON.stringify(kind)}: use ${NAME_KINDS.join(", ")}`);
  const cluster = openCluster({ ...g, requestTimeout: g.requestTimeout || COMPLETION_TIMEOUT_MS }, { io });
  try {
    // Inventories: ResourceGroups and ApplySet parents, as --inv-names selects them. A user who
    // may not list Secrets or ConfigMaps everywhere still gets the ResourceGroups.
    const items =
      kind === "namespace"
        ? (await cluster.list("", "Namespace", undefined, { signal: io.signal })).items
        : (await Promise.all([listResourceGroups(cluster, { signal: io.signal }), listApplySetParents(cluster, { signal: io.signal }).catch(() => [])])).flat();
    return items.map((o) => o.metadata?.name);
  } finally {
    cluster.close();
  }
}
