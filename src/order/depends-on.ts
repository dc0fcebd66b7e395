// The `config.kubernetes.io/depends-on` annotation: a comma-separated list of
// `<group>/namespaces/<namespace>/<kind>/<name>` (namespaced) or `<group>/<kind>/<name>`
// (cluster-scoped) references, the core group being empty. Errors use cli-utils' words.

import type { ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { DEPENDS_ON_ANNOTATION } from "../object/parse-package.js";

export { DEPENDS_ON_ANNOTATION };

type DependsOnResult = { ok: true; refs: ObjRef[] } | { ok: false; message: string };

/** No namespace defaulting: a reference means exactly what it says (as kpt). */
export function parseDependsOn(value: string): DependsOnResult {
  const refs: ObjRef[] = [];
  const parts = value.split(",");
  for (const [i, part] of parts.entries()) {
    const parsed = parseReference(part.trim());
    if (typeof parsed === "string") {
      return { ok: false, message: `invalid "${DEPENDS_ON_ANNOTATION}" annotation: failed to parse object reference (index: ${i}): ${parsed}` };
    }
    refs.push(parsed);
  }
  return { ok: true, refs };
}

/** The object's dependencies; none when it has no annotation. */
export function readDependsOn(object: KubeObject): DependsOnResult {
  const value = object.metadata.annotations?.[DEPENDS_ON_ANNOTATION];
  return value === undefined ? { ok: true, refs: [] } : parseDependsOn(value);
}

function parseReference(s: string): ObjRef | string {
  const fields = s.split("/");
  if (fields.length === 3) return { group: fields[0]!, kind: fields[1]!, namespace: "", name: fields[2]! };
  if (fields.length !== 5) return `expected 3 or 5 fields, found ${fields.length}: ${JSON.stringify(s)}`;
  if (fields[1] !== "namespaces") return `missing "namespaces" field: ${JSON.stringify(s)}`;
  return { group: fields[0]!, namespace: fields[2]!, kind: fields[3]!, name: fields[4]! };
}
