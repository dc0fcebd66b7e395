// The wait step: what the wave before it wrote, followed until reconciled (after applies) or gone
// (after deletes), at most the step's timeout. What was not written is not waited for: skipped,
// or, for a delete that found its object gone already, successful at once.

import type { PlannedApply, StepOf } from "../model/plan.js";
import { RECONCILE_TIMEOUT_ANNOTATION } from "../model/lifecycle-keys.js";
import { refKey } from "../model/ref.js";
import { waitFor, type WaitTarget } from "../status/wait-for.js";
import type { StepHandler } from "./step-context.js";

export const waitStep: StepHandler<StepOf<"wait">> = {
  group: (step) => ({ action: "Wait", wave: step.wave }),
  // Deletes that were sent before the interrupt: which are gone already is read at once, so the
  // inventory forgets them (the wait itself ends straight away).
  afterInterrupt: (step, previousRan) => step.until === "NotFound" && previousRan,
  async run(step, ctx) {
    const { recorder, o, state } = ctx;
    const emit = recorder.emit;
    const keys = new Set(step.refs.map(refKey));
    const targets: WaitTarget[] = [...state.written.values()].filter((t) => keys.has(refKey(t.ref))).map((t) => (step.until === "Current" ? withObjectWait(t, ctx.applies.get(refKey(t.ref))) : t));
    const followed = new Set(targets.map((t) => refKey(t.ref)));
    for (const ref of step.refs) {
      if (followed.has(refKey(ref))) continue;
      const a = recorder.tally.actuated(ref);
      if (step.until === "NotFound" && a === "Successful") emit({ type: "wait", ref, status: "Successful" });
      else if (step.until === "Current" || a !== undefined) emit({ type: "wait", ref, status: "Skipped" });
    }
    await waitFor(ctx.cache, targets, {
      desired: step.until,
      wave: step.wave,
      timeoutMs: step.timeoutMs,
      signal: o.signal,
      emit,
      ...(step.until === "Current" ? { explainer: ctx.explainer } : {}),
      statusOptions: o.statusOptions,
    });
  },
};

/** The object's own wait (docs/lifecycle.md): until a Job completes, at most its own timeout. */
function withObjectWait(t: WaitTarget, p: PlannedApply | undefined): WaitTarget {
  const w = p?.wait;
  if (!w) return t;
  return {
    ...t,
    ...(w.until === "complete" ? { complete: true } : {}),
    ...(w.timeout ? { timeoutMs: w.timeout.ms, timeoutNote: `timed out after its own ${RECONCILE_TIMEOUT_ANNOTATION}: ${w.timeout.text}` } : {}),
  };
}
