// Where list items end up after a strategic merge. apimachinery keeps the order the user
// wrote ($setElementOrder, then the patch list) and slots items only the server has in
// between, by their place in the live list. Objects are identified by their merge key,
// scalars by themselves, both compared with Go's `==`.

import { PATCH_DIRECTIVE } from "./directives.js";
import { isJsonObject, kindOf, type JsonKind, type JsonValue } from "./json-value.js";
import { PatchError } from "./patch-error.js";

export type ElementKind = "object" | "scalar";

/** The kind shared by all items of the lists; undefined when they are all empty. */
export function elementKindOf(...lists: JsonValue[][]): ElementKind | undefined {
  let first: JsonKind | undefined;
  for (const list of lists) {
    for (const item of list) {
      const k = kindOf(item);
      if (k === "array") throw new PatchError("lists of lists cannot be merged");
      if (first === undefined) first = k;
      else if (k !== first) throw new PatchError(`list items are not all of one type: ${JSON.stringify(lists)}`);
    }
  }
  if (first === undefined) return undefined;
  return first === "object" ? "object" : "scalar";
}

/** The value an item is matched by: its merge key for objects, itself for scalars. */
export function identityOf(item: JsonValue, mergeKey: string | undefined, kind: ElementKind): JsonValue | undefined {
  if (kind === "scalar") return item;
  return isJsonObject(item) && mergeKey !== undefined ? item[mergeKey] : undefined;
}

function indexOfItem(list: readonly JsonValue[], item: JsonValue, mergeKey: string | undefined, kind: ElementKind): number {
  const id = identityOf(item, mergeKey, kind);
  return list.findIndex((v) => identityOf(v, mergeKey, kind) === id);
}

/** Object items must carry the merge key; apimachinery refuses them otherwise. */
export function requireMergeKey(items: readonly JsonValue[], mergeKey: string | undefined): void {
  for (const item of items) {
    if (!isJsonObject(item)) throw new PatchError(`expected an object in a merged list, got ${JSON.stringify(item)}`);
    if (mergeKey === undefined || !(mergeKey in item)) {
      throw new PatchError(`list item ${JSON.stringify(item)} does not contain declared merge key ${mergeKey ?? "(none)"}`);
    }
  }
}

function isDeleteDirective(item: JsonValue): boolean {
  return isJsonObject(item) && item[PATCH_DIRECTIVE] === "delete";
}

/** Sorts `items` by their place in `order`; `$patch: delete` items go last. */
export function sortByOrder(items: JsonValue[], order: readonly JsonValue[], mergeKey: string | undefined, kind: ElementKind): JsonValue[] {
  let kept = items;
  let deletes: JsonValue[] = [];
  if (kind === "object") {
    requireMergeKey(items, mergeKey);
    requireMergeKey(order, mergeKey);
    kept = items.filter((v) => !isDeleteDirective(v));
    deletes = items.filter(isDeleteDirective);
  }
  const ranked = kept.map((item, i) => ({ item, i, at: indexOfItem(order, item, mergeKey, kind) }));
  ranked.sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i));
  return [...ranked.map((r) => r.item), ...deletes];
}

/**
 * Orders patch items by `patchOrder` and server-only items by `serverOrder`, then interleaves
 * them: a server-only item goes before a patch item when it came before it in the live list.
 */
export function orderMergedItems(
  patchItems: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string | undefined,
  kind: ElementKind,
): JsonValue[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = indexOfItem(serverOrder, left[i]!, mergeKey, kind);
    const ri = indexOfItem(serverOrder, right[j]!, mergeKey, kind);
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
    else out.push(right[j++]!);
  }
  return [...out, ...left.slice(i), ...right.slice(j)];
}

/** Splits `items` into those present in `by` and the rest, keeping their order. */
export function partitionByPresence(
  items: readonly JsonValue[],
  by: readonly JsonValue[],
  mergeKey: string | undefined,
  kind: ElementKind,
): [present: JsonValue[], absent: JsonValue[]] {
  if (kind === "object") requireMergeKey(items, mergeKey);
  const present: JsonValue[] = [];
  const absent: JsonValue[] = [];
  for (const item of items) (indexOfItem(by, item, mergeKey, kind) >= 0 ? present : absent).push(item);
  return [present, absent];
}
