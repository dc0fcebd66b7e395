// What a diff leaves out: fields the server maintains (managedFields, resourceVersion,
// generation, uid, creationTimestamp, status) and the last-applied-configuration annotation,
// which repeats the whole object (and a Secret's values in plain text). Pure.

import { LAST_APPLIED_ANNOTATION } from "../model/kube-object.js";
import type { KubeObject } from "../model/kube-object.js";

const SERVER_METADATA = ["managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink"] as const;

/**
 * A view without the server's bookkeeping; the input is not changed. What it keeps is shared with
 * the input, not copied (a deep copy of a CRD, twice per object for a no-op, was most of a `live
 * diff` of CRD bundles): neither is changed afterwards.
 */
export function normalizeForDiff(obj: KubeObject): KubeObject {
  const { status: _status, ...rest } = obj;
  const metadata = { ...rest.metadata };
  for (const key of SERVER_METADATA) delete metadata[key];
  if (metadata.annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _lastApplied, ...annotations } = metadata.annotations;
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    else delete metadata.annotations;
  }
  // Lists come back without apiVersion/kind, which the client puts first; a dry run's answer has
  // them in the server's order. One order for both keeps such noise out of the diff.
  const { apiVersion, kind, metadata: _m, ...body } = rest;
  return { apiVersion, kind, metadata: orderKeys(metadata, METADATA_ORDER), ...body } as KubeObject;
}

const METADATA_ORDER = ["name", "generateName", "namespace", "labels", "annotations"];

function orderKeys<T extends Record<string, unknown>>(obj: T, first: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of first) if (k in obj) out[k] = obj[k];
  for (const [k, v] of Object.entries(obj)) if (!(k in out)) out[k] = v;
  return out as T;
}

