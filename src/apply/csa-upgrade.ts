// Moving an object from client-side to server-side apply the way kubectl does (client-go's
// csaupgrade, kubectl apply's migrateToSSAIfNecessary and saveLastApplyAnnotationIfNecessary).
// Client-side apply records what it applied in the last-applied annotation and leaves field
// ownership to an `Update` entry of managedFields ("kubectl-client-side-apply"). Server-side
// apply removes only fields its own `Apply` entry owns, so without this step a field the package
// dropped while switching to --server-side stays for ever, owned by the client-side manager.
// The migration gives every `Update` manager that owns the annotation (the client-side appliers)
// over to the server-side manager: its fields are added to the manager's `Apply` entry (or the
// entry becomes it), and the `Update` entries go. The next server-side apply then removes what
// the package no longer sets. With the field manager "kubectl" (kpt's and kpt-ts' default),
// kubectl also makes "kubectl-last-applied" own the annotation, so that the server (which keeps
// the annotation current for "kubectl" applies) does not drop it, and a later switch back to
// client-side apply still knows what was applied last. Pure: the writer sends it (writer.ts).

import { isRecord, LAST_APPLIED_ANNOTATION, type KubeObject } from "../model/kube-object.js";
import { lastAppliedFields, managedFieldsOf, ownsLastApplied, type ManagedFieldsEntry } from "../model/managed-fields.js";

/** kubectl's client-side apply writes as this manager (kpt's and kpt-ts' too). */
export const CSA_FIELD_MANAGER = "kubectl-client-side-apply";
/** Owns the last-applied annotation once "kubectl" applies server-side (kubectl's choice of name). */
export const LAST_APPLIED_FIELD_MANAGER = "kubectl-last-applied";
/** The only manager whose server-side applies the API server mirrors into the annotation. */
const ANNOTATION_SYNCED_MANAGER = "kubectl";

type Fields = Record<string, unknown>;

/**
 * The client-side appliers of an object, as kubectl finds them: every manager with an `Update`
 * entry that owns the last-applied annotation.
 */
export function clientSideManagers(obj: KubeObject): Set<string> {
  const names = new Set<string>();
  for (const e of managedFieldsOf(obj)) if (e.operation === "Update" && typeof e.manager === "string" && ownsLastApplied(e)) names.add(e.manager);
  return names;
}

/** The union of two fieldsV1 trees (structured-merge-diff's Set.Union on the serialized form). */
export function unionFields(a: unknown, b: unknown): Fields {
  const out: Fields = isRecord(a) ? { ...a } : {};
  if (!isRecord(b)) return out;
  for (const [key, sub] of Object.entries(b)) out[key] = key in out ? unionFields(out[key], sub) : structuredClone(sub);
  return out;
}

const isSsaEntry = (name: string) => (e: ManagedFieldsEntry) => e.manager === name && e.operation === "Apply" && !e.subresource;
const isCsaEntry = (name: string) => (e: ManagedFieldsEntry) => e.manager === name && e.operation === "Update" && !e.subresource;

/**
 * csaupgrade's UpgradeManagedFields for one client-side manager: its fields of the same
 * apiVersion join the server-side manager's `Apply` entry (the newest of its `Update` entries
 * becomes that entry when there is none), and all its `Update` entries go.
 */
function upgradeOne(entries: ManagedFieldsEntry[], csaName: string, ssaName: string): ManagedFieldsEntry[] {
  const out = entries.map((e) => ({ ...e }));
  let target = out.findIndex(isSsaEntry(ssaName));
  if (target < 0) {
    // managedFields list the newest first.
    target = out.findIndex(isCsaEntry(csaName));
    if (target < 0) return out;
    out[target] = { ...out[target], manager: ssaName, operation: "Apply" };
  }
  const same = out.find((e) => isCsaEntry(csaName)(e) && e.apiVersion === out[target]!.apiVersion);
  if (same) out[target] = { ...out[target], fieldsV1: unionFields(out[target]!.fieldsV1, same.fieldsV1) };
  return out.filter((e) => !isCsaEntry(csaName)(e));
}

export function upgradeManagedFields(entries: readonly ManagedFieldsEntry[], csaNames: Iterable<string>, ssaName: string): ManagedFieldsEntry[] {
  let out = [...entries];
  for (const name of csaNames) out = upgradeOne(out, name, ssaName);
  return out;
}

/**
 * The managedFields the object should have before its next server-side apply by `fieldManager`,
 * or undefined when no migration is due. `now` stamps the entry added for the annotation.
 */
export function migratedManagedFields(live: KubeObject, fieldManager: string, now: Date): ManagedFieldsEntry[] | undefined {
  const csa = clientSideManagers(live);
  if (csa.size === 0) return undefined;
  const before = managedFieldsOf(live);
  const after = upgradeManagedFields(before, csa, fieldManager);
  // kubectl saves the annotation under its own manager first, unless an Apply entry already
  // owns it; checked before the migration, which hands the annotation to `fieldManager` too.
  const keepAnnotation =
    fieldManager === ANNOTATION_SYNCED_MANAGER &&
    live.metadata.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined &&
    !before.some((e) => e.operation === "Apply" && ownsLastApplied(e));
  if (keepAnnotation) {
    after.push({
      manager: LAST_APPLIED_FIELD_MANAGER,
      operation: "Apply",
      apiVersion: live.apiVersion,
      time: now.toISOString().replace(/\.\d+Z$/, "Z"),
      fieldsType: "FieldsV1",
      fieldsV1: lastAppliedFields(),
    });
  }
  return JSON.stringify(after) === JSON.stringify(before) ? undefined : after;
}

/**
 * The JSON patch kubectl sends: the new managedFields, guarded by the resourceVersion they were
 * computed from ("replace", not "test", so that a change meanwhile is a 409 Conflict).
 */
export function migrationPatch(managedFields: ManagedFieldsEntry[], resourceVersion: string | undefined): object[] {
  return [
    { op: "replace", path: "/metadata/managedFields", value: managedFields },
    { op: "replace", path: "/metadata/resourceVersion", value: resourceVersion ?? "" },
  ];
}

/** The object with its managedFields replaced: what a preview computes the apply against. */
export function withManagedFields(obj: KubeObject, managedFields: ManagedFieldsEntry[]): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, managedFields } };
}
