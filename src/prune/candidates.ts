// Which inventory objects a run deletes: for apply, those that left the package (prune); for
// destroy, all of them. Objects already gone are forgotten; ones whose state cannot be read stay
// (they are reported and kept in the inventory, never taken for gone). Pure.

import { RefSet, refKey, type ObjRef } from "../model/ref.js";

/** What the inventory lists that the package no longer has. */
export function pruneCandidates(previous: readonly ObjRef[], packageRefs: RefSet): ObjRef[] {
  return previous.filter((r) => !packageRefs.has(r));
}

/** Those of `refs` that exist, or whose existence cannot be read. */
export function stillThere(refs: readonly ObjRef[], live: ReadonlyMap<string, unknown>, unreadable: ReadonlyMap<string, string>): ObjRef[] {
  return refs.filter((r) => live.has(refKey(r)) || unreadable.has(refKey(r)));
}
