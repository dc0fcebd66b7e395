// The merge at the heart of strategic merge patch, with apimachinery's two uses of it:
// `apply` is what the API server does with a patch; `fold` is how kubectl folds the
// additions-and-changes patch into the deletions patch when it computes a three-way patch
// (directives are carried over instead of executed, nulls are kept).

import {
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  isDirectiveKey,
  PATCH_DIRECTIVE,
  RETAIN_KEYS_DIRECTIVE,
  SET_ELEMENT_ORDER_PREFIX,
} from "./directives.js";
import { elementKindOf, identityOf, orderMergedItems, partitionByPresence, requireMergeKey, type ElementKind } from "./element-order.js";
import { deepEqualJson, hasKey, isJsonObject, kindOf, type JsonObject, type JsonValue } from "./json-value.js";
import { PatchError } from "./patch-error.js";
import { lookupField, lookupListField, type PatchMeta, type PatchSchema } from "./patch-schema.js";

type MergeMode = "apply" | "fold";

/** Merges `patch` into `original`. Both are modified; callers pass copies. */
export function mergeStrategic(original: JsonObject | undefined, patch: JsonObject, schema: PatchSchema | undefined, mode: MergeMode): JsonObject {
  const directive = patch[PATCH_DIRECTIVE];
  if (directive !== undefined) {
    if (directive === "replace") {
      delete patch[PATCH_DIRECTIVE];
      return patch;
    }
    if (directive === "delete") return {};
    throw new PatchError(`unknown ${PATCH_DIRECTIVE} directive ${JSON.stringify(directive)}`);
  }
  const target = original ?? {};
  applyRetainKeys(target, patch, mode);
  mergeOrderedLists(target, patch, schema, mode);

  for (const [patchKey, patchValue] of Object.entries(patch)) {
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      if (mode === "fold") {
        target[patchKey] = patchValue;
        continue;
      }
      key = patchKey.slice(DELETE_FROM_PRIMITIVE_LIST_PREFIX.length);
      isDeleteList = true;
    }
    if (patchValue === null) {
      delete target[key];
      // The server drops fields; a folded patch keeps the null so it is sent.
      if (mode === "apply") continue;
    }
    const current = hasKey(target, key) ? target[key] : undefined;
    if (current === undefined || kindOf(current) !== kindOf(patchValue)) {
      if (!isDeleteList) adoptInto(target, key, patchValue, mode);
      continue;
    }
    if (isJsonObject(current)) {
      const field = lookupField(schema, key);
      target[key] = field.meta.strategy === "replace" ? patchValue : mergeStrategic(current, patchValue as JsonObject, field.schema, mode);
    } else if (Array.isArray(current)) {
      const field = lookupListField(schema, key);
      target[key] = mergeListField(current, patchValue as JsonValue[], field.items, field.meta, isDeleteList, mode);
    } else {
      adoptInto(target, key, patchValue, mode);
    }
  }
  return target;
}

/** `$retainKeys`: on the server, clears the keys it does not list; when folding, carries it over. */
function applyRetainKeys(target: JsonObject, patch: JsonObject, mode: MergeMode): void {
  if (!hasKey(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retain = patch[RETAIN_KEYS_DIRECTIVE]!;
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (mode === "fold") {
    if (!hasKey(target, RETAIN_KEYS_DIRECTIVE)) target[RETAIN_KEYS_DIRECTIVE] = retain;
    else if (!deepEqualJson(target[RETAIN_KEYS_DIRECTIVE]!, retain)) throw new PatchError(`conflicting ${RETAIN_KEYS_DIRECTIVE} lists`);
    return;
  }
  if (!Array.isArray(retain)) throw new PatchError(`${RETAIN_KEYS_DIRECTIVE} must be a list`);
  const keep = new Set(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!keep.has(k)) throw new PatchError(`field ${k} is set in the patch but missing from ${RETAIN_KEYS_DIRECTIVE}`);
  }
  for (const k of Object.keys(target)) if (!keep.has(k)) delete target[k];
}

/**
 * `$setElementOrder/<list>` with its list: merges the list, then orders it as the directive
 * says, keeping server-only items near their live neighbours. Both keys leave the patch.
 */
function mergeOrderedLists(target: JsonObject, patch: JsonObject, schema: PatchSchema | undefined, mode: MergeMode): void {
  for (const orderKey of Object.keys(patch)) {
    if (!orderKey.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[orderKey]!;
    if (mode === "fold") {
      if (!hasKey(target, orderKey)) target[orderKey] = order;
      else if (!deepEqualJson(target[orderKey]!, order)) throw new PatchError(`conflicting ${orderKey} lists`);
    }
    delete patch[orderKey];
    if (!Array.isArray(order)) throw new PatchError(`${orderKey} must be a list`);

    const listKey = orderKey.slice(SET_ELEMENT_ORDER_PREFIX.length);
    const current = listAt(target, listKey);
    const patchList = listAt(patch, listKey);
    const { meta, items } = lookupListField(schema, listKey);
    checkOrderMatchesPatch(patchList ?? [], order, meta.mergeKey);

    let merged: JsonValue[];
    if (current && patchList) merged = mergeListField(current, patchList, items, meta, false, mode);
    else if (current) merged = current;
    else if (patchList) merged = adoptValue(patchList, mode) as JsonValue[];
    else continue;

    const kind = elementKindOf(current ?? [], patchList ?? []);
    target[listKey] = kind ? orderByDirective(merged, order, current ?? [], meta.mergeKey, kind) : merged;
    delete patch[listKey];
  }
}

function orderByDirective(merged: JsonValue[], order: JsonValue[], live: JsonValue[], mergeKey: string | undefined, kind: ElementKind): JsonValue[] {
  const key = kind === "object" ? mergeKey : undefined;
  const [inOrder, serverOnly] = partitionByPresence(merged, order, key, kind);
  return orderMergedItems(inOrder, serverOnly, order, live, key, kind);
}

function listAt(obj: JsonObject, key: string): JsonValue[] | undefined {
  if (!hasKey(obj, key)) return undefined;
  const v = obj[key]!;
  if (!Array.isArray(v)) throw new PatchError(`${key} must be a list, got ${JSON.stringify(v)}`);
  return v;
}

/** The patch list's items must appear in `$setElementOrder` in the same relative order. */
function checkOrderMatchesPatch(patchList: JsonValue[], order: JsonValue[], mergeKey: string | undefined): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((v) => !(isJsonObject(v) && v[PATCH_DIRECTIVE] === "delete")) : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p]!;
    if (isJsonObject(item) && hasKey(item, PATCH_DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameListItem(item, order[o]!, mergeKey)) p++;
    o++;
  }
  if (p < items.length) throw new PatchError(`the order in patch list ${JSON.stringify(patchList)} doesn't match ${SET_ELEMENT_ORDER_PREFIX} list ${JSON.stringify(order)}`);
}

