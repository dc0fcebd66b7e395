// The replace step (docs/lifecycle.md): objects whose update the server refuses for an immutable
// field, and which say `kpt-ts.dev/update-strategy: replace-on-immutable`, are deleted in the
// foreground (what they own goes first) and waited for until gone, at most the step's timeout;
// the wave's apply step then creates them again. The inventory lists them throughout, so an
// interrupted run orphans nothing. An object the dependency gate holds, or that changed since the
// plan read it, is left to the apply step, which decides it again.

import { ApiError } from "../cluster/api-error.js";
import type { EngineEvent } from "../model/events.js";
import type { StepOf } from "../model/plan.js";
import { refKey, type ObjRef } from "../model/ref.js";
import { planStillHolds } from "../plan/plan-object.js";
import { applyBlockedBy } from "../prune/dependency-gate.js";
import { waitFor } from "../status/wait-for.js";
import { forEachLimited } from "../util/pool.js";
import type { StepHandler } from "./step-context.js";

export const replaceStep: StepHandler<StepOf<"replace">> = {
  async run(step, ctx) {
    const { recorder, state, dry, o } = ctx;
    await forEachLimited(
      step.refs,
      o.concurrency,
      async (ref) => {
        const p = ctx.applies.get(refKey(ref))!;
        const reason = p.replace ?? "";
        const emit = (status: "Successful" | "Failed", error?: string) => recorder.emit({ type: "replace", ref, status, reason, ...(error ? { error } : {}) });
        const notWaited = (r: ObjRef) => ctx.applies.get(refKey(r))?.wait?.until === "none";
        if (p.skip || applyBlockedBy(p.dependencies, recorder.tally, { dryRun: dry, noWait: !o.wait, notWaited })) return;
        const live = ctx.cache.get(ref);
        if (dry || !live) return emit("Successful");
        if (!planStillHolds(p, live)) return;
        const fail = (error: string) => {
          state.notReplaced.add(ref);
          emit("Failed", error);
        };
        try {
          await ctx.writer.delete(ref, { propagationPolicy: "Foreground", uid: live.metadata.uid });
        } catch (err) {
          if (!(err instanceof ApiError && err.notFound)) return fail(`cannot delete it to create it again: ${(err as Error).message}`);
        }
        const quiet = (_e: EngineEvent) => undefined;
        const gone = await waitFor(ctx.cache, [{ ref, uid: live.metadata.uid }], { desired: "NotFound", wave: step.wave, timeoutMs: step.timeoutMs, signal: o.signal, emit: quiet });
        if (gone.get(refKey(ref)) !== "Successful") return fail("deleted to be created again, but still there (its dependents are being deleted first): apply again once it is gone");
        emit("Successful");
      },
      o.signal,
    );
  },
};
