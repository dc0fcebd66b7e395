// A preview computed without the server's dry run, for identities that may only read (or on
// request, --local, and for a client-side dry run): client-side apply's planned write (the
// three-way merge of the package object, the last-applied annotation and the live object,
// exactly the patch apply would send) applied locally, or for --server-side the local
// equivalent in ssa-local.ts. Pure.

import { storedForm } from "./csa/stored-form.js";
import type { PatchSchema } from "./csa/patch-schema.js";
import { previewServerSideApply } from "./ssa-local.js";
import type { KubeObject } from "../model/kube-object.js";
import type { CsaPlan } from "../model/plan.js";

/** What client-side apply's planned write leaves, as the server stores it; the live object itself when it writes nothing. */
export function previewPlannedWrite(csa: CsaPlan, live: KubeObject | undefined): KubeObject {
  if (csa.op === "create") return storedForm(csa.body, live);
  if (csa.op === "patch") return storedForm(csa.preview, live);
  return live!;
}

/**
 * What server-side apply would leave, approximated from the fields the field manager owns;
 * `schema`: the strategic-merge schema of a built-in kind (undefined: lists replaced whole).
 * Throws PatchError.
 */
export function previewServerSide(desired: KubeObject, live: KubeObject | undefined, o: { fieldManager: string; schema: PatchSchema | undefined }): KubeObject {
  return storedForm(previewServerSideApply(desired, live, o.fieldManager, o.schema), live);
}

/** The one line that says a preview was computed locally, why, and what it cannot see. */
export function localPreviewNote(reason: string, serverSide: boolean): string {
  const how = serverSide
    ? "server-side apply approximated by a three-way merge of the package, the fields its field manager owns and the live object"
    : "client-side apply's three-way merge of the package, the last-applied annotation and the live object";
  return `Preview computed locally (${reason}): ${how}; it cannot show what admission webhooks or the server's defaulting would change.`;
}
