// The cluster a command talks to, from the global flags.

import { KubeCluster } from "../cluster/kube-cluster.js";
import type { GlobalFlags } from "./command-specs.js";

export function openCluster(g: GlobalFlags, opts: { maxSockets?: number } = {}): KubeCluster {
  return new KubeCluster({ kubeconfig: g.kubeconfig, context: g.context, namespace: g.namespace, maxSockets: opts.maxSockets, userAgent: "kpt-ts" });
}
