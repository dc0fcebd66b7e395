// kubectl apply's three-way patches (overwrite on). From original (the last applied
// configuration), modified (the new one) and current (the live object):
// - deletions come from original vs modified: a field the package stopped setting is removed,
//   a field it never set (added by a controller or another user) is left alone;
// - additions and changes come from current vs modified, so drift is corrected;
// - the two are folded into one patch. `{}` means nothing to write.

import {
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  PATCH_DIRECTIVE,
  RETAIN_KEYS_DIRECTIVE,
  SET_ELEMENT_ORDER_PREFIX,
} from "./directives.js";
import { applyMergePatch } from "./apply-patch.js";
import { elementKindOf, requireMergeKey, sortByOrder } from "./element-order.js";
import {
  cloneJson,
  compareStrings,
  deepEqualJson,
  formatScalar,
  hasKey,
  isJsonObject,
  kindOf,
  type JsonObject,
  type JsonValue,
} from "./json-value.js";
import { PatchError } from "./patch-error.js";
import { lookupField, lookupListField, type PatchSchema } from "./patch-schema.js";
import { mergeStrategic } from "./strategic-merge.js";

/** The strategic merge patch kubectl sends for a built-in kind. */
export function createThreeWayStrategicPatch(
  original: object | undefined,
  modified: object,
  current: object,
  schema: PatchSchema,
): Record<string, unknown> {
  // The diffs never change their `from` side nor put its objects into the patch, so only the
  // (small) modified object is copied: copying the live one (managedFields, status) was most of
  // the cost of deciding that an object is unchanged.
  const mod = cloneJson(modified as JsonObject);
  const delta = diffObjects(current as JsonObject, mod, schema, { skipDeletions: true, skipChanges: false, retainKeys: false });
  const deletions = diffObjects((original ?? {}) as JsonObject, mod, schema, { skipDeletions: false, skipChanges: true, retainKeys: false });
  return mergeStrategic(deletions, cloneJson(delta), schema, "fold");
}

/** The JSON merge patch kubectl sends for a custom resource: lists are replaced whole. */
export function createThreeWayMergePatch(original: object | undefined, modified: object, current: object): Record<string, unknown> {
  const mod = cloneJson(modified as JsonObject);
  const additionsAndChanges = keepChanges(diffDocuments(current as JsonObject, mod));
  const deletions = keepDeletions(diffDocuments((original ?? {}) as JsonObject, mod));
  return applyMergePatch(deletions, additionsAndChanges) as Record<string, unknown>;
}

/**
 * The additions and changes half of the patch alone (what `current` lacks of `modified`). When
 * the last applied configuration is `modified` itself, the deletions half is empty, so this is
 * the whole patch: enough to tell an unchanged object at a fraction of the cost.
 */
export function strategicAdditions(current: object, modified: object, schema: PatchSchema): Record<string, unknown> {
  return diffObjects(current as JsonObject, modified as JsonObject, schema, { skipDeletions: true, skipChanges: false, retainKeys: false });
}

/** The same for a JSON merge patch. */
export function mergeAdditions(current: object, modified: object): Record<string, unknown> {
  return keepChanges(diffDocuments(current as JsonObject, modified as JsonObject));
}

/** An empty patch: the object already matches, do not write it. */
export function isEmptyPatch(patch: object): boolean {
  return Object.keys(patch).length === 0;
}

interface DiffOptions {
  /** Leave out fields of `from` missing from `to` (computing additions and changes). */
  skipDeletions: boolean;
  /** Leave out additions and changes (computing deletions). */
  skipChanges: boolean;
  /** The object's field has the retainKeys strategy: list the keys to keep. */
  retainKeys: boolean;
}

