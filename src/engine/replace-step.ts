// The replace step (docs/lifecycle.md): objects whose update the server refuses for an immutable
// field, and which say `kpt-ts.dev/update-strategy: replace-on-immutable`, are deleted in the
// foreground (what they own goes first) and waited for until gone, at most the step's timeout;
// the wave's apply step then creates them again. The inventory lists them throughout, so an
// interrupted run orphans nothing. An object the dependency gate holds, or that changed since the
// plan read it, is left to the apply step, which decides it again: when the server then refuses
// its update for an immutable field, the apply step replaces it there (`replaceObject`), so
// whether a replacement happens never depends on when a controller last wrote the object.

import { ApiError } from "../cluster/api-error.js";
import type { EngineEvent } from "../model/events.js";
import type { KubeObject } from "../model/kube-object.js";
import type { StepOf } from "../model/plan.js";
import { refKey, type ObjRef } from "../model/ref.js";
import { planStillHolds } from "../plan/plan-object.js";
import { applyBlockedBy } from "../order/dependency-gate.js";
import { waitFor } from "../status/wait-for.js";
import { forEachLimited } from "../util/pool.js";
import type { RunContext, StepHandler } from "./step-context.js";

export const replaceStep: StepHandler<StepOf<"replace">> = {
  async run(step, ctx) {
    const { recorder, dry, o } = ctx;
    await forEachLimited(
      step.refs,
      o.concurrency,
      async (ref) => {
        const p = ctx.applies.get(refKey(ref))!;
        const reason = p.replace ?? "";
        const notWaited = (r: ObjRef) => ctx.applies.get(refKey(r))?.wait?.until === "none";
        if (p.skip || applyBlockedBy(p.dependencies, recorder.tally, { dryRun: dry, noWait: !o.wait, notWaited })) return;
        const live = ctx.cache.get(ref);
        if (dry || !live) return void recorder.emit({ type: "replace", ref, status: "Successful", reason });
        if (!planStillHolds(p, live)) return;
        await replaceObject(ctx, ref, live, reason, { wave: step.wave, timeoutMs: step.timeoutMs });
      },
      o.signal,
    );
  },
};

/**
 * Deletes `live` in the foreground and waits until it is gone (at most `timeoutMs`), for its
 * wave's apply to create it again; emits the replace event. False when it is still there: it is
 * then in `notReplaced`, and its apply is skipped.
 */
export async function replaceObject(ctx: RunContext, ref: ObjRef, live: KubeObject, reason: string, o: { wave: number; timeoutMs?: number }): Promise<boolean> {
  const fail = (error: string) => {
    ctx.state.notReplaced.add(ref);
    ctx.recorder.emit({ type: "replace", ref, status: "Failed", reason, error });
    return false;
  };
  try {
    await ctx.writer.delete(ref, { propagationPolicy: "Foreground", uid: live.metadata.uid });
  } catch (err) {
    if (!(err instanceof ApiError && err.notFound)) return fail(`cannot delete it to create it again: ${(err as Error).message}`);
  }
  const quiet = (_e: EngineEvent) => undefined;
  const gone = await waitFor(ctx.cache, [{ ref, uid: live.metadata.uid }], { desired: "NotFound", wave: o.wave, timeoutMs: o.timeoutMs, signal: ctx.o.signal, emit: quiet });
  if (gone.get(refKey(ref)) !== "Successful") return fail("deleted to be created again, but still there (its dependents are being deleted first): apply again once it is gone");
  ctx.recorder.emit({ type: "replace", ref, status: "Successful", reason });
  return true;
}
