// A CustomResourceDefinition reports Established a moment before the API server's discovery lists
// its kinds; a custom resource applied in that moment would fail with "not served". After a wave
// of CRDs, wait (bounded) until discovery serves every version they serve.

import { setTimeout as sleep } from "node:timers/promises";
import type { Cluster } from "../cluster/types.js";
import type { KubeObject } from "../model/kube-object.js";

/** `group/version` + kind of every version a CRD declares served. Pure. */
export function servedKinds(crd: KubeObject): { apiVersion: string; kind: string }[] {
  const spec = (crd as { spec?: { group?: unknown; names?: { kind?: unknown }; versions?: unknown } }).spec;
  const group = typeof spec?.group === "string" ? spec.group : undefined;
  const kind = typeof spec?.names?.kind === "string" ? spec.names.kind : undefined;
  if (!group || !kind || !Array.isArray(spec?.versions)) return [];
  return spec.versions
    .filter((v): v is { name: string; served: boolean } => typeof v?.name === "string" && v?.served === true)
    .map((v) => ({ apiVersion: `${group}/${v.name}`, kind }));
}

/**
 * Resolves once the cluster's discovery serves every kind, or when `timeoutMs` has passed (the
 * custom resources then fail with the usual "not served" message, naming the kind).
 */
export async function waitUntilServed(cluster: Cluster, kinds: { apiVersion: string; kind: string }[], opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let pending = kinds;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    cluster.resetDiscovery();
    const served = await Promise.all(pending.map((k) => cluster.serves(k.apiVersion, k.kind)));
    pending = pending.filter((_, i) => !served[i]);
    if (pending.length === 0 || Date.now() > deadline || opts.signal?.aborted) return;
    await sleep(delay, undefined, { signal: opts.signal }).catch(() => undefined);
  }
}
