// The hook steps (docs/lifecycle.md). `hook-apply` creates a wave of a phase's hooks: the object an
// earlier run left is deleted first (the inventory policy allowing) and waited for until gone,
// then the hook is created as the run creates objects. `hook-wait` follows them until a Job
// completes (any other kind: until reconciled), each at most its own timeout or the run's, then
// deletes them as their policy says (a destroy leaves none that succeeded). A hook that fails
// skips the later hooks of its phase; in pre-apply or pre-destroy it ends the run before the
// package is touched. Post-apply and post-destroy hooks run only after a run that did not fail.
// The inventory lists every hook object that may exist (RunState.hooks).

import { ApiError } from "../cluster/api-error.js";
import type { EngineEvent, HookEvent, WaitEvent, WaitReason } from "../model/events.js";
import { RECONCILE_TIMEOUT_ANNOTATION, type HookPhase } from "../model/lifecycle-keys.js";
import type { PlannedHook, StepOf } from "../model/plan.js";
import { refKey, type ObjRef } from "../model/ref.js";
import { policyRefusal } from "../inventory/policy.js";
import { waitFor, type WaitTarget } from "../status/wait-for.js";
import { forEachLimited } from "../util/pool.js";
import { applyObject } from "./apply-object.js";
import type { RunContext, StepHandler } from "./step-context.js";

function hookOf(ctx: RunContext, phase: HookPhase, ref: ObjRef): PlannedHook {
  const key = refKey(ref);
  const h = ctx.plan.hooks?.find((x) => x.phase === phase && refKey(x.ref) === key);
  if (!h) throw new Error(`internal error: the plan has no ${phase} hook ${key}`);
  return h;
}

function hookEmitter(ctx: RunContext, phase: HookPhase) {
  return (ref: ObjRef, action: HookEvent["action"], status: HookEvent["status"], extra: Partial<Pick<HookEvent, "message" | "reasons" | "source">> = {}) =>
    ctx.recorder.emit({ type: "hook", phase, ref, action, status, ...extra });
}

/** Why a phase's hooks do not run now, if they do not. */
function whyNotRun(phase: HookPhase, ctx: RunContext): string | undefined {
  if (ctx.state.failedPhases.has(phase)) return `an earlier ${phase} hook failed`;
  if ((phase === "post-apply" || phase === "post-destroy") && ctx.recorder.tally.failed) {
    return `the ${phase === "post-apply" ? "apply" : "destroy"} failed: ${phase} hooks run only after one that succeeded`;
  }
  return undefined;
}

export const hookApplyStep: StepHandler<StepOf<"hook-apply">> = {
  async run(step, ctx) {
    const { state, dry, o } = ctx;
    const emit = hookEmitter(ctx, step.phase);
    const skip = whyNotRun(step.phase, ctx);
    await forEachLimited(
      step.refs,
      o.concurrency,
      async (ref) => {
        const key = refKey(ref);
        state.written.delete(key);
        if (skip) return emit(ref, "wait", "Skipped", { message: skip });
        const h = hookOf(ctx, step.phase, ref);
        const failed = (message: string) => {
          state.failedPhases.add(step.phase);
          emit(ref, "create", "Failed", { message, source: h.source });
        };
        if (h.refusal) return failed(h.refusal);
        const live = ctx.cache.get(ref);
        if (live) {
          const why = await deletePrevious(ctx, h, step.wave);
          if (why) return failed(why);
          emit(ref, "delete-previous", "Successful");
          // The server cannot preview a create while the object it replaces is still there.
          if (dry) return emit(ref, "create", "Successful");
        }
        const r = await applyObject(ctx.applyContext, h.create);
        if (r.status !== "Successful") {
          if (r.mayExist && !dry) state.hooks.add(ref);
          return failed(r.error ?? "not created");
        }
        if (!dry) {
          state.hooks.add(ref);
          if (r.after) ctx.cache.observe(r.after);
          state.written.set(key, { ref, minGeneration: r.after?.metadata.generation });
        }
        emit(ref, "create", "Successful");
      },
      o.signal,
    );
  },
};

/**
 * Deletes the hook object an earlier run left and waits until it is gone; undefined when done,
 * else why not. A dry run only checks that it may.
 */
async function deletePrevious(ctx: RunContext, h: PlannedHook, wave: number): Promise<string | undefined> {
  const live = ctx.cache.get(h.ref);
  if (!live) return undefined;
  const refusal = policyRefusal(live, ctx.plan.inventory.info.id, ctx.o.inventoryPolicy, "Apply");
  if (refusal) return `the object in its place cannot be replaced: ${refusal}`;
  if (ctx.dry) return undefined;
  try {
    await ctx.writer.delete(h.ref, { propagationPolicy: "Background", uid: live.metadata.uid });
  } catch (err) {
    if (!(err instanceof ApiError && err.notFound)) return `cannot delete the ${h.phase} hook an earlier run left: ${(err as Error).message}`;
  }
  const quiet = (_e: EngineEvent) => undefined;
  const outcome = await waitFor(ctx.cache, [{ ref: h.ref, uid: live.metadata.uid }], { desired: "NotFound", wave, timeoutMs: h.timeout?.ms ?? ctx.o.reconcileTimeoutMs, signal: ctx.o.signal, emit: quiet });
  if (outcome.get(refKey(h.ref)) !== "Successful") return `the ${h.phase} hook an earlier run left is still being deleted: run again once it is gone`;
  return undefined;
}