function diffObjects(from: JsonObject, to: JsonObject, schema: PatchSchema | undefined, opts: DiffOptions): JsonObject {
  const patch: JsonObject = {};
  const retained: string[] = [];
  for (const [key, toValue] of Object.entries(to)) {
    if (opts.retainKeys && toValue !== null) retained.push(key);
    if (!hasKey(from, key)) {
      if (!opts.skipChanges) patch[key] = toValue;
      continue;
    }
    const fromValue = from[key]!;
    if (key === PATCH_DIRECTIVE) {
      if (typeof fromValue !== "string" || typeof toValue !== "string") throw new PatchError(`invalid value for ${PATCH_DIRECTIVE}`);
      if (fromValue !== toValue) patch[key] = toValue;
      continue;
    }
    if (kindOf(fromValue) !== kindOf(toValue)) {
      if (!opts.skipChanges) patch[key] = toValue;
    } else if (isJsonObject(fromValue)) {
      diffObjectField(key, fromValue, toValue as JsonObject, patch, schema, opts);
    } else if (Array.isArray(fromValue)) {
      diffListField(key, fromValue, toValue as JsonValue[], patch, schema, opts);
    } else if (!opts.skipChanges && fromValue !== toValue) {
      patch[key] = toValue;
    }
  }
  if (!opts.skipDeletions) {
    for (const key of Object.keys(from)) if (!hasKey(to, key)) patch[key] = null;
  }
  // Sent when something changes, or when `from` has fields the directive would clear.
  if (retained.length > 0 && (Object.keys(patch).length > 0 || hasFieldsBeyond(from, to))) {
    patch[RETAIN_KEYS_DIRECTIVE] = retained.sort(compareStrings);
  }
  return patch;
}

function hasFieldsBeyond(from: JsonObject, to: JsonObject): boolean {
  return Object.entries(from).some(([k, v]) => v !== null && !hasKey(to, k));
}

function diffObjectField(key: string, from: JsonObject, to: JsonObject, patch: JsonObject, schema: PatchSchema | undefined, opts: DiffOptions): void {
  const field = lookupField(schema, key);
  if (field.meta.strategy === "replace") {
    if (!opts.skipChanges) patch[key] = to;
    return;
  }
  const sub = diffObjects(from, to, field.schema, { ...opts, retainKeys: field.meta.retainKeys });
  if (Object.keys(sub).length > 0) patch[key] = sub;
}

function diffListField(key: string, from: JsonValue[], to: JsonValue[], patch: JsonObject, schema: PatchSchema | undefined, opts: DiffOptions): void {
  const { meta, items } = lookupListField(schema, key);
  if (meta.strategy !== "merge") {
    if (!opts.skipChanges && !deepEqualJson(from, to)) patch[key] = to;
    return;
  }
  const { changes, deletions, order } = diffMergeLists(from, to, items, meta.mergeKey, { ...opts, retainKeys: meta.retainKeys });
  if (changes.length > 0) patch[key] = changes;
  if (deletions.length > 0) patch[DELETE_FROM_PRIMITIVE_LIST_PREFIX + key] = deletions;
  if (order.length > 0) patch[SET_ELEMENT_ORDER_PREFIX + key] = order;
}

interface ListDiff {
  /** Added and changed items; for objects also `$patch: delete` items. */
  changes: JsonValue[];
  /** Scalars to delete (`$deleteFromPrimitiveList`). */
  deletions: JsonValue[];
  /** The order of `to` (`$setElementOrder`), sent whenever the list changes. */
  order: JsonValue[];
}

function diffMergeLists(from: JsonValue[], to: JsonValue[], items: PatchSchema | undefined, mergeKey: string | undefined, opts: DiffOptions): ListDiff {
  if (from.length === 0) {
    return { changes: to.length === 0 || opts.skipChanges ? [] : to, deletions: [], order: [] };
  }
  const kind = elementKindOf(from, to)!;
  if (kind === "object") {
    const { changed, deleted } = diffListsOfObjects(from, to, items, mergeKey!, opts);
    const changes = [...sortByOrder(changed, to, mergeKey, kind), ...deleted];
    const orderChanged = !sameKeyOrder(from, to, mergeKey!);
    const sendOrder = (!opts.skipChanges && (changes.length > 0 || orderChanged)) || (!opts.skipDeletions && changes.length > 0);
    const order = sendOrder ? to.map((v) => ({ [mergeKey!]: (v as JsonObject)[mergeKey!]! })) : [];
    return { changes, deletions: [], order };
  }
  const { added, deleted } = diffListsOfScalars(from, to, opts);
  const sendOrder = (!opts.skipDeletions && deleted.length > 0) || (!opts.skipChanges && !deepEqualJson(from, to));
  return { changes: sortByOrder(added, to, undefined, kind), deletions: deleted, order: sendOrder ? to : [] };
}

