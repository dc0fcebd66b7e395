// The apply step: a wave's objects applied in parallel (at most --concurrency at once), each as
// its plan says (apply-object.ts checks the plan still holds), unless the dependency gate holds
// it: a dependency that failed, was skipped or did not reconcile. Each result is one apply event.

import { localPreviewNote } from "../apply/local-preview.js";
import { webhookWaits } from "../apply/webhook-retry.js";
import type { StepOf } from "../model/plan.js";
import { refKey, type ObjRef } from "../model/ref.js";
import { applyBlockedBy } from "../prune/dependency-gate.js";
import { forEachLimited } from "../util/pool.js";
import { applyObject } from "./apply-object.js";
import type { StepHandler } from "./step-context.js";

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
          if (state.notReplaced.has(ref)) return emit({ type: "apply", ref, status: "Skipped", error: "its replacement failed: it was not deleted, so it is not created again" });
          result = await applyObject(waveCtx, p);
          if (result.after && !dry) ctx.cache.observe(result.after);
        }
        const { mayExist, local, ...r } = result;
        if (r.status === "Failed" && mayExist) state.mayExist.push(ref);
        if (r.status === "Successful") state.written.set(key, { ref, minGeneration: r.after?.metadata.generation });
        const localLine = local ? { local: localPreviewNote(`the server refused dry-run writes: ${local}`, o.serverSide) } : {};
        const source = r.status === "Failed" && p.source ? { source: p.source } : {};
        emit({ type: "apply", ref, ...r, ...source, ...localLine });
      },
      o.signal,
    );
  },
};
