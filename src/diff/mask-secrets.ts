// Secret values never reach the output: every value under a Secret's `data` and `stringData`
// is replaced by a marker that only says whether it changed. Pure.

import type { KubeObject } from "../model/kube-object.js";

export const MASKED = "<masked>";
export const MASKED_CHANGED = "<masked (changed)>";

const VALUE_FIELDS = ["data", "stringData"] as const;

export function isSecret(obj: KubeObject | undefined): boolean {
  return obj?.kind === "Secret" && obj.apiVersion === "v1";
}

/** A Secret's values as bytes by key (`data` is base64, `stringData` plain text, and wins). */
function secretBytes(obj: KubeObject): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const data = obj.data as Record<string, unknown> | undefined;
  const stringData = obj.stringData as Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(data ?? {})) out.set(k, Buffer.from(typeof v === "string" ? v : "", "base64"));
  for (const [k, v] of Object.entries(stringData ?? {})) out.set(k, Buffer.from(typeof v === "string" ? v : String(v), "utf8"));
  return out;
}

function maskFields(obj: KubeObject, marker: (key: string) => string): KubeObject {
  const out: KubeObject = { ...obj };
  for (const field of VALUE_FIELDS) {
    const values = obj[field];
    if (values && typeof values === "object" && !Array.isArray(values)) {
      out[field] = Object.fromEntries(Object.keys(values).map((k) => [k, marker(k)]));
    }
  }
  return out;
}

/**
 * Masks both sides of a change. A key whose value is the same on both sides reads `<masked>`
 * on both; one whose value changes reads `<masked>` before and `<masked (changed)>` after, so the
 * diff shows that it changed and nothing of what it was or will be. Objects that are not Secrets
 * are returned as they are.
 */
export function maskSecretPair(before: KubeObject | undefined, after: KubeObject | undefined): { before?: KubeObject; after?: KubeObject } {
  if (!isSecret(before) && !isSecret(after)) return { before, after };
  const old = before && isSecret(before) ? secretBytes(before) : new Map<string, Buffer>();
  const now = after && isSecret(after) ? secretBytes(after) : new Map<string, Buffer>();
  return {
    before: before && maskFields(before, () => MASKED),
    after:
      after &&
      maskFields(after, (key) => {
        const was = old.get(key);
        const is = now.get(key);
        return was === undefined || (is !== undefined && was.equals(is)) ? MASKED : MASKED_CHANGED;
      }),
  };
}
