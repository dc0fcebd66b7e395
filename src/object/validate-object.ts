// Checks one parsed document is a Kubernetes object the API server would accept as far as
// identity and metadata go: the shape with zod, then the syntax rules per field. Every problem
// carries the path of the offending field so the caller can point at its line.

// zod/mini: the same checks, and its tree-shakable API keeps zod's locales and unused schemas
// out of the bundle (the full `zod` export cost every command start-up time).
import * as z from "zod/mini";
import { groupOf, isCrd } from "../model/ref.js";
import { isRecord, type KubeObject } from "../model/kube-object.js";
import type { FieldPath } from "./yaml-documents.js";
import { isBase64, toJsonValues } from "./json-values.js";
import { checkApiVersion, checkDnsLabel, checkLabelValue, checkObjectName, checkQualifiedName } from "./names.js";

interface FieldProblem {
  path: FieldPath;
  message: string;
}

interface ObjectValidation {
  /** Set when the shape is right (even if some values break the syntax rules). */
  object?: KubeObject;
  problems: FieldProblem[];
}

const stringMap = z.record(z.string(), z.string());

const objectSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.looseObject({
    name: z.optional(z.string()),
    generateName: z.optional(z.string()),
    namespace: z.optional(z.string()),
    // `labels:` with nothing after it is null; the API server treats it as empty.
    labels: z.nullish(stringMap),
    annotations: z.nullish(stringMap),
  }),
});

/** The API server's limit on the total size of an object's annotations. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

export function validateObject(raw: unknown, opts: { plainJson?: boolean; valid?: boolean } = {}): ObjectValidation {
  // `valid`: JSON values this build already found nothing wrong with (the parse cache says so).
  if (opts.valid && isRecord(raw)) return { object: withoutNullMaps(raw as unknown as KubeObject), problems: [] };
  if (!isRecord(raw)) {
    return { problems: [{ path: [], message: `expected a Kubernetes object (a mapping with apiVersion, kind and metadata), found ${typeName(raw)}` }] };
  }
  // What JSON cannot carry is refused; !!binary where Kubernetes takes bytes becomes base64.
  // `plainJson`: read back from JSON (the parse cache), so there is nothing to look for.
  const { value, problems } = opts.plainJson ? { value: raw, problems: [] as FieldProblem[] } : toJsonValues(raw);
  const parsed = objectSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(describeShapeIssue(value, issue.path as (string | number)[]));
  }
  // A value already refused (a !!set, !!binary that is not text) is not refused twice.
  const refused = (p: FieldProblem) => problems.some((q) => q.path.length > 0 && q.path.every((k, i) => p.path[i] === k));
  problems.push(...checkBytes(value).filter((p) => !refused(p)));
  for (const p of checkSyntax(value)) {
    // A missing or null name is reported by both passes; say it once.
    if (!problems.some((q) => q.message === p.message)) problems.push(p);
  }
  return parsed.success ? { object: withoutNullMaps(value as unknown as KubeObject), problems } : { problems };
}

/** `Deployment/wordpress`, as far as the document says. */
export function describeObject(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const kind = typeof value.kind === "string" && value.kind ? value.kind : undefined;
  const meta = isRecord(value.metadata) ? value.metadata : {};
  const name = typeof meta.name === "string" && meta.name ? meta.name : undefined;
  if (kind && name) return `${kind}/${name}`;
  return kind ?? (name ? `<no kind>/${name}` : undefined);
}

function describeShapeIssue(value: Record<string, unknown>, path: (string | number)[]): FieldProblem {
  const actual = valueAt(value, path);
  const [top, field, key] = path;
  const quoteHint = isScalar(actual) ? " (put it in quotes)" : "";
  if (top === "metadata" && (field === "labels" || field === "annotations")) {
    const noun = field === "labels" ? "label" : "annotation";
    if (key !== undefined) return { path, message: `${noun} "${key}" must be a string, got ${typeName(actual)}${quoteHint}` };
    return { path, message: `metadata.${field} must be a map of strings, got ${typeName(actual)}` };
  }
  const dotted = path.join(".");
  if (actual === undefined || actual === null) {
    if (top === "metadata" && (field === undefined || field === "name")) return { path: ["metadata"], message: "metadata.name: Required value: name is required" };
    return { path, message: `${dotted}: Required value: ${String(path[path.length - 1])} is required` };
  }
  if (top === "metadata" && field === undefined) return { path, message: `metadata must be a map, got ${typeName(actual)}` };
  return { path, message: `${dotted} must be a string, got ${typeName(actual)}${quoteHint}` };
}

