// What the inventory lists after a run (kpt's rule, reference §3.5): everything that may still
// exist stays listed, so a failed or interrupted run never leaves an object no inventory knows.

import { RefSet, type ObjRef } from "../model/ref.js";

export interface RunOutcome {
  previous: Iterable<ObjRef>;
  applied: Iterable<ObjRef>;
  /** Objects whose apply failed or was skipped (or was never attempted). */
  notApplied: Iterable<ObjRef>;
  /** Prunes/deletes that failed, were skipped (not abandoned) or did not finish (wait failed or timed out). */
  notDeleted: Iterable<ObjRef>;
  /** Objects let go with on-remove: keep / deletion: detach. */
  abandoned: Iterable<ObjRef>;
}

export function nextInventory(o: RunOutcome): ObjRef[] {
  const prev = new RefSet(o.previous);
  const keep = new RefSet(o.applied);
  for (const r of o.notApplied) if (prev.has(r)) keep.add(r);
  for (const r of o.notDeleted) if (prev.has(r)) keep.add(r);
  for (const r of o.abandoned) keep.delete(r);
  return keep.toArray();
}

/** Both runs' lists, when two runs of one package wrote the inventory at once: nothing drops out. */
export function mergeConcurrent(theirs: Iterable<ObjRef>, ours: Iterable<ObjRef>): ObjRef[] {
  return new RefSet(theirs).union(new RefSet(ours)).toArray();
}

/** The same objects, in any order. */
export function sameRefs(a: Iterable<ObjRef>, b: Iterable<ObjRef>): boolean {
  return new RefSet(a).equals(b);
}
