// The one decision the engine asks of client-side apply: create the object, leave it, or
// patch it, and with what. Built-in kinds (a schema is given) get kubectl's strategic merge
// patch; everything else gets its JSON merge patch. The preview is the live object with the
// patch applied locally, for dry-run output.

import { LAST_APPLIED_ANNOTATION, type KubeObject } from "../../model/kube-object.js";
import type { CsaPlan } from "../../model/plan.js";
import { applyMergePatch, applyStrategicPatch } from "./apply-patch.js";
import { appliedFrom, lastAppliedOf, lastAppliedValue, withLastApplied } from "./last-applied.js";
import type { PatchSchema } from "./patch-schema.js";
import { appliedByManager } from "../ssa-local.js";
import { isSubset } from "../ssa-noop.js";
import { withoutFields, type FieldPath } from "../left-alone.js";
import { storedForm } from "./stored-form.js";
import { containsJson, deepEqualJson, type JsonValue } from "./json-value.js";
import { createThreeWayMergePatch, createThreeWayStrategicPatch, isEmptyPatch, mergeAdditions, strategicAdditions } from "./three-way-patch.js";

/**
 * The live object already is what this apply would make it, decided without a schema: it was
 * last applied from exactly this configuration (so nothing is to be removed) and carries every
 * field of it with the same value, lists included (so nothing is to be added or changed). Both
 * patches are then empty whatever the merge keys, so a no-op re-apply needs no OpenAPI document.
 * False only means "compute the patch".
 */
export function isCsaNoop(desired: KubeObject, live: KubeObject): boolean {
  // The cheap tests first: most objects that will need a patch fail them without encoding anything
  // (an object applied server-side has no annotation to compare with).
  return live.metadata.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined && containsJson(live as unknown as JsonValue, desired as unknown as JsonValue) && appliedFrom(desired, live);
}

/**
 * The live object was last applied from exactly this configuration, which says nothing of its
 * own annotation and holds only what JSON carries (an undefined field would be dropped from
 * the configuration, and then differ from it).
 */
function lastAppliedUnchanged(desired: KubeObject, live: KubeObject): boolean {
  return desired.metadata.annotations?.[LAST_APPLIED_ANNOTATION] === undefined && appliedFrom(desired, live) && !hasUndefined(desired);
}

function hasUndefined(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.some(hasUndefined);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasUndefined);
  return false;
}

/**
 * What was applied last, for the three-way patch: the last-applied annotation, as kubectl reads
 * it; for an object only ever applied server-side (no annotation), the fields `ssaManager`'s
 * `Apply` entry owns. kubectl (and kpt) then remove nothing the package dropped and warn; the
 * field manager's own record says exactly what the package set, so kpt-ts removes it.
 */
function lastAppliedFor(live: KubeObject, ssaManager?: string): object | undefined {
  const annotated = lastAppliedOf(live);
  if (annotated || !ssaManager) return annotated;
  const applied = appliedByManager(live, ssaManager);
  return Object.keys(applied).length ? applied : undefined;
}

/**
 * Throws PatchError when the objects cannot be patched (e.g. a merge-list item without its key).
 * `ssaManager`: the server-side field manager, whose fields stand for the annotation when there
 * is none (see lastAppliedFor). `leftAlone`: fields the package leaves to others once the object
 * exists (left-alone.ts): left out of the configuration and of what was applied last, so the
 * patch neither sets nor removes them; a create sends them, and records the configuration
 * without them, as every later apply will compute it.
 */
export function planClientSideApply(desired: KubeObject, live: KubeObject | undefined, schema: PatchSchema | undefined, ssaManager?: string, leftAlone: readonly FieldPath[] = []): CsaPlan {
  if (!live) {
    const body = withLastApplied(desired);
    if (leftAlone.length) body.metadata.annotations![LAST_APPLIED_ANNOTATION] = lastAppliedValue(withoutFields(desired, leftAlone));
    return { op: "create", body };
  }
  const config = leftAlone.length ? withoutFields(desired, leftAlone) : desired;
  if (lastAppliedUnchanged(config, live)) {
    // Nothing to delete (see strategicAdditions): unchanged when nothing is to be added or
    // changed either. Otherwise the full patch below decides.
    const additions = schema ? strategicAdditions(live, config, schema) : mergeAdditions(live, config);
    if (isEmptyPatch(additions)) return { op: "unchanged" };
  }
  const modified = withLastApplied(config);
  const applied = lastAppliedFor(live, ssaManager);
  const original = applied && leftAlone.length ? withoutFields(applied, leftAlone) : applied;
  const patchType = schema ? "strategic" : "merge";
  const patch = schema ? createThreeWayStrategicPatch(original, modified, live, schema) : createThreeWayMergePatch(original, modified, live);
  if (isEmptyPatch(patch)) return { op: "unchanged" };
  const preview = (schema ? applyStrategicPatch(live, patch, schema) : applyMergePatch(live, patch)) as KubeObject;
  // Some patches restate what is there (an element order with extra live items, a Secret's
  // stringData the server folds into the same data): the stored object would not change, so it
  // is not written.
  const stored = storedForm(preview, live) as unknown as JsonValue;
  if (deepEqualJson(stored, live as unknown as JsonValue)) return { op: "unchanged" };
  // Others only take away what the package does not set (a `$retainKeys` that drops a
  // server-filled key, a list replaced by the package's, without the defaults the server filled
  // in), or add only zero values the server omits (a CRD's `preserveUnknownFields: false`): the
  // server may undo them straight away, and only it knows its defaults and its types.
  const serverMaySettle = isSubset(stored, live, { zeroValuesMayBeAbsent: true }) ? { serverMaySettle: true as const } : {};
  return { op: "patch", patchType, patch, preview, ...serverMaySettle };
}
