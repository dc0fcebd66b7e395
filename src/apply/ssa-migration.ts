// The client-side → server-side migration (csa-upgrade.ts decides) and giving up the fields a
// package leaves to other controllers (left-alone.ts): whether an object needs the migration
// (the planner asks), the managedFields it leaves (the writer sends them, writer.ts), and for
// previews the same migration applied to what the server's dry run answered, which the server
// then stores as a dry run (or, where it may not be asked, computed locally).

import type { Cluster } from "../cluster/types.js";
import type { ObjRef } from "../model/ref.js";
import { managedFieldsOf, type ManagedFieldsEntry } from "../model/managed-fields.js";
import type { KubeObject } from "../model/kube-object.js";
import { clientSideManagers, migratedManagedFields, withManagedFields } from "./csa-upgrade.js";
import { applyMergePatch, applyStrategicPatch } from "./csa/apply-patch.js";
import { deepEqualJson, type JsonValue } from "./csa/json-value.js";
import { lastAppliedOf } from "./csa/last-applied.js";
import type { PatchSchema } from "./csa/patch-schema.js";
import { createThreeWayMergePatch, createThreeWayStrategicPatch, isEmptyPatch } from "./csa/three-way-patch.js";
import { previewServerSideApply } from "./ssa-local.js";
import { releasedManagedFields, withoutFields, type FieldPath } from "./left-alone.js";

/** True when the live object (as the cache keeps it) still has client-side appliers to migrate. */
export function migrationDue(live: KubeObject | undefined): boolean {
  return live !== undefined && clientSideManagers(live).size > 0;
}

/**
 * The managedFields before `fieldManager`'s next server-side apply: the client-side appliers'
 * fields handed to it (kubectl's migration), then the fields in `release` given up by it (their
 * values stay, owned by no one, instead of being removed by an apply that no longer sends them).
 * Undefined when neither changes anything.
 */
export function preparedManagedFields(live: KubeObject, fieldManager: string, release: readonly FieldPath[], now: Date): ManagedFieldsEntry[] | undefined {
  const migrated = migratedManagedFields(live, fieldManager, now);
  const released = release.length ? releasedManagedFields(migrated ?? managedFieldsOf(live), fieldManager, release) : undefined;
  return released ?? migrated;
}

/**
 * The live object read whole, with the managedFields the migration (and the release of `release`)
 * would give it (undefined: nothing to change).
 */
export async function readMigrated(cluster: Cluster, ref: ObjRef, fieldManager: string, release: readonly FieldPath[] = [], signal?: AbortSignal): Promise<KubeObject | undefined> {
  const live = await cluster.get(ref, signal);
  const managedFields = live && preparedManagedFields(live, fieldManager, release, new Date());
  return live && managedFields ? withManagedFields(live, managedFields) : undefined;
}

/**
 * What a server-side apply would leave once the migration is done, for a preview. The server's
 * dry run of the apply (`applied`) cannot see the fields the migration makes `fieldManager`'s
 * and the package does not set: the real apply removes them, and the server then fills in again
 * what it fills in on every write (defaults, a Namespace's name label, its admission webhooks),
 * so most of them stay. Those removals are computed locally, then the server is asked what it
 * would store for that object (`dryRunPatch`: a dry-run merge patch of the whole result, sent by
 * the writer): the apply's own result.
 */
export async function previewAfterMigration(
  cluster: Cluster,
  ref: ObjRef,
  desired: KubeObject,
  applied: KubeObject,
  fieldManager: string,
  schema: PatchSchema | undefined,
  dryRunPatch: (mergePatch: Record<string, unknown>) => Promise<KubeObject>,
  signal?: AbortSignal,
): Promise<KubeObject> {
  const migrated = await readMigrated(cluster, ref, fieldManager, [], signal);
  if (!migrated) return applied;
  const removed = previewServerSideApply(desired, withManagedFields(applied, migrated.metadata.managedFields as ManagedFieldsEntry[]), fieldManager, schema);
  const stored = deepEqualJson(bodyOf(removed) as JsonValue, bodyOf(applied) as JsonValue) ? applied : await dryRunPatch(mergePatchBetween(migrated, removed));
  return withManagedFields(stored, managedFieldsOf(applied));
}

/**
 * The same preview where the server may not be asked (an identity that may only read):
 * server-side apply computed locally as if no migration were due, then what the client-side
 * appliers last applied (the last-applied annotation) and the package dropped taken away, as
 * client-side apply's three-way patch takes it away. Fields the client-side appliers own but
 * never sent (the server's defaults, set when they wrote) are left in place: the server sets
 * them again after the real apply removes them. `release`: the fields the package now leaves
 * to others, given up first; `leftAlone`: every field it leaves to others (never removed).
 */
export async function previewMigratedLocally(
  cluster: Cluster,
  ref: ObjRef,
  desired: KubeObject,
  fieldManager: string,
  o: { release: readonly FieldPath[]; leftAlone: readonly FieldPath[]; schema: PatchSchema | undefined; signal?: AbortSignal },
): Promise<KubeObject | undefined> {
  const live = await cluster.get(ref, o.signal);
  if (!live) return undefined;
  const released = o.release.length ? releasedManagedFields(managedFieldsOf(live), fieldManager, o.release) : undefined;
  const applied = previewServerSideApply(desired, released ? withManagedFields(live, released) : live, fieldManager, o.schema);
  const lastApplied = migrationDue(live) ? lastAppliedOf(live) : undefined;
  if (!lastApplied) return applied;
  const original = o.leftAlone.length ? withoutFields(lastApplied, o.leftAlone) : lastApplied;
  const patch = o.schema ? createThreeWayStrategicPatch(original, desired, applied, o.schema) : createThreeWayMergePatch(original, desired, applied);
  return isEmptyPatch(patch) ? applied : ((o.schema ? applyStrategicPatch(applied, patch, o.schema) : applyMergePatch(applied, patch)) as KubeObject);
}

/** The object without what the server keeps for itself, which a patch neither sends nor compares. */
function bodyOf(obj: KubeObject): KubeObject {
  const { managedFields: _m, resourceVersion: _r, generation: _g, uid: _u, creationTimestamp: _c, ...metadata } = obj.metadata;
  const { status: _s, ...rest } = obj;
  return { ...rest, metadata };
}

/** The JSON merge patch (RFC 7386) that turns `from` into `to`: lists are sent whole, removed keys as null. */
function mergePatchBetween(from: KubeObject, to: KubeObject): Record<string, unknown> {
  const a = bodyOf(from);
  return createThreeWayMergePatch(a, bodyOf(to), a);
}
