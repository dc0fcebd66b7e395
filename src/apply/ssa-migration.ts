// The client-side → server-side migration (csa-upgrade.ts decides) and giving up the fields a
// package leaves to other controllers (left-alone.ts): whether an object needs the migration
// (the planner asks), the managedFields it leaves (the writer sends them, writer.ts), and for
// previews the same migration applied locally to what the server's dry run answered.

import type { Cluster } from "../cluster/types.js";
import type { ObjRef } from "../model/ref.js";
import { managedFieldsOf, type ManagedFieldsEntry } from "../model/managed-fields.js";
import type { KubeObject } from "../model/kube-object.js";
import { clientSideManagers, migratedManagedFields, withManagedFields } from "./csa-upgrade.js";
import type { PatchSchema } from "./csa/patch-schema.js";
import { previewServerSideApply } from "./ssa-local.js";
import { releasedManagedFields, type FieldPath } from "./left-alone.js";

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
 * What a server-side apply would leave once the migration is done, for a preview: the server's
 * dry run of the apply (`applied`) without the fields the package dropped that the migration
 * would make `fieldManager`'s (the dry run cannot see them go, as the migration is not made).
 */
export async function previewAfterMigration(cluster: Cluster, ref: ObjRef, desired: KubeObject, applied: KubeObject, fieldManager: string, schema: PatchSchema | undefined, signal?: AbortSignal): Promise<KubeObject> {
  const migrated = await readMigrated(cluster, ref, fieldManager, [], signal);
  if (!migrated) return applied;
  const preview = previewServerSideApply(desired, withManagedFields(applied, migrated.metadata.managedFields as ManagedFieldsEntry[]), fieldManager, schema);
  return { ...preview, metadata: { ...preview.metadata, managedFields: applied.metadata.managedFields } };
}
