// `live apply` and `live destroy` as streams of events, one skeleton for both: gather the facts,
// plan (the steps and each object's decision), take the inventory's lock when the plan writes
// (inventory/cluster-lock.ts), ask (when the caller asks), announce the plan, then perform its
// steps (run-steps.ts). The stream ends with a summary, or throws on a global
// failure. `previewPlan` stops after planning: what `apply()` or `destroy()` would do, for
// programs that show or check it first (the library's `plan()`); it writes nothing.

import { schemaLookup } from "../apply/schema-lookup.js";
import { Writer } from "../apply/writer.js";
import type { Cluster } from "../cluster/types.js";
import { unavailableApiWarnings } from "../cluster/unavailable-apis.js";
import type { EngineEvent } from "../model/events.js";
import { LAST_APPLIED_ANNOTATION, type Package } from "../model/kube-object.js";
import { planChangesNothing, plannedObjects, type PlannedApply, type RunPlan } from "../model/plan.js";
import { formatRefNs, refKey, RefSet } from "../model/ref.js";
import { checkRemovalPatches } from "../plan/check-patches.js";
import { checkImmutableUpdates } from "../plan/check-immutable.js";
import { hooksOnlyForChanges } from "../plan/plan-steps.js";
import { gatherApplyFacts, gatherDestroyFacts } from "../plan/gather.js";
import { planApply } from "../plan/plan-apply.js";
import { planDestroy } from "../plan/plan-destroy.js";
import type { LiveCache } from "../status/live-cache.js";
import { WaitExplainer } from "../status/wait-explainer.js";
import { resolveOptions, type EngineOptions, type ResolvedOptions } from "./options.js";
import { acquireRunLock, awaitFreeLock, type RunLock } from "../inventory/cluster-lock.js";
import { runEvents, type Recorder } from "./run-events.js";
import { runSteps } from "./run-steps.js";

type Command = RunPlan["command"];

export function runApply(pkg: Package, cluster: Cluster, options: EngineOptions = {}): AsyncIterable<EngineEvent> {
  return run("apply", pkg, cluster, options);
}

export function runDestroy(pkg: Package, cluster: Cluster, options: EngineOptions = {}): AsyncIterable<EngineEvent> {
  return run("destroy", pkg, cluster, options);
}

export async function previewPlan(command: Command, pkg: Package, cluster: Cluster, options: EngineOptions = {}): Promise<RunPlan> {
  const o = resolveOptions(options);
  // Planned as a dry run: a preview never refuses for a missing ResourceGroup CRD, and waits for nothing.
  const { plan, cache } = await prepare(command, pkg, cluster, new Writer(cluster, o.concurrency), o, true);
  cache.close();
  return plan;
}

function run(command: Command, pkg: Package, cluster: Cluster, options: EngineOptions): AsyncIterable<EngineEvent> {
  const o = resolveOptions(options);
  return runEvents(cluster, o, async (recorder) => {
    const dry = o.dryRun !== "none";
    // The lock's warnings follow the init event.
    const early: string[] = [];
    let warn = (message: string): void => void early.push(message);
    const lockOptions = { timeoutMs: o.lockTimeoutMs, command, signal: o.signal, onWarning: (m: string) => warn(m) };
    // Another run of the inventory is under way: fail at once, or wait, before reading anything.
    const seen = dry ? undefined : await awaitFreeLock(cluster, pkg.inventory, lockOptions);
    const writer = new Writer(cluster, o.concurrency);
    let prepared = await prepare(command, pkg, cluster, writer, o, dry);
    let lock: RunLock | undefined;
    try {
      // A plan that writes takes the lock first; if another run took it since this one looked,
      // what it read may be stale, and it reads the cluster again.
      if (seen && !planChangesNothing(prepared.plan)) {
        const got = await acquireRunLock(cluster, pkg.inventory, lockOptions, seen);
        lock = got.lock;
        if (got.stale) {
          prepared.cache.close();
          prepared = await prepare(command, pkg, cluster, writer, o, dry);
        }
      }
      await runPlan(command, prepared, cluster, writer, o, dry, recorder, () => {
        for (const message of early) recorder.emit({ type: "warning", message });
        warn = (message) => recorder.emit({ type: "warning", message });
      });
    } finally {
      prepared.cache.close();
      // A destroy leaves nothing behind, its Lease included.
      await lock?.release({ remove: command === "destroy" });
    }
  });
}

