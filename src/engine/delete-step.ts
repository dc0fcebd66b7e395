// The delete step (apply's prune, destroy): a wave's objects deleted in parallel, dependents
// before what they depend on (the waves' order). What to delete and why not is the plan's,
// decided again only for an object that changed since the plan read it; what earlier waves
// achieved is the dependency gate's: a dependent not yet gone holds what it depends on.

import { ApiError, forbiddenAdvice, forbiddenOf } from "../cluster/api-error.js";
import type { PlannedDelete, StepOf } from "../model/plan.js";
import { isCrd, refKey, type ObjRef, type RefSet } from "../model/ref.js";
import type { RunTally } from "../model/run-tally.js";
import { currentDeleteDecision } from "../plan/plan-deletes.js";
import { deleteBlockedBy } from "../order/dependency-gate.js";
import { forEachLimited } from "../util/pool.js";
import { warmCustomResources } from "./warm-custom-resources.js";
import type { RunContext, StepHandler } from "./step-context.js";

export const deleteStep: StepHandler<StepOf<"delete">> = {
  group: (step) => ({ action: step.action === "prune" ? "Prune" : "Delete", wave: step.wave }),
  async run(step, ctx) {
    const { plan, o } = ctx;
    const decide: DecideOptions = { inventoryId: plan.inventory.info.id, policy: o.inventoryPolicy, namespacesInUse: plan.command === "apply" ? new Set(plan.namespacesInUse) : undefined };
    // The wave's CRDs come last in it: their custom resources are read while the rest is deleted.
    const warmed = new Map<string, Promise<void>>();
    for (const ref of ctx.dry ? [] : step.refs) {
      const live = isCrd(ref.group, ref.kind) ? ctx.cache.get(ref) : undefined;
      if (live && ctx.deletes.get(refKey(ref))?.decision.action === "delete") warmed.set(refKey(ref), warmCustomResources(ctx.cluster, live, o.signal));
    }
    await forEachLimited(step.refs, o.concurrency, (ref) => deleteOne(ctx, step.action, ref, decide, warmed.get(refKey(ref))), o.signal);
  },
};

type DecideOptions = Parameters<typeof currentDeleteDecision>[2];

async function deleteOne(ctx: RunContext, type: "prune" | "delete", ref: ObjRef, decide: DecideOptions, warmed?: Promise<void>): Promise<void> {
  const { recorder, o, dry, state } = ctx;
  const emit = (status: "Successful" | "Skipped" | "Failed", error?: string) => recorder.emit({ type, ref, status, ...(error ? { error } : {}) });
  const d = ctx.deletes.get(refKey(ref))!;
  if (d.unreadable) return emit("Failed", `cannot read it, so it is neither deleted nor forgotten: ${d.unreadable}`);
  const live = ctx.cache.get(ref);
  if (!live) return emit("Successful"); // gone since the plan was made
  const decision = currentDeleteDecision(d, live, decide);
  if (decision.action === "skip") {
    if (decision.abandon) {
      const failed = dry ? undefined : await ctx.writer.detach(ref, live);
      if (failed) return emit("Failed", failed);
      state.abandoned.add(ref);
    }
    return emit("Skipped", decision.reason);
  }
  const blocked = deleteBlockedBy(d.dependents, recorder.tally, { dryRun: dry, noWait: !o.wait });
  if (blocked) return emit("Skipped", blocked);
  if (o.dryRun === "client") return emit("Successful");
  await warmed;
  // Interrupted while its custom resources were read: not sent, as a delete not yet started (the inventory keeps it).
  if (o.signal?.aborted) return;
  try {
    const outcome = await ctx.writer.delete(ref, { propagationPolicy: o.prunePropagationPolicy, uid: live.metadata.uid, dryRun: o.dryRun === "server" });
    if (!dry && outcome !== "terminating") ctx.cache.forget(ref);
    if (!dry) state.written.set(refKey(ref), { ref, uid: live.metadata.uid });
    emit("Successful");
  } catch (err) {
    // A server-side dry run a read-only identity may not make: the plan's decision stands, as in a client-side dry run.
    if (dry && err instanceof ApiError && forbiddenOf(err)) return emit("Successful");
    const advice = err instanceof ApiError ? forbiddenAdvice(err) : undefined;
    emit("Failed", err instanceof ApiError ? `${err.message}${advice ? `; ${advice}` : ""}` : String(err));
  }
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
