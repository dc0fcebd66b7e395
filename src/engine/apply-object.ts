// Applies one object: checks who owns it, then creates, patches (client-side, kubectl's
// three-way patch) or server-side applies it, and says what happened. Per-object failures are
// results, never exceptions.

import { ApiError, briefApiError, forbiddenAdvice, forbiddenOf, WebhookUnavailableError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import type { ApplyOperation, DryRunStrategy } from "../events.js";
import { ownershipOf, policyAllows, policyRefusal, type InventoryPolicy } from "../inventory/policy.js";
import { refOf, type ObjRef } from "../object/ref.js";
import type { KubeObject, SourcePos } from "../object/types.js";
import type { LiveCache } from "../status/live-cache.js";
import type { PatchSchema } from "../apply/csa/patch-schema.js";
import { deepEqualJson, type JsonValue } from "../apply/csa/json-value.js";
import { isCsaNoop, planClientSideApply, type CsaPlan } from "../apply/csa/plan-csa.js";
import { isSsaNoop } from "../apply/ssa-noop.js";
import { retryWhileWebhookUnavailable, WEBHOOK_RETRY_WITHOUT_TIMEOUT_MS, type WebhookRetry } from "../apply/webhook-retry.js";
import { migrateToServerSide, migrationDue, previewAfterMigration, readMigrated } from "../apply/ssa-migration.js";
import { previewLocally } from "../apply/local-preview.js";
import { storedForm } from "../apply/csa/stored-form.js";

export interface ApplyObjectContext {
  cluster: Cluster;
  cache: LiveCache;
  inventoryId: string;
  policy: InventoryPolicy;
  serverSide: boolean;
  fieldManager: string;
  forceConflicts: boolean;
  dryRun: DryRunStrategy;
  /** The strategic-merge schema for built-in kinds; undefined means JSON merge patch. */
  schemaFor(obj: KubeObject): Promise<PatchSchema | undefined>;
  /** How a write refused by an unreachable admission webhook is retried (apply/webhook-retry.ts); never in a dry run. */
  webhookRetry?: (ref: ObjRef) => WebhookRetry;
}

export interface ApplyObjectResult {
  status: "Successful" | "Skipped" | "Failed";
  operation?: ApplyOperation;
  error?: string;
  /** The object as the server returned it (or as it stands, when unchanged). */
  object?: KubeObject;
  /** Failed, but the write may have happened all the same (its answer was lost or was a 5xx). */
  mayExist?: boolean;
  /**
   * A dry run the server refused this identity (a 403: it may only read), computed locally
   * instead; why, in brief: `forbidden: user "ci" may not patch configmaps in namespace app`.
   */
  local?: string;
}

/** True when a failed write may have taken effect: no answer, a server error, or an earlier try whose answer was lost. */
function outcomeUnknown(err: unknown): boolean {
  // A webhook the server could not call refused the write before anything was stored.
  if (err instanceof WebhookUnavailableError && err.attempts === 1) return false;
  return !(err instanceof ApiError) || err.status >= 500 || err.attempts > 1;
}

function describeApiError(err: unknown, verb: string, serverSide: boolean, source?: SourcePos): string {
  // kpt names the file relative to the package (its path annotation), wherever the package is.
  const file = source?.pkgFile ?? source?.file;
  const where = file ? ` "${file}"` : "";
  if (err instanceof ApiError) {
    if (err.status === 409 && err.causes.some((c) => c.reason === "FieldManagerConflict")) {
      return `${err.message} (use --force-conflicts to take these fields over, or stop setting them in the package)`;
    }
    // The cache saw it a moment ago: someone deleted it while this run was applying it.
    if (err.status === 404 && verb === "patching" && !/does not serve/.test(err.message)) return `error when ${verb}${where}: ${err.message} (it was deleted meanwhile, perhaps by another run of this package: apply again)`;
    // The server's words (kpt prints them too), and for a 403 which permission to ask for.
    const advice =
      forbiddenAdvice(err) ??
      (err instanceof WebhookUnavailableError
        ? `admission webhook "${err.webhook}" was still not reachable (${err.why}) after retrying until the wave's reconcile timeout (${WEBHOOK_RETRY_WITHOUT_TIMEOUT_MS / 60_000}m without --reconcile-timeout): check the webhook's Service and Pods, or raise --reconcile-timeout`
        : undefined) ??
      (err.status === 422 && /metadata\.annotations: Too long/.test(err.message) && !serverSide
        ? "client-side apply keeps a copy of the object in its last-applied-configuration annotation, which the server limits to 256 KiB: apply with --server-side"
        : undefined);
    return `error when ${verb}${where}: ${err.message}${advice ? `; ${advice}` : ""}`;
  }
  return `error when ${verb}${where}: ${(err as Error).message}`;
}

/** Equal apart from bookkeeping the server changes on every write. */
function sameContent(a: KubeObject, b: KubeObject | undefined): boolean {
  if (!b) return false;
  const strip = (o: KubeObject) => {
    const { managedFields: _m, resourceVersion: _r, generation: _g, ...metadata } = o.metadata;
    return { ...o, metadata } as unknown as JsonValue;
  };
  return deepEqualJson(strip(a), strip(b));
}

/** Client-side apply's decision from the plan, and the live object it was made against. */
export interface PlannedCsa {
  csa?: CsaPlan;
  live?: KubeObject;
}

export async function applyObject(ctx: ApplyObjectContext, desired: KubeObject, source?: SourcePos, planned?: PlannedCsa): Promise<ApplyObjectResult> {
  const ref = refOf(desired);
  let live = ctx.cache.get(ref);
  // The plan's patch holds while the object is as the plan read it; else it is computed afresh.
  let reuse = planned?.csa && live?.metadata.resourceVersion === planned.live?.metadata.resourceVersion && live?.metadata.uid === planned.live?.metadata.uid ? planned.csa : undefined;
  if (live) {
    const ownership = ownershipOf(live, ctx.inventoryId);
    if (!policyAllows(ownership, ctx.policy)) return { status: "Skipped", error: policyRefusal(live, ownership, ctx.policy, "Apply") };
  }
  const dryRun = ctx.dryRun === "server";
  const retry = ctx.dryRun === "none" ? ctx.webhookRetry?.(ref) : undefined;
  const write = <T>(fn: () => Promise<T>) => retryWhileWebhookUnavailable(fn, retry);
  try {
    if (ctx.serverSide) {
      if (live && isSsaNoop(desired, live, ctx.fieldManager)) return { status: "Successful", operation: "unchanged", object: live };
      if (ctx.dryRun === "client") return await dryRunLocally(ctx, desired, live);
      // Applied client-side before: its fields become this manager's first, so dropped ones go (kubectl's migration).
      const migrate = migrationDue(live);
      if (migrate && !dryRun) await write(() => migrateToServerSide(ctx.cluster, ref, ctx.fieldManager));
      let result = await write(() => ctx.cluster.apply(desired, { fieldManager: ctx.fieldManager, force: ctx.forceConflicts, dryRun }));
      if (migrate && dryRun) result = await previewAfterMigration(ctx.cluster, ref, desired, result, ctx.fieldManager, await ctx.schemaFor(desired));
      // A dry run never bumps resourceVersion, so there the objects themselves are compared.
      const same = dryRun ? sameContent(result, live) : result.metadata.resourceVersion === live?.metadata.resourceVersion;
      const operation: ApplyOperation = !live ? "created" : same ? "unchanged" : "configured";
      return { status: "Successful", operation, object: result };
    }
    // Decided without merge keys, so an unchanged object never waits for an OpenAPI document.
    if (live && (reuse ? reuse.op === "unchanged" : isCsaNoop(desired, live))) return { status: "Successful", operation: "unchanged", object: live };
    // A repeated create that found the object: our first try made it, and its answer was lost.
    let createdByLostTry = false;
    for (let attempt = 1; ; attempt++) {
      // A create needs no merge keys; a patch does.
      const plan = reuse ?? planClientSideApply(desired, live, live ? await ctx.schemaFor(desired) : undefined, ctx.fieldManager);
      reuse = undefined;
      if (plan.op === "unchanged") return { status: "Successful", operation: createdByLostTry ? "created" : "unchanged", object: live };
      if (ctx.dryRun === "client") return { status: "Successful", operation: plan.op === "create" ? "created" : "configured", object: storedForm(plan.op === "patch" ? plan.preview : plan.body, live) };
      try {
        if (plan.op === "create") {
          const object = await write(() => ctx.cluster.create(plan.body, { dryRun, fieldManager: "kubectl-client-side-apply" }));
          return { status: "Successful", operation: "created", object };
        }
        const object = await write(() => ctx.cluster.patch(ref, plan.patch, plan.patchType, { dryRun, fieldManager: "kubectl-client-side-apply" }));
        return { status: "Successful", operation: "configured", object };
      } catch (err) {
        // Created by someone else since we listed it: read it and patch instead, once.
        if (err instanceof ApiError && err.status === 409 && plan.op === "create" && attempt === 1) {
          createdByLostTry = err.attempts > 1;
          live = await ctx.cluster.get(ref);
          if (live) {
            const ownership = ownershipOf(live, ctx.inventoryId);
            if (!policyAllows(ownership, ctx.policy)) return { status: "Skipped", error: policyRefusal(live, ownership, ctx.policy, "Apply") };
          }
          continue;
        }
        throw err;
      }
    }
  } catch (err) {
    // A server-side dry run this identity may not make (RBAC authorizes it like the write itself):
    // the same result computed locally, so a read-only CI job can preview. Other 403s (a policy's
    // denial, a namespace being deleted) are the object's real failure.
    if (dryRun && err instanceof ApiError && forbiddenOf(err)) {
      const local = await dryRunLocally(ctx, desired, live).catch((e: unknown): ApplyObjectResult => ({ status: "Failed", error: `cannot preview it locally: ${(e as Error).message}` }));
      return { ...local, local: briefApiError(err) };
    }
    return { status: "Failed", error: describeApiError(err, live ? "patching" : "creating", ctx.serverSide, source), ...(outcomeUnknown(err) ? { mayExist: true } : {}) };
  }
}

/** What a dry run would return, computed without the server (see apply/local-preview.ts). */
async function dryRunLocally(ctx: ApplyObjectContext, desired: KubeObject, live: KubeObject | undefined): Promise<ApplyObjectResult> {
  const base = ctx.serverSide && migrationDue(live) ? ((await readMigrated(ctx.cluster, refOf(desired), ctx.fieldManager)) ?? live) : live;
  const object = previewLocally(desired, base, { serverSide: ctx.serverSide, fieldManager: ctx.fieldManager, schema: live ? await ctx.schemaFor(desired) : undefined });
  return { status: "Successful", operation: !live ? "created" : sameContent(object, live) ? "unchanged" : "configured", object };
}
