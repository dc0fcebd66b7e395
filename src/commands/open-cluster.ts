// The cluster a command talks to, from the global flags (kubectl's connection flags).

import { KubeCluster, type KubeClusterOptions } from "../cluster/kube-cluster.js";
import { ENGINE_DEFAULTS } from "../engine/options.js";
import type { KubeconfigOptions } from "../cluster/kubeconfig.js";
import { escapingStream, noteLine } from "../print/terminal-text.js";
import type { GlobalFlags } from "./command-specs.js";
import type { CommandIO } from "./io.js";

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

/**
 * The cluster of a command: cancelled with the run (a credential plugin is stopped, discovery no
 * longer waited for), a plugin's stderr shown escaped, and under -v a note when the discovery
 * cache may not be used.
 */
export function openCluster(g: GlobalFlags, opts: { maxSockets?: number; io: CommandIO }): KubeCluster {
  return new KubeCluster(clusterOptions(g, opts));
}

/** Everything openCluster gives KubeCluster: the connection flags and what the process adds. */
export function clusterOptions(g: GlobalFlags, { maxSockets, io }: { maxSockets?: number; io: CommandIO }): KubeClusterOptions {
  return {
    ...connectionOptions(g),
    maxSockets,
    userAgent: "kpt-ts",
    ...(g.cacheDir ? { httpCache: g.cacheDir } : {}),
    signal: io.signal,
    pluginStderr: escapingStream(io.stderr),
    ...(g.v ? { onNote: (m: string) => void io.stderr.write(noteLine(m)) } : {}),
  };
}

/** Connections an engine run uses: its writes at once (--concurrency), and its watches besides. */
export function runSockets(concurrency: number | undefined): number {
  return (concurrency ?? ENGINE_DEFAULTS.concurrency) + 32;
}

/** A cluster opened before the package is read; `use()` hands it over (or throws its configuration error). */
interface EarlyCluster {
  use(): KubeCluster;
  close(): void;
}

/**
 * Opens the cluster and starts its preparation (KubeCluster.prepare) before the command reads its
 * package, so the two overlap. An error in the connection settings is kept for `use()`, after the
 * package was read: a broken package is still reported first, as it was before.
 */
export function openClusterEarly(g: GlobalFlags, opts: { maxSockets?: number; openapi?: boolean; io: CommandIO }): EarlyCluster {
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
