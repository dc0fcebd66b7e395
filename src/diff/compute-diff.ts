// The IO shell of `live diff`: the apply's own plan (same gathering, same planner), and for each
// package object what the server would store, from a server-side dry run (client-side apply's
// three-way patch, or server-side apply). Deletes and skips are the plan's. Nothing is written.

import { schemaLookup } from "../apply/schema-lookup.js";
import { ApiError, forbiddenAdvice } from "../cluster/api-error.js";
import { refKey } from "../model/ref.js";
import type { Cluster } from "../cluster/types.js";
import { applyObject, type ApplyObjectContext } from "../engine/apply-object.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import type { Package } from "../model/kube-object.js";
import { gatherApplyFacts } from "../plan/gather.js";
import { planApply } from "../plan/plan-apply.js";
import { forEachLimited } from "../util/pool.js";
import { computeChangeSet, previewBlockedByPackage, type ApplyOutcome, type ChangeSet } from "./change-set.js";
import { localPreviewNote } from "../apply/local-preview.js";

export interface DiffOptions {
  serverSide: boolean;
  fieldManager: string;
  forceConflicts: boolean;
  inventoryPolicy: InventoryPolicy;
  concurrency: number;
  /** Compute every object locally instead of asking the server for a dry run (--local). */
  local?: boolean;
  /** Why `local` is set, for the line that says so (default: `--local`). */
  localReason?: string;
  signal?: AbortSignal;
}

export async function computeDiff(pkg: Package, cluster: Cluster, o: DiffOptions): Promise<ChangeSet> {
  const { facts, cache } = await gatherApplyFacts(pkg, cluster, { serverSide: o.serverSide, signal: o.signal });
  try {
    const plan = planApply(facts, { dryRun: true, serverSide: o.serverSide, fieldManager: o.fieldManager, inventoryPolicy: o.inventoryPolicy, installResourceGroup: true });
    // The would-be object is computed even where the plan skips the apply (the dry run as if
    // adopting); the skip is reported next to it.
    const ctx: ApplyObjectContext = {
      cluster,
      cache,
      inventoryId: plan.inventory.info.id,
      policy: "force-adopt",
      serverSide: o.serverSide,
      fieldManager: o.fieldManager,
      forceConflicts: o.forceConflicts,
      dryRun: o.local ? "client" : "server",
      schemaFor: schemaLookup(cluster),
    };
    const packageObjects = plan.applies.map((a) => a.object);
    const applies: ApplyOutcome[] = [];
    // Why the preview is (partly) computed locally: --local, or the first dry run the server refused this identity.
    let localReason = o.local ? (o.localReason ?? "--local") : undefined;
    await forEachLimited(
      plan.applies,
      o.concurrency,
      async (p) => {
        const unreadable = facts.unreadable.get(refKey(p.ref));
        if (unreadable) {
          // Not knowing the live object, the preview would show a create that apply would not make.
          const error = `cannot read it, so the preview cannot tell what apply would do: ${unreadable}${readAdvice(unreadable)}`;
          applies.push({ ref: p.ref, result: { status: "Failed", error }, ...(p.source ? { source: p.source } : {}) });
          return;
        }
        const r = await applyObject(ctx, p.object, p.source, p);
        // A read-only identity (a CI job's): the server authorizes a dry run like the write itself.
        if (r.local) localReason ??= `the server refused dry-run writes: ${r.local}`;
        let result: ApplyOutcome["result"];
        if (r.status === "Successful") result = { status: "Successful", ...(r.object ? { object: r.object } : {}) };
        else {
          const error = r.error ?? "the server refused the dry run";
          const blocked = previewBlockedByPackage(error, p.ref, packageObjects);
          result = blocked ? { status: "Successful", object: p.object, note: blocked } : { status: "Failed", error };
        }
        applies.push({ ref: p.ref, ...(p.live ? { live: p.live } : {}), result, ...(p.skip ? { refusal: p.skip } : {}), ...(p.source ? { source: p.source } : {}) });
      },
      o.signal,
    );
    const info = plan.inventory.info;
    return computeChangeSet({
      inventory: { name: info.name, namespace: info.namespace, exists: plan.inventory.stored !== undefined },
      applies,
      deletes: plan.deletes,
      waves: { apply: plan.applyWaves, delete: plan.deleteWaves },
      ...(localReason ? { local: localPreviewNote(localReason, o.serverSide) } : {}),
    });
  } finally {
    cache.close();
  }
}

/** For a read the server refused: which permission to ask for. */
function readAdvice(why: string): string {
  const advice = forbiddenAdvice(new ApiError(403, "Forbidden", why));
  return advice && /cannot \w+ resource/.test(why) ? `; ${advice}` : "";
}