export const hookWaitStep: StepHandler<StepOf<"hook-wait">> = {
  async run(step, ctx) {
    const { state, recorder, o } = ctx;
    const emit = hookEmitter(ctx, step.phase);
    const targets: { target: WaitTarget; hook: PlannedHook }[] = [];
    for (const ref of step.refs) {
      const written = state.written.get(refKey(ref));
      if (!written) continue; // not created: its hook-apply said why
      state.written.delete(refKey(ref));
      const hook = hookOf(ctx, step.phase, ref);
      const own = hook.timeout ? { timeoutMs: hook.timeout.ms, timeoutNote: `timed out after its own ${RECONCILE_TIMEOUT_ANNOTATION}: ${hook.timeout.text}` } : {};
      targets.push({ target: { ...written, complete: hook.complete, ...own }, hook });
    }
    // Its outcome becomes the hook's event; statuses and progress go on as for any wait. What
    // its Pods last did is kept from the progress: a Job that fails deletes its running Pods.
    const ended = new Map<string, WaitEvent>();
    const seen = new Map<string, WaitReason[]>();
    const relay = (e: EngineEvent) => {
      if (e.type === "waiting") {
        for (const p of e.pending) {
          const told = (p.reasons ?? []).filter(informative);
          if (told.length) seen.set(refKey(p.ref), told);
        }
      }
      if (e.type !== "wait") return recorder.emit(e);
      if (e.status !== "Pending") ended.set(refKey(e.ref), e);
    };
    await waitFor(
      ctx.cache,
      targets.map((t) => t.target),
      { desired: "Current", wave: step.wave, timeoutMs: step.timeoutMs, signal: o.signal, emit: relay, explainer: ctx.explainer, statusOptions: o.statusOptions },
    );
    let failed = false;
    await forEachLimited(targets, o.concurrency, async ({ target, hook }) => {
      const e = ended.get(refKey(target.ref));
      const status = e?.status === "Successful" || e?.status === "Failed" || e?.status === "Timeout" ? e.status : "Skipped";
      if (status === "Failed" || status === "Timeout") {
        failed = true;
        const reasons = await lastPodState(ctx, target.ref, seen.get(refKey(target.ref)) ?? e?.reasons);
        emit(target.ref, "wait", status, { message: e?.message ?? "", ...(reasons.length ? { reasons } : {}), source: hook.source });
      } else emit(target.ref, "wait", status, status === "Skipped" ? { message: "the run was interrupted" } : {});
      const policy = deletedBy(hook, status, ctx.plan.command);
      if (policy && !o.signal?.aborted) await deleteHook(ctx, hook, policy);
    });
    if (failed) state.failedPhases.add(step.phase);
    // A hook of this phase failed, here or when it was created: before the package, that ends the run.
    if (state.failedPhases.has(step.phase) && (step.phase === "pre-apply" || step.phase === "pre-destroy")) {
      state.stopped = `a ${step.phase} hook failed: nothing of the package was ${step.phase === "pre-apply" ? "applied" : "deleted"}`;
    }
  },
};

/** The policy that deletes a hook once it ended so, if any. A destroy leaves no hook that succeeded. */
function deletedBy(h: PlannedHook, status: HookEvent["status"], command: "apply" | "destroy"): string | undefined {
  if (status === "Successful") {
    if (h.deletePolicy.includes("hook-succeeded")) return "hook-succeeded";
    if (command === "destroy") return "the destroy leaves nothing behind";
  }
  if ((status === "Failed" || status === "Timeout") && h.deletePolicy.includes("hook-failed")) return "hook-failed";
  return undefined;
}

async function deleteHook(ctx: RunContext, h: PlannedHook, policy: string): Promise<void> {
  const emit = hookEmitter(ctx, h.phase);
  const live = ctx.cache.get(h.ref);
  try {
    // Background: a Job's Pods go with it; the inventory forgets it once the server accepted the delete.
    await ctx.writer.delete(h.ref, { propagationPolicy: "Background", ...(live ? { uid: live.metadata.uid } : {}) });
  } catch (err) {
    if (!(err instanceof ApiError && err.notFound)) return emit(h.ref, "delete", "Failed", { message: `${policy}: ${(err as Error).message}` });
  }
  ctx.state.hooks.delete(h.ref);
  emit(h.ref, "delete", "Successful", { message: policy });
}

/**
 * What the failed hook's Pods show now, else what the wait last saw them do (a Job past its
 * deadline has its Pods deleted with it).
 */
async function lastPodState(ctx: RunContext, ref: ObjRef, seen: readonly WaitReason[] | undefined): Promise<WaitReason[]> {
  const live = ctx.cache.get(ref);
  const now = live && ctx.explainer.canExplain(live) ? await ctx.explainer.explain([live]).catch(() => undefined) : undefined;
  const found = (now?.get(refKey(ref)) ?? []).filter(informative);
  return found.length ? found : [...(seen ?? [])];
}

/** A Pod being deleted with its Job says less than what the wait saw it do before. */
function informative(r: WaitReason): boolean {
  return !r.message.endsWith(": Terminating");
}
