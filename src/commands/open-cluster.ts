// The cluster a command talks to, from the global flags (kubectl's connection flags).

import { KubeCluster } from "../cluster/kube-cluster.js";
import { ENGINE_DEFAULTS } from "../engine/options.js";
import type { KubeconfigOptions } from "../cluster/kubeconfig.js";
import type { GlobalFlags } from "./command-specs.js";

/** The connection flags as the cluster layer takes them. */
export function connectionOptions(g: GlobalFlags): KubeconfigOptions {
  return {
    kubeconfig: g.kubeconfig,
    context: g.context,
    namespace: g.namespace,
    cluster: g.cluster,
    user: g.user,
    server: g.server,
    token: g.token,
    username: g.username,
    password: g.password,
    certificateAuthority: g.certificateAuthority,
    clientCertificate: g.clientCertificate,
    clientKey: g.clientKey,
    insecureSkipTlsVerify: g.insecureSkipTlsVerify || undefined,
    tlsServerName: g.tlsServerName,
    as: g.as,
    asGroups: g.asGroup,
    asUid: g.asUid,
    requestTimeoutMs: g.requestTimeout,
    disableCompression: g.disableCompression || undefined,
  };
}

export function openCluster(g: GlobalFlags, opts: { maxSockets?: number } = {}): KubeCluster {
  return new KubeCluster({ ...connectionOptions(g), maxSockets: opts.maxSockets, userAgent: "kpt-ts", ...(g.cacheDir ? { httpCache: g.cacheDir } : {}) });
}

/** Connections an engine run uses: its writes at once (--concurrency), and its watches besides. */
export function runSockets(concurrency: number | undefined): number {
  return (concurrency ?? ENGINE_DEFAULTS.concurrency) + 32;
}

/** A cluster opened before the package is read; `use()` hands it over (or throws its configuration error). */
export interface EarlyCluster {
  use(): KubeCluster;
  close(): void;
}

/**
 * Opens the cluster and starts its preparation (KubeCluster.prepare) before the command reads its
 * package, so the two overlap. An error in the connection settings is kept for `use()`, after the
 * package was read: a broken package is still reported first, as it was before.
 */
export function openClusterEarly(g: GlobalFlags, opts: { maxSockets?: number; openapi?: boolean } = {}): EarlyCluster {
  let cluster: KubeCluster | undefined;
  let error: unknown;
  try {
    cluster = openCluster(g, opts);
    cluster.prepare({ openapi: opts.openapi });
  } catch (err) {
    error = err;
  }
  return {
    use: () => {
      if (!cluster) throw error;
      return cluster;
    },
    close: () => cluster?.close(),
  };
}