function checkSyntax(value: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (path: FieldPath, message: string | undefined, what: string): void => {
    if (message) problems.push({ path, message: `${what} is not valid: ${message}` });
  };
  const { apiVersion, kind } = value;
  if (apiVersion === "") problems.push({ path: ["apiVersion"], message: "apiVersion: Required value: apiVersion is required" });
  else if (typeof apiVersion === "string") add(["apiVersion"], checkApiVersion(apiVersion), `apiVersion "${apiVersion}"`);
  if (kind === "") problems.push({ path: ["kind"], message: "kind: Required value: kind is required" });

  const meta = isRecord(value.metadata) ? value.metadata : undefined;
  if (!meta) return problems;
  const { name, generateName, namespace } = meta;
  if (name === undefined || name === null || name === "") {
    if (typeof generateName === "string" && generateName !== "") {
      problems.push({ path: ["metadata", "generateName"], message: "metadata.generateName is not supported by apply: set metadata.name instead" });
    } else {
      problems.push({ path: name === undefined ? ["metadata"] : ["metadata", "name"], message: "metadata.name: Required value: name is required" });
    }
  } else if (typeof name === "string" && typeof kind === "string" && typeof apiVersion === "string") {
    add(["metadata", "name"], checkObjectName(groupOf(apiVersion), kind, name), `metadata.name "${name}"`);
    if (isCrd(groupOf(apiVersion), kind)) {
      add(["metadata", "name"], checkCrdName(value, name), `metadata.name "${name}"`);
    }
  }
  if (typeof namespace === "string" && namespace !== "") add(["metadata", "namespace"], checkDnsLabel(namespace), `metadata.namespace "${namespace}"`);

  if (isRecord(meta.labels)) {
    for (const [k, v] of Object.entries(meta.labels)) {
      add(["metadata", "labels", k], checkQualifiedName(k), `label key "${k}"`);
      if (typeof v === "string") add(["metadata", "labels", k], checkLabelValue(v), `label "${k}" value "${v}"`);
    }
  }
  if (isRecord(meta.annotations)) {
    let size = 0;
    for (const [k, v] of Object.entries(meta.annotations)) {
      add(["metadata", "annotations", k], checkQualifiedName(k), `annotation key "${k}"`);
      size += Buffer.byteLength(k) + (typeof v === "string" ? Buffer.byteLength(v) : 0);
    }
    if (size > MAX_ANNOTATIONS_BYTES) {
      problems.push({ path: ["metadata", "annotations"], message: `metadata.annotations are too long: ${size} bytes, must have at most ${MAX_ANNOTATIONS_BYTES} bytes` });
    }
  }
  return problems;
}

/** The maps of strings a ConfigMap and a Secret hold, and which of them are bytes (base64 in JSON). */
const STRING_MAPS: Record<string, { field: string; bytes: boolean }[]> = {
  ConfigMap: [
    { field: "data", bytes: false },
    { field: "binaryData", bytes: true },
  ],
  Secret: [
    { field: "data", bytes: true },
    { field: "stringData", bytes: false },
  ],
};

/**
 * A ConfigMap's and a Secret's data are maps of strings: `enabled: true` or `port: 80` is
 * refused by the server (after the inventory was written), so it is refused here, with its
 * line. A Secret's data and a ConfigMap's binaryData are bytes, base64 in JSON: anything else is
 * refused by the server ("illegal base64 data"). The value is never quoted: it may be a secret.
 */
function checkBytes(value: Record<string, unknown>): FieldProblem[] {
  if (value.apiVersion !== "v1" || typeof value.kind !== "string") return [];
  const problems: FieldProblem[] = [];
  for (const { field, bytes } of STRING_MAPS[value.kind] ?? []) {
    const map = value[field];
    if (map === undefined || map === null) continue;
    if (!isRecord(map)) {
      problems.push({ path: [field], message: `${field} must be a map of strings, got ${typeName(map)}` });
      continue;
    }
    for (const [k, v] of Object.entries(map)) {
      // null is read as an empty string by the server, as kubectl sends it.
      if (v !== null && typeof v !== "string") {
        const hint = isScalar(v) ? " (put it in quotes)" : "";
        problems.push({ path: [field, k], message: `${field} "${k}" must be a string, got ${typeName(v)}${hint}: a ${value.kind}'s ${field} holds only strings` });
      } else if (bytes && typeof v === "string" && !isBase64(v)) {
        const plain = value.kind === "Secret" ? "put plain text under stringData instead" : "put text under data instead";
        problems.push({ path: [field, k], message: `${field} "${k}" is not base64: a ${value.kind}'s ${field} values are base64-encoded bytes (${plain}, or encode it with base64)` });
      }
    }
  }
  return problems;
}

/** The API server insists a CRD is named `<plural>.<group>`. */
function checkCrdName(value: Record<string, unknown>, name: string): string | undefined {
  const spec = isRecord(value.spec) ? value.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  if (typeof spec.group !== "string" || typeof names.plural !== "string") return undefined;
  const expected = `${names.plural}.${spec.group}`;
  return name === expected ? undefined : `must be spec.names.plural+"."+spec.group ("${expected}")`;
}

function withoutNullMaps(obj: KubeObject): KubeObject {
  const { labels, annotations } = obj.metadata;
  if (labels !== null && annotations !== null) return obj;
  const metadata = { ...obj.metadata };
  if (metadata.labels === null) delete metadata.labels;
  if (metadata.annotations === null) delete metadata.annotations;
  return { ...obj, metadata };
}

function valueAt(value: unknown, path: FieldPath): unknown {
  let v: unknown = value;
  for (const k of path) v = isRecord(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[k] : undefined;
  return v;
}

function isScalar(v: unknown): boolean {
  return typeof v === "number" || typeof v === "boolean";
}

/** How a value is named in messages: YAML words, not JavaScript's. */
export function typeName(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  return typeof v;
}
