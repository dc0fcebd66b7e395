// A preview computed without the server's dry run, for identities that may only read (or on
// request, --local): client-side apply's own planner (the three-way merge of the package object,
// the last-applied annotation and the live object, exactly the patch apply would send, applied
// locally), or for --server-side the local equivalent in ssa-local.ts. Pure.

import { planClientSideApply } from "./csa/plan-csa.js";
import { storedForm } from "./csa/stored-form.js";
import type { PatchSchema } from "./csa/patch-schema.js";
import { previewServerSideApply } from "./ssa-local.js";
import type { KubeObject } from "../object/types.js";

export interface LocalPreviewOptions {
  serverSide: boolean;
  fieldManager: string;
  /** The strategic-merge schema of a built-in kind; undefined means JSON merge patch. */
  schema: PatchSchema | undefined;
}

/** What the object would be after apply; the live object itself when apply would not change it. Throws PatchError. */
export function previewLocally(desired: KubeObject, live: KubeObject | undefined, o: LocalPreviewOptions): KubeObject {
  if (o.serverSide) return storedForm(previewServerSideApply(desired, live, o.fieldManager, o.schema), live);
  const plan = planClientSideApply(desired, live, o.schema, o.fieldManager);
  if (plan.op === "create") return storedForm(plan.body, live);
  if (plan.op === "patch") return storedForm(plan.preview, live);
  return live!;
}

/** The one line that says a preview was computed locally, why, and what it cannot see. */
export function localPreviewNote(reason: string, serverSide: boolean): string {
  const how = serverSide
    ? "server-side apply approximated by a three-way merge of the package, the fields its field manager owns and the live object"
    : "client-side apply's three-way merge of the package, the last-applied annotation and the live object";
  return `Preview computed locally (${reason}): ${how}; it cannot show what admission webhooks or the server's defaulting would change.`;
}
