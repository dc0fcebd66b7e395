// Every write of a package object goes through here: client-side apply's create and patch,
// server-side apply, the client-side → server-side migration of field ownership, letting an
// object go from the inventory (detach), deletes, and the server's dry runs of any of them (the
// planner's checks included). One gate bounds them all: the run's --concurrency. A write an
// admission webhook could not be called for is tried again while the caller's `retry` allows
// (webhook-retry.ts), without holding its place in the gate. The inventory and the change
// history store their own objects (inventory/cluster-inventory.ts, history/cluster-history.ts).

import { ApiError } from "../cluster/api-error.js";
import type { Cluster, DeleteOptions, WriteOptions } from "../cluster/types.js";
import { OWNING_INVENTORY_ANNOTATION } from "../model/inventory-keys.js";
import type { KubeObject } from "../model/kube-object.js";
import type { CsaPatchType } from "../model/plan.js";
import type { ObjRef } from "../model/ref.js";
import { limiter } from "../util/pool.js";
import { CSA_FIELD_MANAGER, migrationPatch } from "./csa-upgrade.js";
import type { FieldPath } from "./left-alone.js";
import { preparedManagedFields } from "./ssa-migration.js";
import { retryWhileWebhookUnavailable, type WebhookRetry } from "./webhook-retry.js";

export interface WriterOptions {
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
   * annotation, so that no inventory claims it any more. Undefined when done (or already gone,
   * or not claimed); else why it could not be.
   */
  async detach(ref: ObjRef, live: KubeObject): Promise<string | undefined> {
    if (!live.metadata.annotations?.[OWNING_INVENTORY_ANNOTATION]) return undefined;
    try {
      await this.gate(() => this.cluster.patch(ref, { metadata: { annotations: { [OWNING_INVENTORY_ANNOTATION]: null } } }, "merge"));
      return undefined;
    } catch (err) {
      if (err instanceof ApiError && err.notFound) return undefined;
      return `cannot detach it from the inventory: ${(err as Error).message}`;
    }
  }
}
