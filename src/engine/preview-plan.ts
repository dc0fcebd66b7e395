// The plan of a run without performing it: what `apply()` or `destroy()` would do, for programs
// that show or check it first (the library's `plan()`). Reads the cluster, writes nothing.

import type { Cluster } from "../cluster/types.js";
import type { Package } from "../model/kube-object.js";
import { gatherApplyFacts, gatherDestroyFacts } from "../plan/gather.js";
import { planApply } from "../plan/plan-apply.js";
import { checkRemovalPatches } from "../plan/check-patches.js";
import { planDestroy } from "../plan/plan-destroy.js";
import type { RunPlan } from "../model/plan.js";
import { resolveOptions, type EngineOptions } from "./options.js";

export async function previewPlan(command: "apply" | "destroy", pkg: Package, cluster: Cluster, options: EngineOptions = {}): Promise<RunPlan> {
  const o = resolveOptions(options);
  if (command === "destroy") {
    const { facts, cache } = await gatherDestroyFacts(pkg, cluster, o);
    cache.close();
    return planDestroy(facts, o);
  }
  const { facts, cache } = await gatherApplyFacts(pkg, cluster, o);
  cache.close();
  return checkRemovalPatches(planApply(facts, { ...o, dryRun: true }), cluster, o.signal);
}
