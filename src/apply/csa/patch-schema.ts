// What a strategic merge patch needs to know about a kind: for each field, whether it is an
// object, a map or a list, and how it is patched (x-kubernetes-patch-strategy and
// -merge-key). Read from the OpenAPI v3 document the API server serves for a group version
// (/openapi/v3/apis/<group>/<version>). Nodes resolve their `$ref`s only when walked, so a
// large document costs one index of its kinds and the few schemas a patch touches.

import { isRecord } from "../../model/kube-object.js";

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** How a field's value is patched. */
export interface PatchMeta {
  /**
   * `merge`: list items are merged (by `mergeKey` for objects, as a set for scalars);
   * `replace`: the value is replaced whole; undefined: the default (objects merge key by
   * key, lists are replaced whole).
   */
  strategy: "merge" | "replace" | undefined;
  /** Keys missing from the patched value are cleared (`retainKeys` in the strategy). */
  retainKeys: boolean;
  mergeKey: string | undefined;
}

const NO_PATCH_META: PatchMeta = Object.freeze({ strategy: undefined, retainKeys: false, mergeKey: undefined });

type SchemaType = "object" | "map" | "array" | "scalar" | "unknown";

export interface PatchSchema {
  /** The component name (`io.k8s.api.core.v1.PodSpec`), or a path for inline schemas. */
  readonly name: string;
  readonly type: SchemaType;
  /** A declared property of an object, or any entry of a map; undefined when unknown. */
  field(key: string): PatchField | undefined;
  /** The schema of a list's items. */
  items(): PatchSchema | undefined;
}

export interface PatchField {
  meta: PatchMeta;
  /** x-kubernetes-list-type: used by server-side apply; strategic merge patch ignores it. */
  listType: "atomic" | "set" | "map" | undefined;
  listMapKeys: string[] | undefined;
  schema: PatchSchema;
}

type Raw = Record<string, unknown>;

interface DocContext {
  schemas: Raw;
  named: Map<string, PatchSchema>;
  byGvk: Map<string, string> | undefined;
}

const contexts = new WeakMap<object, DocContext>();

/**
 * The patch schema of a kind, or undefined when the document does not describe it or the
 * kind is not a built-in one. Only types of k8s.io/api (schemas named `io.k8s.api.*`) get
 * one: those are the kinds kubectl patches strategically; custom resources (which the API
 * server refuses strategic patches for), CRDs and APIServices get JSON merge patches.
 */
export function patchSchemaFor(doc: unknown, gvk: Gvk): PatchSchema | undefined {
  const ctx = contextOf(doc);
  if (!ctx) return undefined;
  ctx.byGvk ??= indexKinds(ctx.schemas);
  const name = ctx.byGvk.get(gvkKey(gvk));
  if (name === undefined || !name.startsWith("io.k8s.api.")) return undefined;
  return namedSchema(ctx, name);
}

/** The metadata and schema of field `key` of an object; unknown fields get the defaults. */
export function lookupField(schema: PatchSchema | undefined, key: string): { meta: PatchMeta; schema: PatchSchema | undefined } {
  const field = schema?.field(key);
  return field ? { meta: field.meta, schema: field.schema } : { meta: NO_PATCH_META, schema: undefined };
}

/** The metadata of list field `key` and the schema of its items. */
export function lookupListField(schema: PatchSchema | undefined, key: string): { meta: PatchMeta; items: PatchSchema | undefined } {
  const field = schema?.field(key);
  return field ? { meta: field.meta, items: field.schema.items() } : { meta: NO_PATCH_META, items: undefined };
}

function contextOf(doc: unknown): DocContext | undefined {
  if (!isRecord(doc) || !isRecord(doc.components) || !isRecord(doc.components.schemas)) return undefined;
  const schemas = doc.components.schemas;
  let ctx = contexts.get(schemas);
  if (!ctx) {
    ctx = { schemas, named: new Map(), byGvk: undefined };
    contexts.set(schemas, ctx);
  }
  return ctx;
}

function gvkKey(g: Gvk): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

// One pass over the top-level schemas reading a single extension each; nothing is resolved.
function indexKinds(schemas: Raw): Map<string, string> {
  const index = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isRecord(schema) || !Array.isArray(schema["x-kubernetes-group-version-kind"])) continue;
    for (const g of schema["x-kubernetes-group-version-kind"]) {
      if (!isRecord(g) || typeof g.kind !== "string" || typeof g.version !== "string") continue;
      const key = gvkKey({ group: typeof g.group === "string" ? g.group : "", version: g.version, kind: g.kind });
      // Shared types such as DeleteOptions list many kinds; the first schema naming a kind wins.
      if (!index.has(key)) index.set(key, name);
    }
  }
  return index;
}

