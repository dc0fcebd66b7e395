// `kpt-ts live init [PKG_PATH]`: the flags and the kubeconfig's namespace, handed to runLiveInit.

import { loadConnection } from "../cluster/kubeconfig.js";
import { connectionOptions } from "./open-cluster.js";
import { ClusterError } from "../model/errors.js";
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
  await runLiveInit({
    dir: pkgPath,
    name: f.name,
    namespace: g.namespace,
    inventoryId: f.inventoryId,
    force: f.force,
    quiet: f.quiet,
    rgFile: f.rgFile,
    contextNamespace: g.namespace ?? contextNamespace(g),
    stderr: io.stderr,
  });
}
