// What the API server stores for what it is sent: the one write-only field a client-side apply
// meets, a Secret's stringData. Comparing stored forms is how a patch that would change nothing
// (a Secret re-applied with stringData) is told from one that would.

import type { KubeObject } from "../../model/kube-object.js";
import { deepEqualJson, type JsonValue } from "./json-value.js";

/**
 * What the API server does to every write, and so to the preview: a Secret's `stringData` is
 * write-only, merged into `data` (base64) and never stored. Returns `live` itself when that makes
 * the object what it already was.
 */
export function storedForm(obj: KubeObject, live: KubeObject | undefined): KubeObject {
  if (obj.apiVersion !== "v1" || obj.kind !== "Secret" || !obj.stringData || typeof obj.stringData !== "object") return obj;
  const { stringData, ...rest } = obj;
  const data: Record<string, unknown> = { ...((rest.data as Record<string, unknown> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(stringData as Record<string, unknown>)) data[k] = Buffer.from(String(v), "utf8").toString("base64");
  const stored = { ...rest, data };
  return live && deepEqualJson(stored as unknown as JsonValue, live as unknown as JsonValue) ? live : stored;
}
