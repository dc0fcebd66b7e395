// Every write of a package object goes through here: client-side apply's create and patch,
// server-side apply, the client-side → server-side migration of field ownership, letting an
// object go from the inventory (detach), deletes, and the server's dry runs of any of them (the
// planner's checks included). One gate bounds them all: the run's --concurrency. A write an
// admission webhook could not be called for is tried again while the caller's `retry` allows
// (webhook-retry.ts), without holding its place in the gate. The inventory and the change
// history store their own objects (inventory/cluster-inventory.ts, history/cluster-history.ts).

import { ApiError } from "../cluster/api-error.js";
import type { Cluster, DeleteOptions, WriteOptions } from "../cluster/types.js";
import { APPLYSET_PART_OF_LABEL, OWNING_INVENTORY_ANNOTATION } from "../model/inventory-keys.js";
import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../model/kube-object.js";
import type { CsaPatchType } from "../model/plan.js";
import type { ObjRef } from "../model/ref.js";
import { limiter } from "../util/pool.js";
import { lastAppliedValue } from "./csa/last-applied.js";
import { CSA_FIELD_MANAGER, migrationPatch } from "./csa-upgrade.js";
import type { FieldPath } from "./left-alone.js";
import { preparedManagedFields } from "./ssa-migration.js";
import { retryWhileWebhookUnavailable, type WebhookRetry } from "./webhook-retry.js";

interface WriterOptions {
  dryRun?: boolean;
  /** Tries again while an admission webhook cannot be reached (never for a dry run). */
  retry?: WebhookRetry;
  signal?: AbortSignal;
}

/** kubectl's maxPatchRetry: the migration is read and sent again after a conflict, up to this often. */
const MIGRATION_TRIES = 5;

export class Writer {
  private readonly gate: <T>(fn: () => Promise<T>) => Promise<T>;

  constructor(
    private readonly cluster: Cluster,
    concurrency: number,
  ) {
    this.gate = limiter(Math.max(1, concurrency));
  }

  private send<T>(fn: () => Promise<T>, retry?: WebhookRetry): Promise<T> {
    return retryWhileWebhookUnavailable(() => this.gate(fn), retry);
  }

  /** Client-side apply's create: the body carries its last-applied annotation; kubectl's field manager. */
  create(obj: KubeObject, o: WriterOptions = {}): Promise<KubeObject> {
    return this.send(() => this.cluster.create(obj, { dryRun: o.dryRun, fieldManager: CSA_FIELD_MANAGER, signal: o.signal }), o.retry);
  }

  /**
   * Client-side apply's patch (kubectl's three-way patch), as kubectl's field manager. A dry run
   * `basedOn` the live version the patch was computed against may be answered from the disk cache
   * (WriteOptions.basedOn).
   */
  patch(ref: ObjRef, patch: object, type: CsaPatchType, o: WriterOptions & Pick<WriteOptions, "basedOn"> = {}): Promise<KubeObject> {
    return this.send(() => this.cluster.patch(ref, patch, type, { dryRun: o.dryRun, fieldManager: CSA_FIELD_MANAGER, signal: o.signal, basedOn: o.dryRun ? o.basedOn : undefined }), o.retry);
  }

  /** Server-side apply. */
  apply(obj: KubeObject, o: WriterOptions & { fieldManager: string; force: boolean }): Promise<KubeObject> {
    return this.send(() => this.cluster.apply(obj, { fieldManager: o.fieldManager, force: o.force, dryRun: o.dryRun, signal: o.signal }), o.retry);
  }

  delete(ref: ObjRef, o: DeleteOptions = {}): Promise<"deleted" | "terminating" | "notfound"> {
    return this.gate(() => this.cluster.delete(ref, o));
  }

