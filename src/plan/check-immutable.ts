// The server's word on updates the package asks to replace when they cannot be made
// (`kpt-ts.dev/update-strategy: replace-on-immutable`, docs/lifecycle.md): a dry run of each such
// update, and the ones the server refuses for an immutable field become replacements (the wave's
// `replace` step deletes them, its apply creates them again), so the plan, the dry run and `live
// diff` say "replace" and why before anything is written. Only objects with the annotation are
// asked about, and the check only reads: a dry run refused for another reason leaves the update
// planned (the apply reports it, or replaces the object if the write is refused for an immutable
// field after all: engine/apply-step.ts).

import { immutableRefusal } from "../apply/immutable-fields.js";
import type { Writer } from "../apply/writer.js";
import type { ApplyPlan, PlannedApply } from "../model/plan.js";
import { lifecycleRules } from "../object/lifecycle-annotations.js";
import { mapSteps, withReplaceSteps } from "./plan-steps.js";

export interface ImmutableCheckOptions {
  fieldManager: string;
  forceConflicts: boolean;
  /** The replace step waits at most this long for each object to be gone. */
  reconcileTimeoutMs?: number;
  signal?: AbortSignal;
}

function needsCheck(p: PlannedApply): boolean {
  return !p.skip && p.operation === "update" && p.live !== undefined && lifecycleRules(p.object).replaceOnImmutable === true;
}

/** The update as the apply would send it, as a dry run: the server's refusal, if any. */
async function refusalOf(p: PlannedApply, writer: Writer, o: ImmutableCheckOptions): Promise<string | undefined> {
  try {
    if (p.method === "server-side") await writer.apply(p.sent ?? p.object, { fieldManager: o.fieldManager, force: o.forceConflicts, dryRun: true, signal: o.signal });
    else if (p.csa?.op === "patch") await writer.patch(p.ref, p.csa.patch, p.csa.patchType, { dryRun: true, signal: o.signal });
    return undefined;
  } catch (err) {
    return immutableRefusal(err);
  }
}

export async function checkImmutableUpdates(plan: ApplyPlan, writer: Writer, o: ImmutableCheckOptions): Promise<ApplyPlan> {
  const todo = plan.applies.filter(needsCheck);
  if (todo.length === 0) return plan;
  const found = new Map<PlannedApply, string>();
  await Promise.all(
    todo.map(async (p) => {
      const why = await refusalOf(p, writer, o);
      if (why) found.set(p, why);
    }),
  );
  if (found.size === 0) return plan;
  const replaced = [...found.keys()].map((p) => ({ ref: p.ref, wave: p.wave }));
  return { ...plan, applies: plan.applies.map((p) => (found.has(p) ? { ...p, replace: found.get(p)! } : p)), ...mapSteps(plan, (steps) => withReplaceSteps(steps, replaced, o.reconcileTimeoutMs)) };
}
