// The inventory's steps: the ResourceGroup CRD installed when missing, the inventory stored before
// the first apply (after its Namespace, when the package brings it), and at the end the final
// list with its statuses (apply) or, once it lists nothing, its removal (destroy). Each runs after
// an interrupt too, so the inventory always covers what may exist.

import { deleteClusterInventory, installResourceGroupCrd, inventoryUnchangedSince, writeClusterInventory } from "../inventory/cluster-inventory.js";
import { formatBytes, inventoryBytes, inventoryFit, objectsThatFit } from "../inventory/inventory-size.js";
import { nextInventory } from "../inventory/next-inventory.js";
import { refsOfResourceGroup, type ResourceStatusEntry } from "../inventory/resource-group.js";
import { CancelledError, ClusterError } from "../model/errors.js";
import type { EngineEvent } from "../model/events.js";
import { planChangesNothing, type StepOf } from "../model/plan.js";
import { refKey, RefSet, type ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";
import type { RunTally } from "../model/run-tally.js";
import type { Cluster } from "../cluster/types.js";
import { applyObject } from "./apply-object.js";
import { notDeleted } from "./delete-step.js";
import type { RunContext, StepHandler } from "./step-context.js";

export const installCrdStep: StepHandler<StepOf<"install-crd">> = {
  async run(_step, ctx) {
    await installResourceGroupCrd(ctx.cluster, { signal: ctx.o.signal });
  },
};

/** What every inventory step shares: kpt's Inventory group, and running after an interrupt (so the inventory covers what may exist). */
export const inventoryStep = { group: () => ({ action: "Inventory" as const }), afterInterrupt: () => true };

export const inventoryAddStep: StepHandler<StepOf<"inventory-add">> = {
  // Runs after an interrupt too, to say that the run stopped before it changed anything.
  ...inventoryStep,
  async run(step, ctx) {
    if (!ctx.dry && ctx.o.signal?.aborted) throw new CancelledError("interrupted before anything was changed");
    if (!step.refs) return;
    // Not cancellable: once the namespace is created, the inventory that records it must be written.
    if (step.namespace) await applyEarly(ctx, step.namespace);
    // Guarded by what this run read: a second apply of the package started at the same time stops here.
    ctx.state.stored = await writeClusterInventory(ctx.cluster, ctx.plan.inventory.info, step.refs, { basedOn: ctx.state.stored ?? null, onConflict: "fail" });
  },
};

/** The inventory's Namespace, applied as the plan says before the inventory can be stored in it; its wave reports the result. */
export async function applyEarly(ctx: RunContext, ref: ObjRef): Promise<void> {
  const r = await applyObject(ctx.applyContext, ctx.applies.get(refKey(ref))!);
  if (r.status === "Failed") throw new ClusterError(`cannot store the inventory in namespace "${ref.name}": ${r.error}`);
  if (r.after) ctx.cache.observe(r.after);
  ctx.state.appliedEarly.set(refKey(ref), r);
}

export const inventorySetStep: StepHandler<StepOf<"inventory-set">> = {
  ...inventoryStep,
  async run(_step, ctx) {
    if (ctx.dry) return;
    const { plan, state, recorder, o } = ctx;
    const tally = recorder.tally;
    const final = await finalInventory(ctx);
    // A no-op writes nothing when the stored list is already right: its statuses stay as the last
    // run that changed something left them (kapp, too, records no change then). It still drops
    // entries for objects found gone (deleted by hand, or pruned by a run racing this package's).
    if (planChangesNothing(plan) && !tally.wrote && !changedInventory(state.stored, final, undefined)) return;
    const info = plan.inventory.info;
    const stored = state.stored;
    const pruned = new RefSet(plan.deletes.map((d) => d.ref));
    const emit = recorder.emit;
    const statuses = fittingStatuses(info, final, o.statusPolicy === "all" ? statusEntries(final, pruned, tally) : undefined, stored, emit);
    // Another run of the package may have written it meanwhile: then theirs and ours are merged.
    if (changedInventory(stored, final, statuses) || !(await inventoryUnchangedSince(ctx.cluster, info, stored))) {
      await writeClusterInventory(ctx.cluster, info, final, { statuses, basedOn: stored ?? null, onConflict: "merge", onWarning: (message) => emit({ type: "warning", message }) });
    }
  },
};

export const inventoryDeleteStep: StepHandler<StepOf<"inventory-delete">> = {
  ...inventoryStep,
  async run(_step, ctx) {
    const { info } = ctx.plan.inventory;
    // The stored one: the destroy's hooks may have been added to it (inventory-add).
    const stored = ctx.state.stored;
    if (ctx.dry || !stored) return;
    const listed = listedBeforeDestroy(ctx);
    const left = leftAfterDestroy(ctx);
    // Neither is cancellable, and both are guarded: an apply of the package meanwhile keeps its objects listed.
    if (left.length === 0) await deleteClusterInventory(ctx.cluster, info, { basedOn: stored });
    // Nothing was deleted (a user who may not delete, say): the stored list is already right,
    // and a write it may not make either must not hide the real failures behind its own.
    else if (!new RefSet(left).equals(listed)) await writeClusterInventory(ctx.cluster, info, left, { basedOn: stored, onConflict: "merge" });
  },
};

/** What the inventory covers after an apply: every object that may still exist (kpt's rule, next-inventory.ts). */
export async function finalInventory(ctx: RunContext): Promise<ObjRef[]> {
  const { plan, state, recorder, o } = ctx;
  const tally = recorder.tally;
  const localRefs = plan.command === "apply" ? plan.applies.map((a) => a.ref) : [];
  const applied = localRefs.filter((r) => tally.actuated(r) === "Successful");
  applied.push(...(await existing(ctx.cluster, state.mayExist)));
  const notApplied = localRefs.filter((r) => tally.actuated(r) !== "Successful");
  // Hook objects that may exist stay listed (docs/lifecycle.md); those deleted or gone leave.
  return new RefSet(nextInventory({ previous: plan.inventory.previous, applied, notApplied, notDeleted: notDeleted(plan.deletes, tally, state.abandoned, o.wait), abandoned: state.abandoned })).union(state.hooks).toArray();
}

/**
 * What is left after a destroy: every object whose delete did not finish (kept listed), and the
 * hook objects that may exist, less those let go.
 */
export function leftAfterDestroy(ctx: RunContext): ObjRef[] {
  const abandoned = ctx.state.abandoned;
  const left = nextInventory({ previous: listedBeforeDestroy(ctx), applied: [], notApplied: [], notDeleted: notDeleted(ctx.plan.deletes, ctx.recorder.tally, abandoned, ctx.o.wait), abandoned });
  return new RefSet(left).union(ctx.state.hooks).toArray();
}

/** What the inventory listed as the destroy began: a ResourceGroup the destroy's hooks were added to (inventory-add) lists them too. */
function listedBeforeDestroy(ctx: RunContext): ObjRef[] {
  const stored = ctx.state.stored;
  const { previous, info } = ctx.plan.inventory;
  return info.applySet || !stored || stored === ctx.plan.inventory.stored ? previous : refsOfResourceGroup(stored);
}

/** Those of `refs` that exist (or whose existence cannot be read): a lost answer hides whether a write happened. */
async function existing(cluster: Cluster, refs: ObjRef[]): Promise<ObjRef[]> {
  const found = await Promise.all(refs.map((ref) => cluster.get(ref).then((o) => Boolean(o), () => true)));
  return refs.filter((_, i) => found[i]);
}

/** kpt's per-object status entries (`--status-policy all`). */
function statusEntries(final: ObjRef[], pruned: RefSet, tally: RunTally): ResourceStatusEntry[] {
  const actuation = { Successful: "Succeeded", Skipped: "Skipped", Failed: "Failed" } as const;
  const reconcile = { Successful: "Succeeded", Skipped: "Skipped", Failed: "Failed", Timeout: "Timeout" } as const;
  return final.map((ref) => {
    const a = tally.actuated(ref);
    const r = tally.reconciled(ref);
    return {
      ref,
      strategy: pruned.has(ref) ? "Delete" : "Apply",
      actuation: a ? actuation[a] : "Pending",
      reconcile: r ? reconcile[r] : "Pending",
    };
  });
}

/** False when the stored inventory already says exactly this (the final write is then skipped). */
function changedInventory(stored: KubeObject | undefined, final: ObjRef[], statuses: ResourceStatusEntry[] | undefined): boolean {
  if (!stored) return true;
  const storedRefs = ((stored.spec as any)?.resources ?? []) as ObjRef[];
  const a = new RefSet(storedRefs.map((r) => ({ group: r.group ?? "", kind: r.kind, namespace: r.namespace ?? "", name: r.name })));
  if (a.size !== final.length || final.some((r) => !a.has(r))) return true;
  if (!statuses) return false;
  const storedStatuses = ((stored.status as any)?.resourceStatuses ?? []) as any[];
  if (storedStatuses.length !== statuses.length) return true;
  const byKey = new Map(storedStatuses.map((s) => [refKey({ group: s.group ?? "", kind: s.kind, namespace: s.namespace ?? "", name: s.name }), s]));
  return statuses.some((s) => {
    const old = byKey.get(refKey(s.ref));
    return !old || old.strategy !== s.strategy || old.actuation !== s.actuation || old.reconcile !== s.reconcile;
  });
}

/**
 * The statuses to store with the final list: all of them when they fit in one object, else none
 * (an empty status, which also clears older ones) and one warning. Status recording is advisory.
 */
function fittingStatuses(info: InventoryInfo, final: ObjRef[], statuses: ResourceStatusEntry[] | undefined, stored: KubeObject | undefined, emit: (e: EngineEvent) => void): ResourceStatusEntry[] | undefined {
  if (!statuses || inventoryFit(info, final, statuses, stored) !== "list-only") return statuses;
  const n = (x: number) => x.toLocaleString("en-US");
  const fit = objectsThatFit(info, final, stored);
  emit({
    type: "warning",
    message:
      `the inventory ResourceGroup ${info.namespace}/${info.name} lists ${n(final.length)} objects; with their statuses it would take ${formatBytes(inventoryBytes(info, final, statuses, stored))}, ` +
      `more than the API server stores in one object (etcd's request limit, 1.5 MiB by default), so it was written without them (status recording is advisory; \`live status\` reads the objects themselves). ` +
      `Pass --status-policy=none to not record statuses, or split the package: ${n(fit.withStatuses)} objects like these fit with their statuses.`,
  });
  return [];
}
