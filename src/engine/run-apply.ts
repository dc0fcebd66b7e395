// `live apply` as a stream of events: gather the facts, plan, ask (when the caller asks), then
// perform the plan. The stream ends with a summary, or throws on a global failure.

import type { Cluster } from "../cluster/types.js";
import { unavailableApiWarnings } from "../cluster/unavailable-apis.js";
import type { EngineEvent } from "../events.js";
import type { Package } from "../object/types.js";
import { gatherApplyFacts } from "../plan/gather.js";
import { planApply, plannedRefs } from "../plan/plan-apply.js";
import { planChangesNothing } from "../plan/types.js";
import { EventChannel } from "../util/event-channel.js";
import { executeApply } from "./execute-apply.js";
import { resolveOptions, type EngineOptions } from "./options.js";
import { Recorder } from "./recorder.js";

export function runApply(pkg: Package, cluster: Cluster, options: EngineOptions = {}): AsyncIterable<EngineEvent> {
  const channel = new EventChannel<EngineEvent>();
  const o = resolveOptions(options);
  (async () => {
    const dry = o.dryRun !== "none";
    const { facts, cache } = await gatherApplyFacts(pkg, cluster, { serverSide: o.serverSide, pollPeriodMs: o.pollPeriodMs, signal: o.signal });
    try {
      const plan = planApply(facts, { dryRun: dry, serverSide: o.serverSide, fieldManager: o.fieldManager, inventoryPolicy: o.inventoryPolicy, installResourceGroup: o.installResourceGroup });
      if (o.confirm && !dry) await o.confirm(plan);
      const recorder = new Recorder(channel);
      const info = plan.inventory.info;
      recorder.emit({ type: "init", command: "apply", dryRun: o.dryRun, inventory: { name: info.name, namespace: info.namespace, id: info.id }, objects: plannedRefs(plan), plan, changesNothing: planChangesNothing(plan) });
      for (const message of await unavailableApiWarnings(cluster, o.signal)) recorder.emit({ type: "warning", message });
      await executeApply(plan, cluster, cache, recorder, o);
    } finally {
      cache.close();
    }
  })().then(
    () => channel.close(),
    (err) => channel.fail(err),
  );
  return channel;
}
