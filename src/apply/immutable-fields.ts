// The server refused an update because it changes what may not change once the object exists: a
// Job's `spec.template` or `spec.selector`, a Deployment's `spec.selector`, a Service's
// `spec.clusterIP`, a StatefulSet's spec beyond the fields it lets change (its
// volumeClaimTemplates...). The 422's causes name the fields; kapp, Flux and Argo CD replace such
// an object when asked to, and kpt-ts does with `kpt-ts.dev/update-strategy: replace-on-immutable`.

import { ApiError } from "../cluster/api-error.js";
import { UPDATE_STRATEGY_ANNOTATION } from "../model/lifecycle-keys.js";

/** The sentences by which the API server says a field cannot change (field.Forbidden is the StatefulSet's). */
const IMMUTABLE = /field is immutable|updates to \S+ spec for fields other than .* are forbidden/i;

/**
 * `spec.template: field is immutable` (the fields the server named, without the values it
 * dumps), or undefined when the error is not such a refusal.
 */
export function immutableRefusal(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 422) return undefined;
  const fields = err.causes.filter((c) => IMMUTABLE.test(c.message ?? "")).map((c) => c.field || "spec");
  if (fields.length) return `${[...new Set(fields)].join(", ")}: field is immutable`;
  return IMMUTABLE.test(err.message) ? "a field that is immutable changed" : undefined;
}

/** What to do about it, for an object without the annotation. */
export function replaceAdvice(refusal: string): string {
  return `${refusal}, so the object cannot be updated in place: delete it and apply again, or annotate it ${UPDATE_STRATEGY_ANNOTATION}: replace-on-immutable to have kpt-ts delete and create it again`;
}
