// `live apply` as a stream of events: gather the facts, plan, ask (when the caller asks), then
// perform the plan. The stream ends with a summary, or throws on a global failure.

import type { Cluster } from "../cluster/types.js";
import { unavailableApiWarnings } from "../cluster/unavailable-apis.js";
import type { EngineEvent } from "../model/events.js";
import type { Package } from "../model/kube-object.js";
import { gatherApplyFacts } from "../plan/gather.js";
import { planApply, plannedRefs } from "../plan/plan-apply.js";
import { checkRemovalPatches } from "../plan/check-patches.js";
import { LAST_APPLIED_ANNOTATION } from "../model/kube-object.js";
import { planChangesNothing, type ApplyPlan } from "../model/plan.js";
import { formatRefNs } from "../model/ref.js";
import { executeApply } from "./execute-apply.js";
import { resolveOptions, type EngineOptions } from "./options.js";
import { runEvents } from "./run-events.js";

export function runApply(pkg: Package, cluster: Cluster, options: EngineOptions = {}): AsyncIterable<EngineEvent> {
  const o = resolveOptions(options);
  return runEvents(cluster, o, async (recorder) => {
    const dry = o.dryRun !== "none";
    const { facts, cache } = await gatherApplyFacts(pkg, cluster, o);
    try {
      const plan = await checkRemovalPatches(planApply(facts, { ...o, dryRun: dry }), cluster, o.signal);
      if (o.confirm && !dry) await o.confirm(plan);
      const info = plan.inventory.info;
      recorder.emit({ type: "init", command: "apply", dryRun: o.dryRun, inventory: { name: info.name, namespace: info.namespace, id: info.id }, objects: plannedRefs(plan), plan, changesNothing: planChangesNothing(plan) });
      for (const message of await unavailableApiWarnings(cluster, o.signal)) recorder.emit({ type: "warning", message });
      for (const message of lastAppliedWarnings(plan)) recorder.emit({ type: "warning", message });
      await executeApply(plan, cluster, cache, recorder, o);
    } finally {
      cache.close();
    }
  });
}

/**
 * One warning per object whose last-applied annotation cannot be read: kubectl apply (and kpt)
 * fail such an object; kpt-ts applies it as if it had none (nothing the package dropped is
 * removed) and writes a valid one, and says so, naming the object.
 */
function lastAppliedWarnings(plan: ApplyPlan): string[] {
  return plan.applies
    .filter((a) => a.lastAppliedUnreadable && !a.skip)
    .map(
      (a) =>
        `${formatRefNs(a.ref)}: its ${LAST_APPLIED_ANNOTATION} annotation ${a.lastAppliedUnreadable}, so it is read as missing: nothing the package no longer sets is removed, and the apply writes a valid one (kubectl apply refuses the object instead)`,
    );
}