function namedSchema(ctx: DocContext, name: string): PatchSchema | undefined {
  const cached = ctx.named.get(name);
  if (cached) return cached;
  const raw = ctx.schemas[name];
  if (!isRecord(raw)) return undefined;
  const node = schemaNode(ctx, raw, name);
  ctx.named.set(name, node);
  return node;
}

/** Follows `$ref` and a single-element `allOf` (how v3 documents wrap references) to a schema. */
function resolve(ctx: DocContext, raw: Raw, fallbackName: string): PatchSchema | undefined {
  const ref = refOf(raw);
  if (ref !== undefined) return namedSchema(ctx, ref);
  if (Array.isArray(raw.allOf) && raw.allOf.length === 1 && isRecord(raw.allOf[0])) return resolve(ctx, raw.allOf[0], fallbackName);
  return schemaNode(ctx, raw, fallbackName);
}

function refOf(raw: Raw): string | undefined {
  if (typeof raw.$ref === "string") return refName(raw.$ref);
  if (Array.isArray(raw.allOf) && raw.allOf.length === 1 && isRecord(raw.allOf[0])) return refOf(raw.allOf[0]);
  return undefined;
}

function refName(ref: string): string | undefined {
  const prefix = "#/components/schemas/";
  if (!ref.startsWith(prefix)) return undefined;
  return ref.slice(prefix.length).replace(/~1/g, "/").replace(/~0/g, "~");
}

function schemaNode(ctx: DocContext, raw: Raw, name: string): PatchSchema {
  const fields = new Map<string, PatchField | undefined>();
  let itemSchema: PatchSchema | undefined | null = null;
  const type = typeOf(raw);
  return {
    name,
    type,
    field(key) {
      if (!fields.has(key)) fields.set(key, buildField(ctx, raw, name, key));
      return fields.get(key);
    },
    items() {
      if (itemSchema === null) itemSchema = type === "array" && isRecord(raw.items) ? resolve(ctx, raw.items, `${name}[]`) : undefined;
      return itemSchema;
    },
  };
}

function buildField(ctx: DocContext, raw: Raw, parentName: string, key: string): PatchField | undefined {
  const props = isRecord(raw.properties) ? raw.properties : undefined;
  const prop = props && Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined;
  if (isRecord(prop)) {
    const schema = resolve(ctx, prop, `${parentName}.${key}`);
    return schema ? fieldOf(prop, schema) : undefined;
  }
  // A map's entries all share the additionalProperties schema.
  if (isRecord(raw.additionalProperties)) {
    const schema = resolve(ctx, raw.additionalProperties, `${parentName}{}`);
    return schema ? fieldOf(raw.additionalProperties, schema) : undefined;
  }
  return undefined;
}

function fieldOf(prop: Raw, schema: PatchSchema): PatchField {
  const listType = prop["x-kubernetes-list-type"];
  const mapKeys = prop["x-kubernetes-list-map-keys"];
  return {
    meta: parsePatchMeta(prop),
    listType: listType === "atomic" || listType === "set" || listType === "map" ? listType : undefined,
    listMapKeys: Array.isArray(mapKeys) && mapKeys.every((k) => typeof k === "string") ? (mapKeys as string[]) : undefined,
    schema,
  };
}

function parsePatchMeta(prop: Raw): PatchMeta {
  const strategies = typeof prop["x-kubernetes-patch-strategy"] === "string" ? prop["x-kubernetes-patch-strategy"].split(",").map((s) => s.trim()) : [];
  const mergeKey = prop["x-kubernetes-patch-merge-key"];
  if (strategies.length === 0 && typeof mergeKey !== "string") return NO_PATCH_META;
  return {
    strategy: strategies.includes("merge") ? "merge" : strategies.includes("replace") ? "replace" : undefined,
    retainKeys: strategies.includes("retainKeys"),
    mergeKey: typeof mergeKey === "string" && mergeKey !== "" ? mergeKey : undefined,
  };
}

function typeOf(raw: Raw): SchemaType {
  if (isRecord(raw.properties)) return "object";
  if (raw.type === "array" || isRecord(raw.items)) return "array";
  if (raw.type === "object" && isRecord(raw.additionalProperties)) return "map";
  if (raw.type === "string" || raw.type === "integer" || raw.type === "number" || raw.type === "boolean") return "scalar";
  return "unknown";
}

