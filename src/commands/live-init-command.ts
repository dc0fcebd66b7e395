// `kpt-ts live init [PKG_PATH]`: the flags and the kubeconfig's namespace, handed to runLiveInit.

import { loadConnection } from "../cluster/kubeconfig.js";
import { ClusterError } from "../errors.js";
import type { GlobalFlags } from "./flags.js";
import type { CommandIO } from "./io.js";
import { runLiveInit } from "./live-init.js";

export interface InitFlags extends GlobalFlags {
  name?: string;
  inventoryId?: string;
  force?: boolean;
  quiet?: boolean;
  rgFile: string;
}

/** The context's namespace as kpt picks it; a machine without a kubeconfig still gets "default". */
function contextNamespace(f: GlobalFlags): string {
  try {
    return loadConnection({ kubeconfig: f.kubeconfig, context: f.context }).namespace;
  } catch (err) {
    if (err instanceof ClusterError && !f.kubeconfig && !f.context) return "default";
    throw err;
  }
}

export async function liveInit(pkgPath: string, f: InitFlags, io: CommandIO): Promise<void> {
  await runLiveInit({
    dir: pkgPath,
    name: f.name,
    namespace: f.namespace,
    inventoryId: f.inventoryId,
    force: Boolean(f.force),
    quiet: Boolean(f.quiet),
    rgFile: f.rgFile,
    contextNamespace: f.namespace ?? contextNamespace(f),
    stderr: io.stderr,
  });
}
