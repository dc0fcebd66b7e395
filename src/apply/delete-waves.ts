// Deleting objects wave by wave (prune after apply, and destroy): protection and ownership
// filters, parallel deletes within a wave, then a wait until the wave is gone before the next.

import { ApiError, forbiddenAdvice } from "../cluster/api-error.js";
import type { Cluster, PropagationPolicy } from "../cluster/types.js";
import type { DryRunStrategy } from "../events.js";
import { OWNING_INVENTORY_ANNOTATION } from "../inventory/keys.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import { cliUtilsId, refKey, RefSet, type ObjRef } from "../object/ref.js";
import { decidePrune } from "../prune/prune-filters.js";
import type { LiveCache } from "../status/live-cache.js";
import { forEachLimited } from "../util/pool.js";
import type { Recorder } from "./recorder.js";
import { waitFor, type WaitTarget } from "../status/wait-for.js";

export interface DeleteWavesContext {
  cluster: Cluster;
  cache: LiveCache;
  recorder: Recorder;
  action: "prune" | "delete";
  inventoryId: string;
  policy: InventoryPolicy;
  dryRun: DryRunStrategy;
  propagationPolicy: PropagationPolicy;
  timeoutMs?: number;
  concurrency: number;
  signal?: AbortSignal;
  /** Prune only: namespaces the package still uses. */
  namespacesInUse?: ReadonlySet<string>;
  /** Prune only: objects the package still applies, by the prune objects they depend on. */
  dependentsScheduledForApply?: (ref: ObjRef) => ObjRef | undefined;
  /** Objects that depend on a ref (their deletion must succeed first). */
  dependentsOf?: (ref: ObjRef) => ObjRef[];
  /** Index of the first wave, for events. */
  firstWave: number;
}

export interface DeleteOutcome {
  abandoned: RefSet;
}

export async function runDeleteWaves(ctx: DeleteWavesContext, waves: ObjRef[][]): Promise<DeleteOutcome> {
  const { recorder, cluster, cache } = ctx;
  const action = ctx.action === "prune" ? "Prune" : "Delete";
  const abandoned = new RefSet();
  const dry = ctx.dryRun !== "none";
  for (const [i, wave] of waves.entries()) {
    if (ctx.signal?.aborted) break;
    const waveIndex = ctx.firstWave + i;
    recorder.emit({ type: "group", action, status: "Started", wave: waveIndex });
    const targets: WaitTarget[] = [];
    const notDeleted: ObjRef[] = [];
    await forEachLimited(
      wave,
      ctx.concurrency,
      async (ref) => {
        const emit = (status: "Successful" | "Skipped" | "Failed", error?: string) => recorder.emit({ type: ctx.action, ref, status, ...(error ? { error } : {}) });
        const live = cache.get(ref);
        if (!live) {
          const unreadable = cache.readError(ref);
          if (unreadable) {
            notDeleted.push(ref);
            return emit("Failed", `cannot read it, so it is neither deleted nor forgotten: ${unreadable}`);
          }
          emit("Successful"); // already gone
          return;
        }
        const decision = decidePrune(ref, live, { inventoryId: ctx.inventoryId, policy: ctx.policy, strategy: "Delete", namespacesInUse: ctx.namespacesInUse });
        if (decision.action === "skip") {
          if (decision.abandon) {
            abandoned.add(ref);
            if (!dry && live.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION]) {
              try {
                await cluster.patch(ref, { metadata: { annotations: { [OWNING_INVENTORY_ANNOTATION]: null } } }, "merge");
              } catch (err) {
                if (!(err instanceof ApiError && err.notFound)) {
                  abandoned.delete(ref);
                  notDeleted.push(ref);
                  return emit("Failed", `cannot detach it from the inventory: ${(err as Error).message}`);
                }
              }
            }
          } else notDeleted.push(ref);
          return emit("Skipped", decision.reason);
        }
        // kpt's filter order: protection, ownership, namespace in use, then dependents.
        const blocking = ctx.dependentsScheduledForApply?.(ref);
        if (blocking) {
          notDeleted.push(ref);
          return emit("Skipped", `dependent scheduled for apply: ${cliUtilsId(blocking)}`);
        }
        for (const dep of ctx.dependentsOf?.(ref) ?? []) {
          const a = recorder.actuated(dep);
          const r = recorder.reconciled(dep);
          if (a && a !== "Successful") {
            notDeleted.push(ref);
            return emit("Skipped", `dependent delete actuation ${a.toLowerCase()}: ${cliUtilsId(dep)}`);
          }
          if (!dry && r && r !== "Successful") {
            notDeleted.push(ref);
            return emit("Skipped", `dependent delete reconcile ${r.toLowerCase()}: ${cliUtilsId(dep)}`);
          }
        }
        if (ctx.dryRun === "client") return emit("Successful");
        try {
          const outcome = await cluster.delete(ref, { propagationPolicy: ctx.propagationPolicy, uid: live.metadata.uid, dryRun: ctx.dryRun === "server" });
          if (!dry && outcome !== "terminating") cache.forget(ref);
          if (!dry) targets.push({ ref, uid: live.metadata.uid });
          emit("Successful");
        } catch (err) {
          notDeleted.push(ref);
          const advice = err instanceof ApiError ? forbiddenAdvice(err) : undefined;
          emit("Failed", err instanceof ApiError ? `${err.message}${advice ? `; ${advice}` : ""}` : String(err));
        }
      },
      ctx.signal,
    );
    recorder.emit({ type: "group", action, status: "Finished", wave: waveIndex });
    if (dry) continue;
    recorder.emit({ type: "group", action: "Wait", status: "Started", wave: waveIndex });
    const targetKeys = new Set(targets.map((t) => refKey(t.ref)));
    for (const ref of wave) {
      if (!targetKeys.has(refKey(ref)) && recorder.actuated(ref) !== undefined && recorder.actuated(ref) !== "Successful") {
        recorder.emit({ type: "wait", ref, status: "Skipped" });
      } else if (!targetKeys.has(refKey(ref)) && recorder.actuated(ref) === "Successful") {
        recorder.emit({ type: "wait", ref, status: "Successful" }); // was already gone
      }
    }
    await waitFor(cache, targets, { desired: "NotFound", wave: waveIndex, timeoutMs: ctx.timeoutMs, signal: ctx.signal, emit: recorder.emit });
    recorder.emit({ type: "group", action: "Wait", status: "Finished", wave: waveIndex });
  }
  return { abandoned };
}
