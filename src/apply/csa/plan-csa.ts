// The one decision the engine asks of client-side apply: create the object, leave it, or
// patch it, and with what. Built-in kinds (a schema is given) get kubectl's strategic merge
// patch; everything else gets its JSON merge patch. The preview is the live object with the
// patch applied locally, for dry-run output.

import type { KubeObject } from "../../object/types.js";
import { applyMergePatch, applyStrategicPatch } from "./apply-patch.js";
import { lastAppliedOf, withLastApplied } from "./last-applied.js";
import type { PatchSchema } from "./patch-schema.js";
import { deepEqualJson, type JsonValue } from "./json-value.js";
import { createThreeWayMergePatch, createThreeWayStrategicPatch, isEmptyPatch } from "./three-way-patch.js";

export type CsaPatchType = "strategic" | "merge";

export const PATCH_CONTENT_TYPE: Record<CsaPatchType, string> = {
  strategic: "application/strategic-merge-patch+json",
  merge: "application/merge-patch+json",
};

export type CsaPlan =
  | { op: "create"; body: KubeObject }
  | { op: "unchanged" }
  | { op: "patch"; patchType: CsaPatchType; patch: object; preview: KubeObject };

/** Throws PatchError when the objects cannot be patched (e.g. a merge-list item without its key). */
export function planClientSideApply(desired: KubeObject, live: KubeObject | undefined, schema: PatchSchema | undefined): CsaPlan {
  const modified = withLastApplied(desired);
  if (!live) return { op: "create", body: modified };
  const original = lastAppliedOf(live);
  if (schema) {
    const patch = createThreeWayStrategicPatch(original, modified, live, schema);
    if (isEmptyPatch(patch)) return { op: "unchanged" };
    const preview = applyStrategicPatch(live, patch, schema) as KubeObject;
    // Some patches restate what is there (a `$retainKeys` for server-filled fields, an element
    // order with extra live items): the object would not change, so it is not written.
    if (deepEqualJson(preview as unknown as JsonValue, live as unknown as JsonValue)) return { op: "unchanged" };
    return { op: "patch", patchType: "strategic", patch, preview };
  }
  const patch = createThreeWayMergePatch(original, modified, live);
  if (isEmptyPatch(patch)) return { op: "unchanged" };
  const preview = applyMergePatch(live, patch) as KubeObject;
  if (deepEqualJson(preview as unknown as JsonValue, live as unknown as JsonValue)) return { op: "unchanged" };
  return { op: "patch", patchType: "merge", patch, preview };
}
