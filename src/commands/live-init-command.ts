// `kpt-ts live init [PKG_PATH]`: the flags and the kubeconfig's namespace, handed to runLiveInit.

import { loadConnection } from "../cluster/kubeconfig.js";
import { connectionOptions } from "./open-cluster.js";
import { ClusterError, UsageError } from "../model/errors.js";
import { DEFAULT_RG_FILE } from "../inventory/init.js";
import { DEFAULT_APPLYSET_FILE } from "../inventory/init-applyset.js";
import type { FlagValues } from "./flag-spec.js";
import type { GlobalFlags, initFlags } from "./command-specs.js";
import type { CommandIO } from "./io.js";
import { runLiveInit } from "./live-init.js";

/** The context's namespace as kpt picks it; a machine without a kubeconfig still gets "default". */
function contextNamespace(f: GlobalFlags): string {
  try {
    return loadConnection(connectionOptions(f)).namespace;
  } catch (err) {
    if (err instanceof ClusterError && !f.kubeconfig && !f.context) return "default";
    throw err;
  }
}

export async function liveInit(pkgPath: string, f: FlagValues<typeof initFlags>, g: GlobalFlags, io: CommandIO): Promise<void> {
  const applySet = f.inventoryKind === "applyset";
  if (!applySet && f.applysetParent !== "secrets") throw new UsageError("--applyset-parent is for --inventory-kind applyset");
  if (applySet && f.inventoryId) throw new UsageError("--inventory-id is for a ResourceGroup: an ApplySet's id follows from its parent's name, namespace and kind");
  await runLiveInit({
    dir: pkgPath,
    ...(applySet ? { applySet: { parentKind: f.applysetParent === "configmaps" ? ("ConfigMap" as const) : ("Secret" as const) } } : {}),
    name: f.name,
    namespace: g.namespace,
    inventoryId: f.inventoryId,
    force: f.force,
    quiet: f.quiet,
    // The default file name follows the kind.
    rgFile: applySet && f.rgFile === DEFAULT_RG_FILE ? DEFAULT_APPLYSET_FILE : f.rgFile,
    contextNamespace: g.namespace ?? contextNamespace(g),
    stderr: io.stderr,
  });
}
