// What is sent to the API server is JSON; YAML can say more. kubectl reads YAML into JSON
// (sigs.k8s.io/yaml) and refuses what JSON cannot hold; kpt-ts does the same, with the field's
// line, instead of sending `null` for `.inf`, `{}` for a `!!set` or a Buffer's inner fields for
// `!!binary`:
//
// - `!!binary` is bytes. Where Kubernetes takes bytes (a Secret's `data`, a ConfigMap's
//   `binaryData`: base64 in JSON) they are sent as base64, which is what the author meant
//   (kubectl sends the decoded text there, and the server refuses it as "illegal base64 data").
//   Anywhere else they are text, as kubectl sends them, and must be UTF-8 text (kubectl would
//   send U+FFFD for what is not).
// - `.inf`, `-.inf`, `.nan`: refused (kubectl: "json: unsupported value: +Inf").
// - `!!set`, `!!omap`, `!!pairs` and other non-JSON values: refused (JSON has no set; kubectl turns
//   a set into a map of nulls, which is never what was meant).
// Pure.

import { isUtf8 } from "node:buffer";
import type { FieldPath } from "./yaml-documents.js";

interface ValueProblem {
  path: FieldPath;
  message: string;
}

/** Where the API takes bytes (base64 in JSON): a v1 Secret's data, a v1 ConfigMap's binaryData. */
function bytesField(apiVersion: unknown, kind: unknown, path: FieldPath): boolean {
  if (apiVersion !== "v1" || path.length !== 2) return false;
  return (kind === "Secret" && path[0] === "data") || (kind === "ConfigMap" && path[0] === "binaryData");
}

/**
 * `value` as JSON can carry it (the same value when it already is plain JSON: no copy), and
 * what cannot be carried, by path.
 */
export function toJsonValues(value: Record<string, unknown>): { value: Record<string, unknown>; problems: ValueProblem[] } {
  const problems: ValueProblem[] = [];
  const out = convert(value, [], value, problems) as Record<string, unknown>;
  return { value: out, problems };
}

function convert(v: unknown, path: (string | number)[], root: Record<string, unknown>, problems: ValueProblem[]): unknown {
  if (typeof v === "number") {
    if (Number.isFinite(v)) return v;
    problems.push({ path: [...path], message: `${Number.isNaN(v) ? ".nan" : v > 0 ? ".inf" : "-.inf"} has no JSON form, and the API server takes JSON (kubectl refuses it too): quote it to send the text` });
    return v;
  }
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Uint8Array) {
    const bytes = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    if (bytesField(root.apiVersion, root.kind, path)) return bytes.toString("base64");
    if (isUtf8(bytes)) return bytes.toString("utf8");
    problems.push({ path: [...path], message: "!!binary data that is not UTF-8 text can only go where Kubernetes takes bytes (a Secret's data, a ConfigMap's binaryData); here it would be sent as text" });
    return v;
  }
  if (Array.isArray(v)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (item === null || (typeof item !== "object" && typeof item !== "number")) continue;
      path.push(i);
      const x = convert(item, path, root, problems);
      path.pop();
      if (x !== v[i]) (copy ??= [...v])[i] = x;
    }
    return copy ?? v;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    if (v instanceof Date) return v.toISOString();
    const what = v instanceof Set ? "!!set" : v instanceof Map ? "!!omap or !!pairs" : "this value";
    problems.push({ path: [...path], message: `${what} has no JSON form, and the API server takes JSON: write a list, or a map` });
    return v;
  }
  let copy: Record<string, unknown> | undefined;
  const obj = v as Record<string, unknown>;
  // for...in, not Object.entries: this runs over every field of every object of a package.
  for (const k in obj) {
    const x = obj[k];
    if (x === null || (typeof x !== "object" && typeof x !== "number")) continue;
    path.push(k);
    const y = convert(x, path, root, problems);
    path.pop();
    if (y !== x) (copy ??= { ...obj })[k] = y;
  }
  return copy ?? v;
}

/** Go's base64.StdEncoding, as the API server decodes bytes (line breaks ignored). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(s: string): boolean {
  return BASE64.test(s.replace(/[\r\n]/g, ""));
}
