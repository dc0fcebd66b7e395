// Server-side apply computed without the server, for previews an identity may not dry-run:
// kubectl's three-way merge with the fields our field manager owns (from managedFields) in the
// place of the last-applied annotation. Fields the manager owned and the package dropped are
// removed, fields others own stay, the package's values win; what the server alone knows
// (other managers' claims on the same field, conflicts, defaulting, webhooks) is not seen.

import type { KubeObject } from "../model/kube-object.js";
import { applyMergePatch, applyStrategicPatch } from "./csa/apply-patch.js";
import type { PatchSchema } from "./csa/patch-schema.js";
import { createThreeWayMergePatch, createThreeWayStrategicPatch, isEmptyPatch } from "./csa/three-way-patch.js";
import { findItem } from "./ssa-noop.js";

type Json = unknown;

function isObj(v: Json): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The part of `value` a fieldsV1 tree names (`f:` fields, `k:`/`v:`/`i:` list items). */
export function projectFields(fields: Json, value: Json): Json {
  const entries = isObj(fields) ? Object.entries(fields).filter(([k]) => k !== ".") : [];
  if (entries.length === 0) return value;
  if (isObj(value)) {
    // The value's own fields only, kept as entries: a fieldsV1 key the server sent as
    // `f:__proto__` or `f:constructor` reaches no inherited member.
    const out: [string, Json][] = [];
    for (const [k, sub] of entries) if (k.startsWith("f:") && Object.hasOwn(value, k.slice(2))) out.push([k.slice(2), projectFields(sub, value[k.slice(2)])]);
    return Object.fromEntries(out);
  }
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (const [k, sub] of entries) {
      const item = /^[kvi]:/.test(k) ? findItem(value, k) : undefined;
      if (item !== undefined) out.push(projectFields(sub, item));
    }
    return out;
  }
  return value;
}

/** What `fieldManager` last applied to `live`, as far as managedFields tell. Empty when it never did. */
export function appliedByManager(live: KubeObject, fieldManager: string): Record<string, Json> {
  const managed = Array.isArray(live.metadata.managedFields) ? (live.metadata.managedFields as Record<string, Json>[]) : [];
  const ours = managed.find((m) => m.manager === fieldManager && m.operation === "Apply");
  const projected = ours ? projectFields(ours.fieldsV1, live) : {};
  return isObj(projected) ? projected : {};
}

/** The object a server-side apply of `desired` would leave, computed locally. */
export function previewServerSideApply(desired: KubeObject, live: KubeObject | undefined, fieldManager: string, schema: PatchSchema | undefined): KubeObject {
  if (!live) return desired;
  const original = appliedByManager(live, fieldManager);
  const patch = schema ? createThreeWayStrategicPatch(original, desired, live, schema) : createThreeWayMergePatch(original, desired, live);
  if (isEmptyPatch(patch)) return live;
  return (schema ? applyStrategicPatch(live, patch, schema) : applyMergePatch(live, patch)) as KubeObject;
}