function sameKeyOrder(from: JsonValue[], to: JsonValue[], mergeKey: string): boolean {
  return from.length === to.length && from.every((v, i) => (v as JsonObject)[mergeKey] === (to[i] as JsonObject)[mergeKey]);
}

// Both lists are walked in the order of their merge keys' `%v` strings, as apimachinery does;
// that order decides the order of `$patch: delete` items.
function diffListsOfObjects(from: JsonValue[], to: JsonValue[], items: PatchSchema | undefined, mergeKey: string, opts: DiffOptions): { changed: JsonValue[]; deleted: JsonValue[] } {
  requireMergeKey(from, mergeKey);
  requireMergeKey(to, mergeKey);
  const changed: JsonValue[] = [];
  const deleted: JsonValue[] = [];
  walkSorted(from, to, (v) => formatScalar((v as JsonObject)[mergeKey]!), {
    both(x, y) {
      const sub = diffObjects(x as JsonObject, y as JsonObject, items, opts);
      if (Object.keys(sub).length > 0) {
        sub[mergeKey] = (y as JsonObject)[mergeKey]!;
        changed.push(sub);
      }
    },
    onlyTo: opts.skipChanges ? undefined : (y) => changed.push(y),
    onlyFrom: opts.skipDeletions ? undefined : (x) => deleted.push({ [mergeKey]: (x as JsonObject)[mergeKey]!, [PATCH_DIRECTIVE]: "delete" }),
  });
  return { changed, deleted };
}

function diffListsOfScalars(from: JsonValue[], to: JsonValue[], opts: DiffOptions): { added: JsonValue[]; deleted: JsonValue[] } {
  const added: JsonValue[] = [];
  const deleted: JsonValue[] = [];
  walkSorted(from, to, formatScalar, {
    onlyTo: opts.skipChanges ? undefined : (y) => added.push(y),
    onlyFrom: opts.skipDeletions ? undefined : (x) => deleted.push(x),
  });
  return { added, deleted: deleted.filter((v, k) => deleted.indexOf(v) === k) };
}

type Visit = ((v: JsonValue) => unknown) | undefined;

/** Both lists sorted by `keyOf`, walked side by side: each item is in both, only in `to`, or only in `from`. */
function walkSorted(from: JsonValue[], to: JsonValue[], keyOf: (v: JsonValue) => string, on: { both?(x: JsonValue, y: JsonValue): void; onlyTo: Visit; onlyFrom: Visit }): void {
  const byKey = (x: JsonValue, y: JsonValue) => compareStrings(keyOf(x), keyOf(y));
  const a = [...from].sort(byKey);
  const b = [...to].sort(byKey);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const cmp = i >= a.length ? 1 : j >= b.length ? -1 : byKey(a[i]!, b[j]!);
    if (cmp === 0) on.both?.(a[i]!, b[j]!);
    else if (cmp > 0) on.onlyTo?.(b[j]!);
    else on.onlyFrom?.(a[i]!);
    if (cmp <= 0) i++;
    if (cmp >= 0) j++;
  }
}

// JSON merge patch: the diff evanphx/json-patch computes (lists compared whole), then kubectl
// keeps only the additions and changes of one diff and only the deletions of the other.
function diffDocuments(from: JsonObject, to: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const [key, toValue] of Object.entries(to)) {
    if (!hasKey(from, key)) {
      patch[key] = toValue;
      continue;
    }
    const fromValue = from[key]!;
    if (isJsonObject(fromValue) && isJsonObject(toValue)) {
      const sub = diffDocuments(fromValue, toValue);
      if (Object.keys(sub).length > 0) patch[key] = sub;
    } else if (!deepEqualJson(fromValue, toValue)) {
      patch[key] = toValue;
    }
  }
  for (const key of Object.keys(from)) if (!hasKey(to, key)) patch[key] = null;
  return patch;
}

function keepChanges(patch: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) continue;
    if (isJsonObject(value) && Object.keys(value).length > 0) {
      const sub = keepChanges(value);
      if (Object.keys(sub).length > 0) out[key] = sub;
    } else {
      // An explicitly empty object is a value to set, not an empty patch.
      out[key] = value;
    }
  }
  return out;
}

function keepDeletions(patch: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) out[key] = null;
    else if (isJsonObject(value)) {
      const sub = keepDeletions(value);
      if (Object.keys(sub).length > 0) out[key] = sub;
    }
  }
  return out;
}