function sameListItem(a: JsonValue, b: JsonValue, mergeKey: string | undefined): boolean {
  if (!mergeKey) return a === b;
  requireMergeKey([a, b], mergeKey);
  return (a as JsonObject)[mergeKey] === (b as JsonObject)[mergeKey];
}

function mergeListField(
  current: JsonValue[],
  patch: JsonValue[],
  items: PatchSchema | undefined,
  meta: PatchMeta,
  isDeleteList: boolean,
  mode: MergeMode,
): JsonValue[] {
  // A deletion list deletes whatever the field's strategy.
  if (meta.strategy === "merge" || isDeleteList) return mergeList(current, patch, items, meta.mergeKey, isDeleteList, mode);
  return mode === "apply" ? (adoptValue(patch, mode) as JsonValue[]) : patch;
}

function mergeList(
  original: JsonValue[],
  patch: JsonValue[],
  items: PatchSchema | undefined,
  mergeKey: string | undefined,
  isDeleteList: boolean,
  mode: MergeMode,
): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKindOf(original, patch)!;
  if (kind === "scalar") {
    if (mode === "apply" && isDeleteList) return original.filter((v) => !patch.includes(v));
    const merged = dedupeScalars([...original, ...patch]);
    const [inPatch, serverOnly] = partitionByPresence(merged, patch, undefined, kind);
    return orderMergedItems(inPatch, serverOnly, patch, original, undefined, kind);
  }
  if (!mergeKey) throw new PatchError(`cannot merge a list of objects without a merge key (${items?.name ?? "unknown schema"})`);
  const [base, plainItems] = executeListDirectives(original, patch, mergeKey);
  const merged = [...base];
  for (const item of plainItems) {
    requireMergeKey([item], mergeKey);
    const id = identityOf(item, mergeKey, kind);
    const at = merged.findIndex((v) => isJsonObject(v) && hasKey(v, mergeKey) && v[mergeKey] === id);
    if (at >= 0) merged[at] = mergeStrategic(merged[at] as JsonObject, item as JsonObject, items, mode);
    else merged.push(mode === "apply" ? adoptValue(item, mode)! : item);
  }
  const [inPatch, serverOnly] = partitionByPresence(merged, plainItems, mergeKey, kind);
  return orderMergedItems(inPatch, serverOnly, plainItems, base, mergeKey, kind);
}

/** Runs `$patch: delete` / `replace` items of a merge list; returns the base list and the plain items. */
function executeListDirectives(original: JsonValue[], patch: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  let base = original;
  const plain: JsonValue[] = [];
  let replace = false;
  for (const item of patch) {
    const obj = item as JsonObject;
    if (!hasKey(obj, PATCH_DIRECTIVE)) {
      plain.push(item);
      continue;
    }
    switch (obj[PATCH_DIRECTIVE]) {
      case "delete":
        if (!hasKey(obj, mergeKey)) throw new PatchError(`${JSON.stringify(obj)} does not contain declared merge key ${mergeKey}`);
        base = base.filter((v) => !(isJsonObject(v) && v[mergeKey] === obj[mergeKey]));
        break;
      case "replace":
        replace = true;
        break;
      case "merge":
        throw new PatchError("merging lists cannot yet be specified in the patch");
      default:
        throw new PatchError(`unknown ${PATCH_DIRECTIVE} directive ${JSON.stringify(obj[PATCH_DIRECTIVE])}`);
    }
  }
  return replace ? [plain, []] : [base, plain];
}

function dedupeScalars(values: JsonValue[]): JsonValue[] {
  return values.filter((v, i) => values.indexOf(v) === i);
}

function adoptInto(target: JsonObject, key: string, value: JsonValue, mode: MergeMode): void {
  const adopted = adoptValue(value, mode);
  if (adopted === undefined) delete target[key];
  else target[key] = adopted;
}

/**
 * A patch value taken whole (its field is new, or changes type). Objects carrying `$patch`
 * are dropped, as apimachinery does. On the server, nulls and leftover directives are dropped
 * too: the typed decoding the API server does after merging discards them.
 */
function adoptValue(value: JsonValue, mode: MergeMode): JsonValue | undefined {
  if (Array.isArray(value)) {
    return value.map((v) => adoptValue(v, mode)).filter((v): v is JsonValue => v !== undefined);
  }
  if (!isJsonObject(value)) return value;
  if (hasKey(value, PATCH_DIRECTIVE)) return undefined;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (mode === "apply" && (v === null || isDirectiveKey(k))) continue;
    const adopted = adoptValue(v, mode);
    if (adopted !== undefined) out[k] = adopted;
  }
  return out;
}
