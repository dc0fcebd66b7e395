// Reading an object's managedFields: the entries, and whether one owns client-side apply's
// last-applied annotation (the mark of a client-side applier, see apply/csa-upgrade.ts). Shared
// by the live cache, which keeps only what the appliers need, and by the migration itself.

import { isRecord, LAST_APPLIED_ANNOTATION, type KubeObject } from "./kube-object.js";

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

const LAST_APPLIED_FIELD = `f:${LAST_APPLIED_ANNOTATION}`;

export function managedFieldsOf(obj: KubeObject): ManagedFieldsEntry[] {
  const mf = obj.metadata.managedFields;
  return Array.isArray(mf) ? (mf.filter(isRecord) as ManagedFieldsEntry[]) : [];
}

/** The fieldsV1 tree of the last-applied annotation alone. */
export function lastAppliedFields(): Record<string, unknown> {
  return { "f:metadata": { "f:annotations": { [LAST_APPLIED_FIELD]: {} } } };
}

/** True when the entry's fields include the last-applied annotation. */
export function ownsLastApplied(entry: ManagedFieldsEntry): boolean {
  const meta = isRecord(entry.fieldsV1) ? entry.fieldsV1["f:metadata"] : undefined;
  const annotations = isRecord(meta) ? meta["f:annotations"] : undefined;
  return isRecord(annotations) && LAST_APPLIED_FIELD in annotations;
}

/**
 * The small stand-in the live cache keeps of a client-side applier's `Update` entry (which lists
 * every field of the object): enough to tell that a switch to server-side apply must migrate it.
 */
export function clientSideMarker(entry: ManagedFieldsEntry): ManagedFieldsEntry {
  const { fieldsV1: _fields, ...rest } = entry;
  return { ...rest, fieldsV1: lastAppliedFields() };
}
