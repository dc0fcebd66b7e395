// What the API server does with a patch, computed locally: for client-side dry-run (show
// what an object would become without writing it) and for round-trip tests.

import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from "./json-value.js";
import type { PatchSchema } from "./patch-schema.js";
import { mergeStrategic } from "./strategic-merge.js";

/** Applies an `application/strategic-merge-patch+json` patch, directives included. Inputs are not modified. */
export function applyStrategicPatch(current: object, patch: object, schema: PatchSchema): object {
  return mergeStrategic(cloneJson(current as JsonObject), cloneJson(patch as JsonObject), schema, "apply");
}

/**
 * Applies an `application/merge-patch+json` patch (RFC 7386): objects merge, null deletes,
 * anything else replaces. Like the json-patch library the API server uses, nulls inside a
 * value that lands where there was no object are dropped too. Inputs are not modified.
 */
export function applyMergePatch(current: object, patch: object): object {
  return mergeDocuments(cloneJson(current as JsonObject), cloneJson(patch as JsonObject));
}

function mergeDocuments(doc: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete doc[key];
      continue;
    }
    const current = Object.prototype.hasOwnProperty.call(doc, key) ? doc[key] : undefined;
    if (isJsonObject(current)) doc[key] = isJsonObject(value) ? mergeDocuments(current, value) : value;
    else doc[key] = pruneNulls(value);
  }
  return doc;
}

function pruneNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(pruneNulls);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = pruneNulls(v);
  return out;
}
