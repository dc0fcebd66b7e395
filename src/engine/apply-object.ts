// Applies one planned object: checks the plan still holds (the live object is the one it was
// decided against; else the object is decided again, by the planner's own function), then
// creates, patches (client-side, kubectl's three-way patch) or server-side applies it, or in a
// dry run asks the server what it would store. Per-object failures are results, never exceptions.

import { ApiError, briefApiError, forbiddenAdvice, forbiddenOf, NotServedError, WebhookUnavailableError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import type { DryRunStrategy } from "../model/events.js";
import { crdGroupKind, type KubeObject, type SourcePos } from "../model/kube-object.js";
import type { ObjRef } from "../model/ref.js";
import type { CsaPlan, PlannedApply } from "../model/plan.js";
import type { LiveCache } from "../cluster/live-cache.js";
import type { PatchSchema } from "../apply/csa/patch-schema.js";
import { previewPlannedWrite, previewServerSide } from "../apply/local-preview.js";
import { IGNORE_FIELDS_ANNOTATION, parseFieldPaths, withFieldsOf, type FieldPath } from "../apply/left-alone.js";
import { previewAfterMigration, previewMigratedLocally } from "../apply/ssa-migration.js";
import { storedForm } from "../apply/csa/stored-form.js";
import { describeRetryLimit, type WebhookRetry } from "../apply/webhook-retry.js";
import type { Writer } from "../apply/writer.js";
import { immutableRefusal, replaceAdvice } from "../apply/immutable-fields.js";
import { UPDATE_STRATEGY_ANNOTATION } from "../model/lifecycle-keys.js";
import { needsMergeSchema, planStillHolds, replanObject, sameStoredObject, type ObjectPlanOptions } from "../plan/plan-object.js";

export interface ApplyObjectContext extends ObjectPlanOptions {
  /** Reads; the writes go through `writer`. */
  cluster: Cluster;
  writer: Writer;
  cache: LiveCache;
  forceConflicts: boolean;
  dryRun: DryRunStrategy;
  /** The strategic-merge schema for built-in kinds; undefined means JSON merge patch. */
  schemaFor(obj: KubeObject): Promise<PatchSchema | undefined>;
  /** The package's Namespaces and CRDs: a server dry run cannot see them yet, as the apply creates them first. */
  packageObjects: readonly KubeObject[];
  /** How a write refused by an unreachable admission webhook is retried (apply/webhook-retry.ts); never in a dry run. */
  webhookRetry?: (ref: ObjRef) => WebhookRetry;
}

export interface ApplyObjectResult {
  status: "Successful" | "Skipped" | "Failed";
  operation?: PlannedApply["operation"];
  error?: string;
  /** The live object the apply was made against; absent when there was none. */
  before?: KubeObject;
  /** The object as the server returned it (or would store it, in a dry run); the live one when unchanged. */
  after?: KubeObject;
  /** Failed, but the write may have happened all the same (its answer was lost or was a 5xx). */
  mayExist?: boolean;
  /**
   * A dry run the server refused this identity (a 403: it may only read), computed locally
   * instead; why, in brief: `forbidden: user "ci" may not patch configmaps in namespace app`.
   */
  local?: string;
  /** A dry run the server could not make, with the object shown as the package has it: why. */
  note?: string;
  /**
   * The update of an object that says `replace-on-immutable`, refused for an immutable field
   * (`spec.template: field is immutable`) though the plan did not foresee it (the object changed
   * since the plan read it, or the plan's dry run got no answer): the apply step replaces it now.
   */
  refusedImmutable?: string;
}

/** True when a failed write may have taken effect: no answer, a server error, or an earlier try whose answer was lost. */
function outcomeUnknown(err: unknown): boolean {
  // A webhook the server could not call refused the write before anything was stored.
  if (err instanceof WebhookUnavailableError && err.attempts === 1) return false;
  return !(err instanceof ApiError) || err.status >= 500 || err.attempts > 1;
}

function describeApiError(err: unknown, verb: string, serverSide: boolean, source?: SourcePos, retry?: WebhookRetry, replaceOnImmutable = false): string {
  // kpt names the file relative to the package (its path annotation), wherever the package is.
  const file = source?.pkgFile ?? source?.file;
  const where = file ? ` "${file}"` : "";
  if (err instanceof ApiError) {
    if (err.status === 409 && err.causes.some((c) => c.reason === "FieldManagerConflict")) {
      return `${err.message} (use --force-conflicts to take these fields over, or stop setting them in the package, or leave them to the other manager with the ${IGNORE_FIELDS_ANNOTATION} annotation)`;
    }
    // The cache saw it a moment ago: someone deleted it while this run was applying it.
    if (err.status === 404 && verb === "patching" && !(err instanceof NotServedError)) return `error when ${verb}${where}: ${err.message} (it was deleted meanwhile, perhaps by another run of this package: apply again)`;
    // An immutable field: the server's words are long (it dumps the whole value); name the field and the way out.
    const immutable = immutableRefusal(err);
    if (immutable) {
      const advice = replaceOnImmutable ? `${immutable}, which the plan's dry run did not foresee: apply again to replace it` : replaceAdvice(immutable);
      return `error when ${verb}${where}: ${err.reason}: ${advice}`;
    }
    // The server's words (kpt prints them too), and for a 403 which permission to ask for.
    const advice =
      forbiddenAdvice(err) ??
      (err instanceof WebhookUnavailableError
        ? `admission webhook "${err.webhook}" was still not reachable (${err.why}) after retrying for ${retry?.limit ?? describeRetryLimit(undefined)}: check the webhook's Service and Pods, or raise --reconcile-timeout`
        : undefined) ??
      (err.status === 422 && err.causes.some((c) => c.reason === "FieldValueTooLong" && c.field === "metadata.annotations") && !serverSide
        ? "client-side apply keeps a copy of the object in its last-applied-configuration annotation, which the server limits to 256 KiB: apply with --server-side"
        : undefined);
    return `error when ${verb}${where}: ${err.message}${advice ? `; ${advice}` : ""}`;
  }
  return `error when ${verb}${where}: ${(err as Error).message}`;
}

/**
 * The plan for this object against the live object it finds now: the plan's own while the object
 * is as the plan read it, else decided again (and when client-side apply's patch could not be
 * computed when planning, computed now: its error, if any, is the object's failure).
 */
async function currentPlan(ctx: ApplyObjectContext, p: PlannedApply, live: KubeObject | undefined): Promise<PlannedApply> {
  if (planStillHolds(p, live) && !p.unplanned) return p;
  // A schema that cannot be read fails the object with the server's own words.
  const fresh = replanObject(p, live, needsMergeSchema(p.object, live, ctx.serverSide) ? await ctx.schemaFor(p.object) : undefined, ctx);
  if (fresh.unplanned) throw new Error(fresh.unplanned);
  return fresh;
}

export async function applyObject(ctx: ApplyObjectContext, planned: PlannedApply): Promise<ApplyObjectResult> {
  const { ref, source } = planned;
  let live = ctx.cache.get(ref);
  const dryRun = ctx.dryRun === "server";
  const retry = dryRun ? undefined : ctx.webhookRetry?.(ref);
  // A repeated create that found the object: our first try made it, and its answer was lost.
  let createdByLostTry = false;
  try {
    if (planned.unreadable && ctx.dryRun !== "none") {
      // Not knowing the live object, the preview would show a create that apply would not make.
      return { status: "Failed", error: `cannot read it, so the preview cannot tell what apply would do: ${planned.unreadable}${readAdvice(planned.unreadable)}` };
    }
    // A preview of a replacement (docs/lifecycle.md): the object deleted, then created as the package has it.
    if (planned.replace && live && ctx.dryRun !== "none") return replacePreview(planned, live);
    for (let attempt = 1; ; attempt++) {
      const p = await currentPlan(ctx, planned, live);
      const before = live ? { before: live } : {};
      if (p.skip) return { status: "Skipped", error: p.skip, ...before };
      if (p.operation === "unchanged") return { status: "Successful", operation: createdByLostTry ? "create" : "unchanged", ...before, ...(live ? { after: live } : {}) };
      if (ctx.dryRun === "client") return { ...(await dryRunLocally(ctx, p, live)), ...before };
      try {
        const after = await write(ctx, p, live, dryRun, retry);
        // The server's answer: a server-side apply that changed nothing keeps the resourceVersion;
        // a dry run keeps it either way, so there the answer must be the live object as it is (a
        // zero value the server omits, such as a CRD's `preserveUnknownFields: false`), but for
        // the bookkeeping a preview does not show. Handing fields from client-side apply over (or
        // giving some up) is a write of its own, which the apply reports as configured too.
        const kept = p.method === "server-side" && live && (dryRun ? sameStoredObject(after, live) && !movesOwnership(p) : after.metadata.resourceVersion === live.metadata.resourceVersion);
        return { status: "Successful", operation: kept ? "unchanged" : p.operation, ...before, after };
      } catch (err) {
        // Created by someone else since we listed it: read it and decide again, once.
        if (err instanceof ApiError && err.status === 409 && p.operation === "create" && p.method !== "server-side" && attempt === 1) {
          createdByLostTry = err.attempts > 1;
          live = await ctx.cluster.get(ref);
          continue;
        }
        throw err;
      }
    }
  } catch (err) {
    const before = live ? { before: live } : {};
    // A server-side dry run this identity may not make (RBAC authorizes it like the write itself):
    // the same result computed locally, so a read-only CI job can preview. Other 403s (a policy's
    // denial, a namespace being deleted) are the object's real failure.
    if (dryRun && err instanceof ApiError && forbiddenOf(err)) {
      const local = await currentPlan(ctx, planned, live)
        .then((p) => (p.skip ? { status: "Skipped" as const, error: p.skip } : dryRunLocally(ctx, p, live)))
        .catch((e: unknown): ApplyObjectResult => ({ status: "Failed", error: `cannot preview it locally: ${(e as Error).message}` }));
      return { ...local, ...before, local: briefApiError(err) };
    }
    // What the server cannot preview because this apply creates the object's namespace or kind first.
    const blocked = dryRun ? blockedByPackage(err, planned, ctx.packageObjects) : undefined;
    if (blocked) return { status: "Successful", operation: planned.operation, ...before, after: planned.object, note: blocked };
    const replaceOnImmutable = planned.object.metadata.annotations?.[UPDATE_STRATEGY_ANNOTATION] === "replace-on-immutable";
    const refused = replaceOnImmutable && live && ctx.dryRun === "none" ? immutableRefusal(err) : undefined;
    const error = describeApiError(err, live ? "patching" : "creating", planned.method === "server-side", source, retry, replaceOnImmutable);
    return { status: "Failed", error, ...before, ...(refused ? { refusedImmutable: refused } : {}), ...(outcomeUnknown(err) ? { mayExist: true } : {}) };
  }
}

/**
 * The write the plan says: server-side apply (after kubectl's migration of client-side field
 * ownership when the plan says so, so fields the package dropped go, and after giving up the
 * fields the package now leaves to others, so they stay), or client-side apply's create or
 * patch. A write an admission webhook could not be called for is tried again until the wave's
 * timeout.
 */
async function write(ctx: ApplyObjectContext, p: PlannedApply, live: KubeObject | undefined, dryRun: boolean, retry: WebhookRetry | undefined): Promise<KubeObject> {
  const { writer, fieldManager } = ctx;
  if (p.method === "server-side") {
    const release = fieldPaths(p.leftAlone?.release);
    if ((p.migrate || release.length) && !dryRun) await writer.migrate(p.ref, fieldManager, { release, retry });
    // A dry run cannot give fields up: sent with their values as they are, it shows what
    // giving them up leaves (the same values).
    const body = dryRun && release.length ? withFieldsOf(p.sent ?? p.object, live, release) : (p.sent ?? p.object);
    const applied = await writer.apply(body, { fieldManager, force: ctx.forceConflicts, dryRun, retry });
    // Created with every field: those it leaves to others once it exists are given up at once.
    const leaveNow = !live && !dryRun ? fieldPaths(p.leftAlone?.fields) : [];
    if (leaveNow.length) return (await writer.migrate(p.ref, fieldManager, { release: leaveNow, retry })) ?? applied;
    // A dry run cannot make the migration: what it would remove is applied to the server's
    // answer, and the server asked what it would store then.
    if (!p.migrate || !dryRun) return applied;
    return previewAfterMigration(ctx.cluster, p.ref, body, applied, fieldManager, await ctx.schemaFor(p.object), (patch) => writer.patch(p.ref, patch, "merge", { dryRun: true }));
  }
  const csa = p.csa as Exclude<CsaPlan, { op: "unchanged" }>;
  if (csa.op === "create") return writer.create(csa.body, { dryRun, retry });
  return writer.patch(p.ref, csa.patch, csa.patchType, { dryRun, retry });
}

/** A server-side apply that first writes managedFields: kubectl's migration from client-side apply, or fields given up. */
function movesOwnership(p: PlannedApply): boolean {
  return Boolean(p.migrate) || (p.leftAlone?.release?.length ?? 0) > 0;
}

/** The plan's field paths (as written in the annotation) parsed again. */
function fieldPaths(texts: readonly string[] | undefined): FieldPath[] {
  if (!texts?.length) return [];
  const parsed = parseFieldPaths(texts.join(","));
  return "paths" in parsed ? parsed.paths : [];
}

/**
 * What a dry run would return, computed without the server: client-side apply's planned patch
 * applied locally, or server-side apply approximated (see apply/local-preview.ts).
 */
async function dryRunLocally(ctx: ApplyObjectContext, p: PlannedApply, live: KubeObject | undefined): Promise<ApplyObjectResult> {
  if (p.csa) return { status: "Successful", operation: p.operation, after: previewPlannedWrite(p.csa, live) };
  // Applied client-side before, or with fields to give up: previewed as the migration and the release would leave it.
  const release = fieldPaths(p.leftAlone?.release);
  const desired = p.sent ?? p.object;
  const schema = live ? await ctx.schemaFor(p.object) : undefined;
  const migrated = p.migrate || release.length ? await previewMigratedLocally(ctx.cluster, p.ref, desired, ctx.fieldManager, { release, leftAlone: fieldPaths(p.leftAlone?.fields), schema }) : undefined;
  const after = migrated ? storedForm(migrated, live) : previewServerSide(desired, live, { fieldManager: ctx.fieldManager, schema });
  return { status: "Successful", operation: p.operation, after };
}

/**
 * Why the server could not preview an object that this same apply makes possible: its Namespace
 * or its CustomResourceDefinition comes with the package and does not exist yet. Undefined when
 * the error is a real one.
 */
function blockedByPackage(err: unknown, p: PlannedApply, packageObjects: readonly KubeObject[]): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  const ns = p.ref.namespace;
  if (ns && err.missingNamespace === ns) {
    if (packageObjects.some((o) => o.apiVersion === "v1" && o.kind === "Namespace" && o.metadata.name === ns)) return `namespace ${ns} is created by this apply: shown as in the package, not previewed by the server`;
  }
  if (err instanceof NotServedError) {
    const crd = packageObjects.find((o) => {
      const gk = o.kind === "CustomResourceDefinition" ? crdGroupKind(o) : undefined;
      return gk?.group === err.group && gk.kind === err.kind;
    });
    if (crd) return `its CustomResourceDefinition ${crd.metadata.name} is created by this apply: shown as in the package, not previewed by the server`;
  }
  return undefined;
}

function replacePreview(p: PlannedApply, live: KubeObject): ApplyObjectResult {
  const note = `replaced: ${p.replace} (${UPDATE_STRATEGY_ANNOTATION}: replace-on-immutable), so it is deleted and created again`;
  return { status: "Successful", operation: "create", before: live, after: p.object, note };
}

/** For a read the server refused: which permission to ask for. */
function readAdvice(why: string): string {
  const advice = forbiddenAdvice(new ApiError(403, "Forbidden", why));
  return advice && /cannot \w+ resource/.test(why) ? `; ${advice}` : "";
}
