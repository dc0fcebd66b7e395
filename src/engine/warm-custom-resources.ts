// Before a CRD is deleted, its custom resources are listed once (one item at most, metadata only).
// The API server creates a kind's storage, and with it the watch cache, on the first request for
// that kind; since Kubernetes 1.34 a read of a cache still filling is refused (429 "storage is
// (re)initializing") instead of held. A CRD whose resources nobody read is deleted: its finalizer
// (customresourcecleanup) lists them as that first request, is refused (the CRD's Terminating
// condition says InstanceDeletionFailed), and tries again on an exponential backoff: seconds on a
// busy server, three minutes once (issue 30, Argo CD's destroy). Read first (the transport waits
// out the 429s), the cache is ready when the finalizer asks. Best effort: a failed read deletes
// the CRD all the same.

import type { Cluster } from "../cluster/types.js";
import { crdGroupKind, type KubeObject } from "../model/kube-object.js";

/** How long a delete waits for the read before it goes ahead (a cache that fills this slowly helps nobody). */
const WARM_TIMEOUT_MS = 10_000;

export function warmCustomResources(cluster: Cluster, crd: KubeObject, signal?: AbortSignal): Promise<void> {
  const gk = crdGroupKind(crd);
  if (!gk?.group || !gk.kind) return Promise.resolve();
  const timeout = AbortSignal.timeout(WARM_TIMEOUT_MS);
  return cluster.list(gk.group, gk.kind, undefined, { metadataOnly: true, limit: 1, signal: signal ? AbortSignal.any([signal, timeout]) : timeout }).then(
    () => undefined,
    () => undefined,
  );
}