/** The plan performed: ask, announce (`announced` once the init event is out), perform its steps. */
async function runPlan(command: Command, prepared: { plan: RunPlan; cache: LiveCache }, cluster: Cluster, writer: Writer, o: ResolvedOptions, dry: boolean, recorder: Recorder, announced: () => void): Promise<void> {
  const { plan, cache } = prepared;
  if (o.confirm && !dry) await o.confirm(plan);
  const { name, namespace, id } = plan.inventory.info;
  recorder.emit({ type: "init", command, dryRun: o.dryRun, inventory: { name, namespace, id }, objects: plannedObjects(plan.steps), plan, changesNothing: planChangesNothing(plan) });
  announced();
  for (const message of await unavailableApiWarnings(cluster, o.signal)) recorder.emit({ type: "warning", message });
  const applies = plan.command === "apply" ? plan.applies : [];
  for (const message of lastAppliedWarnings(applies)) recorder.emit({ type: "warning", message });
  await runSteps({
    plan,
    applies: new Map(applies.map((a) => [refKey(a.ref), a])),
    deletes: new Map(plan.deletes.map((d) => [refKey(d.ref), d])),
    cluster,
    writer,
    cache,
    recorder,
    o,
    dry,
    applyContext: { ...o, cluster, writer, cache, inventoryId: plan.inventory.info.id, schemaFor: schemaLookup(cluster), packageObjects: applies.map((a) => a.object) },
    explainer: new WaitExplainer(cluster, { signal: o.signal }),
    state: {
      stored: plan.inventory.stored,
      appliedEarly: new Map(),
      written: new Map(),
      mayExist: [],
      abandoned: new RefSet(),
      hooks: new RefSet(plan.command === "apply" ? (plan.keptHooks ?? []) : []),
      failedPhases: new Set(),
      notReplaced: new RefSet(),
    },
  });
}

/**
 * One warning per object whose last-applied annotation cannot be read: kubectl apply (and kpt)
 * fail such an object; kpt-ts applies it as if it had none (nothing the package dropped is
 * removed) and writes a valid one, and says so, naming the object.
 */
function lastAppliedWarnings(applies: readonly PlannedApply[]): string[] {
  return applies
    .filter((a) => a.lastAppliedUnreadable && !a.skip)
    .map(
      (a) =>
        `${formatRefNs(a.ref)}: its ${LAST_APPLIED_ANNOTATION} annotation ${a.lastAppliedUnreadable}, so it is read as missing: nothing the package no longer sets is removed, and the apply writes a valid one (kubectl apply refuses the object instead)`,
    );
}

/** The facts gathered and the plan made from them; the cache that read them follows the run. */
async function prepare(command: Command, pkg: Package, cluster: Cluster, writer: Writer, o: ResolvedOptions, dryRun: boolean): Promise<{ plan: RunPlan; cache: LiveCache }> {
  if (command === "destroy") {
    const { facts, cache } = await gatherDestroyFacts(pkg, cluster, o);
    return planned(cache, async () => planDestroy(facts, { ...o, dryRun }));
  }
  const { facts, cache } = await gatherApplyFacts(pkg, cluster, o);
  return planned(cache, async () => {
    const checked = await checkRemovalPatches(planApply(facts, { ...o, dryRun }), writer, o.signal);
    // Hooks run only when the run changes something, which the checks may have settled otherwise.
    return hooksOnlyForChanges(await checkImmutableUpdates(checked, writer, o));
  });
}

async function planned(cache: LiveCache, make: () => Promise<RunPlan>): Promise<{ plan: RunPlan; cache: LiveCache }> {
  try {
    return { plan: await make(), cache };
  } catch (err) {
    cache.close();
    throw err;
  }
}
