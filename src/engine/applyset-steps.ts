// An ApplySet's inventory steps (KEP-3659, as kubectl orders them): its parent created or
// extended to the package's group-kinds and namespaces before the first apply (the superset: an
// interrupted run orphans nothing, whatever it applied is found by label), narrowed to exactly
// what may still exist after the run, and deleted at the end of a destroy once no member is
// left. The members carry the part-of label as they are applied (plan/prepare-objects.ts). Each
// runs after an interrupt too, as the ResourceGroup's steps do.

import { parentOwnership, sameScope, scopeOf, storedScope } from "../inventory/applyset.js";
import { deleteParent, writeParent } from "../inventory/cluster-applyset.js";
import { CancelledError } from "../model/errors.js";
import type { StepOf } from "../model/plan.js";
import { applyEarly, finalInventory, inventoryStep, leftAfterDestroy } from "./inventory-steps.js";
import type { RunContext, StepHandler } from "./step-context.js";

export const applySetAddStep: StepHandler<StepOf<"applyset-add">> = {
  // Runs after an interrupt too, to say that the run stopped before it changed anything.
  ...inventoryStep,
  async run(step, ctx) {
    if (!ctx.dry && ctx.o.signal?.aborted) throw new CancelledError("interrupted before anything was changed");
    if (!step.scope) return;
    if (step.namespace) await applyEarly(ctx, step.namespace);
    // Guarded by what this run read: a run that changed the parent meanwhile stops this one here.
    ctx.state.stored = await writeParent(ctx.cluster, ctx.plan.inventory.info, step.scope, { basedOn: ctx.state.stored ?? null, onConflict: "fail" });
  },
};

export const applySetSetStep: StepHandler<StepOf<"applyset-set">> = {
  ...inventoryStep,
  async run(_step, ctx) {
    if (ctx.dry) return;
    await narrowParent(ctx, await finalInventory(ctx));
  },
};

export const applySetDeleteStep: StepHandler<StepOf<"applyset-delete">> = {
  ...inventoryStep,
  async run(_step, ctx) {
    const stored = ctx.state.stored;
    if (ctx.dry || !stored) return;
    const left = leftAfterDestroy(ctx);
    if (left.length === 0) await deleteParent(ctx.cluster, ctx.plan.inventory.info, { basedOn: stored, signal: undefined });
    else await narrowParent(ctx, left);
  },
};

/** The parent names exactly the scope of `members` (written only when it does not already, as kpt-ts's). */
async function narrowParent(ctx: RunContext, members: Parameters<typeof scopeOf>[0]): Promise<void> {
  const info = ctx.plan.inventory.info;
  const stored = ctx.state.stored;
  const scope = scopeOf(members, info.namespace);
  if (stored && parentOwnership(stored, info) === "ours" && sameScope(storedScope(stored), scope)) return;
  // Another run that extended it meanwhile keeps its kinds and namespaces (the union is written).
  ctx.state.stored = await writeParent(ctx.cluster, info, scope, { basedOn: stored ?? null, onConflict: "merge" });
}
