// Performs the delete half of a plan (apply's prune, destroy): wave by wave, dependents first,
// deletes in parallel within a wave, then a wait until the wave is gone before the next starts.
// What to delete and why not is the plan's; only the dependency gate is decided here, from what
// earlier waves achieved.

import { ApiError, forbiddenAdvice, forbiddenOf } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import { refKey, RefSet, type ObjRef } from "../model/ref.js";
import type { PlannedDelete } from "../model/plan.js";
import { deleteBlockedBy } from "../prune/dependency-gate.js";
import { detachFromInventory } from "../prune/detach.js";
import type { LiveCache } from "../status/live-cache.js";
import { waitFor, type WaitTarget } from "../status/wait-for.js";
import { forEachLimited } from "../util/pool.js";
import type { RunTally } from "../model/run-tally.js";
import type { ResolvedOptions } from "./options.js";
import type { Recorder } from "./recorder.js";

export interface DeleteWavesContext {
  cluster: Cluster;
  cache: LiveCache;
  recorder: Recorder;
  action: "prune" | "delete";
  /** The run's options: its dry run, the prune propagation policy and timeout, `wait` (false: nothing waits for deletes to be gone). */
  o: ResolvedOptions;
  /** Index of the first wave, for events. */
  firstWave: number;
}

export interface DeleteOutcome {
  /** Objects let go (protection annotation): they leave the inventory. */
  abandoned: RefSet;
}

export async function runDeleteWaves(ctx: DeleteWavesContext, deletes: readonly PlannedDelete[], waves: readonly ObjRef[][]): Promise<DeleteOutcome> {
  const { recorder, cluster, cache, o } = ctx;
  const action = ctx.action === "prune" ? "Prune" : "Delete";
  const planned = new Map(deletes.map((d) => [refKey(d.ref), d]));
  const abandoned = new RefSet();
  const dry = o.dryRun !== "none";
  for (const [i, wave] of waves.entries()) {
    if (o.signal?.aborted) break;
    const waveIndex = ctx.firstWave + i;
    recorder.emit({ type: "group", action, status: "Started", wave: waveIndex });
    const targets: WaitTarget[] = [];
    await forEachLimited(
      wave,
      o.concurrency,
      async (ref) => {
        const emit = (status: "Successful" | "Skipped" | "Failed", error?: string) => recorder.emit({ type: ctx.action, ref, status, ...(error ? { error } : {}) });
        const d = planned.get(refKey(ref))!;
        if (d.unreadable) return emit("Failed", `cannot read it, so it is neither deleted nor forgotten: ${d.unreadable}`);
        const live = cache.get(ref);
        if (!live) return emit("Successful"); // gone since the plan was made
        if (d.decision.action === "skip") {
          if (d.decision.abandon) {
            const failed = dry ? undefined : await detachFromInventory(cluster, ref, live);
            if (failed) return emit("Failed", failed);
            abandoned.add(ref);
          }
          return emit("Skipped", d.decision.reason);
        }
        const blocked = deleteBlockedBy(d.dependents, recorder.tally, { dryRun: dry, noWait: !o.wait });
        if (blocked) return emit("Skipped", blocked);
        if (o.dryRun === "client") return emit("Successful");
        try {
          const outcome = await cluster.delete(ref, { propagationPolicy: o.prunePropagationPolicy, uid: live.metadata.uid, dryRun: o.dryRun === "server" });
          if (!dry && outcome !== "terminating") cache.forget(ref);
          if (!dry) targets.push({ ref, uid: live.metadata.uid });
          emit("Successful");
        } catch (err) {
          // A server-side dry run a read-only identity may not make: the plan's decision stands, as in a client-side dry run.
          if (dry && err instanceof ApiError && forbiddenOf(err)) return emit("Successful");
          const advice = err instanceof ApiError ? forbiddenAdvice(err) : undefined;
          emit("Failed", err instanceof ApiError ? `${err.message}${advice ? `; ${advice}` : ""}` : String(err));
        }
      },
      o.signal,
    );
    recorder.emit({ type: "group", action, status: "Finished", wave: waveIndex });
    if (dry || !o.wait) continue;
    recorder.emit({ type: "group", action: "Wait", status: "Started", wave: waveIndex });
    const targetKeys = new Set(targets.map((t) => refKey(t.ref)));
    for (const ref of wave) {
      if (targetKeys.has(refKey(ref))) continue;
      const a = recorder.tally.actuated(ref);
      if (a === "Successful") recorder.emit({ type: "wait", ref, status: "Successful" }); // was already gone
      else if (a !== undefined) recorder.emit({ type: "wait", ref, status: "Skipped" });
    }
    await waitFor(cache, targets, { desired: "NotFound", wave: waveIndex, timeoutMs: o.pruneTimeoutMs, signal: o.signal, emit: recorder.emit, statusOptions: o.statusOptions });
    recorder.emit({ type: "group", action: "Wait", status: "Finished", wave: waveIndex });
  }
  return { abandoned };
}

/**
 * What may still exist: not deleted (failed, skipped and not let go, never reached) or not seen
 * gone (the wait failed, timed out or was cut short). It stays in the inventory. Without waits
 * (`waited` false), a delete the server accepted counts as gone, as in cli-utils.
 */
export function notDeleted(deletes: readonly PlannedDelete[], tally: RunTally, abandoned: RefSet, waited = true): ObjRef[] {
  return deletes
    .map((d) => d.ref)
    .filter((r) => !abandoned.has(r) && (tally.actuated(r) !== "Successful" || (waited && tally.reconciled(r) !== "Successful")));
}
