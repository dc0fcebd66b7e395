// A CustomResourceDefinition reports Established a moment before the API server's discovery lists
// its kinds; a custom resource applied in that moment would fail with "not served". After a wave
// of CRDs (the serve-kinds step), wait (bounded) until discovery serves every version they serve.

import { setTimeout as sleep } from "node:timers/promises";
import type { Cluster } from "../cluster/types.js";
import { crdGroupKind, type KubeObject } from "../model/kube-object.js";
import type { StepOf } from "../model/plan.js";
import { refKey, type ObjRef } from "../model/ref.js";
import type { StepHandler } from "./step-context.js";

export const serveKindsStep: StepHandler<StepOf<"serve-kinds">> = {
  async run(step, ctx) {
    const { tally } = ctx.recorder;
    // Established as far as the run saw: reconciled when it waited for the wave, else written.
    const ready = (r: ObjRef) => (tally.reconciled(r) ?? tally.actuated(r)) === "Successful";
    const crds = step.crds.filter(ready).map((r) => ctx.applies.get(refKey(r))!.object);
    await waitUntilServed(ctx.cluster, crds.flatMap(servedKinds), { signal: ctx.o.signal });
    // The kinds the cache could not read before are read now, for the waits of later waves.
    await ctx.cache.refreshUnserved();
  },
};

/** `group/version` + kind of every version a CRD declares served. Pure. */
export function servedKinds(crd: KubeObject): { apiVersion: string; kind: string }[] {
  const gk = crdGroupKind(crd);
  const versions = (crd as { spec?: { versions?: unknown } }).spec?.versions;
  if (!gk?.group || !gk.kind || !Array.isArray(versions)) return [];
  const { group, kind } = gk;
  return versions
    .filter((v): v is { name: string; served: boolean } => typeof v?.name === "string" && v?.served === true)
    .map((v) => ({ apiVersion: `${group}/${v.name}`, kind }));
}

/**
 * Resolves once the cluster's discovery serves every kind, or when `timeoutMs` has passed (the
 * custom resources then fail with the usual "not served" message, naming the kind).
 */
async function waitUntilServed(cluster: Cluster, kinds: { apiVersion: string; kind: string }[], opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
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