  /**
   * Hands the client-side appliers' fields to `fieldManager` before its server-side apply
   * (kubectl's csaupgrade), and gives up those in `release`: the object read whole (the live
   * cache keeps only a marker of the client-side entries), kubectl's JSON patch of managedFields
   * guarded by the resourceVersion it was computed from, read and sent again on a conflict.
   * Returns the object as changed, or undefined when there was nothing to do (or it is gone).
   */
  migrate(ref: ObjRef, fieldManager: string, o: { release?: readonly FieldPath[]; retry?: WebhookRetry; signal?: AbortSignal } = {}): Promise<KubeObject | undefined> {
    return retryWhileWebhookUnavailable(async () => {
      for (let attempt = 1; ; attempt++) {
        const live = await this.cluster.get(ref, o.signal);
        if (!live) return undefined;
        const managedFields = preparedManagedFields(live, fieldManager, o.release ?? [], new Date());
        if (!managedFields) return undefined;
        try {
          return await this.gate(() => this.cluster.patch(ref, migrationPatch(managedFields, live.metadata.resourceVersion), "json", { fieldManager, signal: o.signal }));
        } catch (err) {
          if (err instanceof ApiError && err.status === 409 && attempt < MIGRATION_TRIES) continue;
          throw err;
        }
      }
    }, o.retry);
  }

  /**
   * kpt's abandon: an object kept by its protection annotation loses its owning-inventory
   * annotation, and its ApplySet part-of label (an ApplySet finds its members by it), so that no
   * inventory claims it any more. Undefined when done (or already gone, or not claimed); else
   * why it could not be.
   */
  async detach(ref: ObjRef, live: KubeObject): Promise<string | undefined> {
    const annotated = Boolean(live.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION]);
    const labelled = live.metadata.labels?.[APPLYSET_PART_OF_LABEL] !== undefined;
    if (!annotated && !labelled) return undefined;
    const metadata = { ...(annotated ? { annotations: { [OWNING_INVENTORY_ANNOTATION]: null } } : {}), ...(labelled ? { labels: { [APPLYSET_PART_OF_LABEL]: null } } : {}) };
    try {
      await this.gate(() => this.cluster.patch(ref, { metadata }, "merge"));
      return undefined;
    } catch (err) {
      if (err instanceof ApiError && err.notFound) return undefined;
      return `cannot detach it from the inventory: ${(err as Error).message}`;
    }
  }

  /**
   * `live migrate` between inventory kinds: the object's inventory marks set (a string) or removed
   * (null), in place, by a merge patch guarded by its uid: nothing is deleted or created. Its
   * client-side last-applied copy gets the same marks, so the next apply changes nothing.
   * Returns undefined when done (or the object is gone), else why not.
   */
  async mark(ref: ObjRef, live: KubeObject, marks: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> }): Promise<string | undefined> {
    const annotations: Record<string, string | null> = { ...marks.annotations };
    const lastApplied = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
    const marked = lastApplied !== undefined ? markedLastApplied(lastApplied, marks) : undefined;
    if (marked !== undefined) annotations[LAST_APPLIED_ANNOTATION] = marked;
    const patch = { metadata: { uid: live.metadata.uid, ...(marks.labels ? { labels: marks.labels } : {}), annotations } };
    try {
      await this.gate(() => this.cluster.patch(ref, patch, "merge"));
      return undefined;
    } catch (err) {
      if (err instanceof ApiError && err.notFound) return undefined;
      return (err as Error).message;
    }
  }
}

/** kubectl's last-applied copy (as kubectl encodes it) with the marks set or removed; undefined when it cannot be read. */
function markedLastApplied(text: string, marks: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> }): string | undefined {
  let obj: KubeObject;
  try {
    obj = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return undefined;
  const metadata = (obj.metadata ??= {});
  for (const [field, values] of [["labels", marks.labels], ["annotations", marks.annotations]] as const) {
    if (!values) continue;
    const map: Record<string, string> = { ...metadata[field] };
    for (const [k, v] of Object.entries(values)) {
      if (v === null) delete map[k];
      else map[k] = v;
    }
    if (Object.keys(map).length || field === "annotations") metadata[field] = map;
    else delete metadata[field];
  }
  return lastAppliedValue(obj);
}
