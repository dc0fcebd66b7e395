// The apply step: a wave's objects applied in parallel (at most --concurrency at once), each as
// its plan says (apply-object.ts checks the plan still holds), unless the dependency gate holds
// it: a dependency that failed, was skipped or did not reconcile. Each result is one apply event.
// An object that says replace-on-immutable and whose update the server refuses for an immutable
// field is replaced here when the plan did not foresee it (replace-step.ts' replaceObject).

import { localPreviewNote } from "../apply/local-preview.js";
import { webhookWaits } from "../apply/webhook-retry.js";
import { APPLIED } from "../model/operation.js";
import type { StepOf } from "../model/plan.js";
import { refKey, type ObjRef } from "../model/ref.js";
import { applyBlockedBy } from "../order/dependency-gate.js";
import { forEachLimited } from "../util/pool.js";
import { applyObject } from "./apply-object.js";
import { replaceObject } from "./replace-step.js";
import type { StepHandler } from "./step-context.js";

const NOT_REPLACED = "its replacement failed: it was not deleted, so it is not created again";

export const applyStep: StepHandler<StepOf<"apply">> = {
  group: (step) => ({ action: "Apply", wave: step.wave }),
  async run(step, ctx) {
    const { recorder, o, dry, state } = ctx;
    const emit = recorder.emit;
    const notWaited = (r: ObjRef) => ctx.applies.get(refKey(r))?.wait?.until === "none";
    const waveCtx = { ...ctx.applyContext, webhookRetry: webhookWaits({ wave: step.wave, total: step.refs.length, timeoutMs: o.reconcileTimeoutMs, emit, signal: o.signal }) };
    await forEachLimited(
      step.refs,
      o.concurrency,
      async (ref) => {
        const key = refKey(ref);
        const p = ctx.applies.get(key)!;
        let result = state.appliedEarly.get(key);
        if (!result) {
          const blocked = p.skip ?? applyBlockedBy(p.dependencies, recorder.tally, { dryRun: dry, noWait: !o.wait, notWaited });
          if (blocked) return emit({ type: "apply", ref, status: "Skipped", error: blocked });
          if (state.notReplaced.has(ref)) return emit({ type: "apply", ref, status: "Skipped", error: NOT_REPLACED });
          result = await applyObject(waveCtx, p);
          // Refused for an immutable field the plan did not foresee: replaced now, as the replace step would have.
          if (result.refusedImmutable && result.before) {
            const reason = result.refusedImmutable;
            if (!(await replaceObject(ctx, ref, result.before, reason, { wave: step.wave, timeoutMs: o.reconcileTimeoutMs }))) return emit({ type: "apply", ref, status: "Skipped", error: NOT_REPLACED });
            result = await applyObject(waveCtx, { ...p, replace: reason });
          }
          if (result.after && !dry) ctx.cache.observe(result.after);
        }
        const { mayExist, local, status, operation, refusedImmutable: _refused, ...r } = result;
        if (status === "Failed" && mayExist) state.mayExist.push(ref);
        if (status === "Successful") state.written.set(key, { ref, minGeneration: r.after?.metadata.generation });
        const localLine = local ? { local: localPreviewNote(`the server refused dry-run writes: ${local}`, o.serverSide) } : {};
        const source = status === "Failed" && p.source ? { source: p.source } : {};
        emit({ type: "apply", ref, status, ...(operation ? { operation: APPLIED[operation] } : {}), ...r, ...source, ...localLine });
      },
      o.signal,
    );
  },
};
