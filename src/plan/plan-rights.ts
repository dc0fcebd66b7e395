// The rights a run's writes need, from its plan, as SelfSubjectAccessReviews ask about them:
// create for each object it creates (server-side apply also patch), patch for each it updates
// or lets go, delete for each it deletes, and what its ApplySet's parent needs. Reads are not
// listed: the facts were read already (a kind that could not be read is the plan's own failure).
// Pure; the `check-rights` step asks the server before the first write.

import type { AccessRight, PlannedApply, PlannedDelete, PlannedHook } from "../model/plan.js";
import type { ObjRef } from "../model/ref.js";

export interface RightsInput {
  applies: readonly PlannedApply[];
  deletes: readonly PlannedDelete[];
  /** The hooks the run runs (docs/lifecycle.md): each created, and deleted (an earlier run's, or by its policy). */
  hooks?: readonly PlannedHook[];
  /** The ApplySet's parent: whether it exists already, whether the run changes it before the first apply, whether it deletes it (destroy). */
  parent?: { ref: ObjRef; exists: boolean; changed?: boolean; removed?: boolean };
}

/** Every right the writes need, each once; none when the run writes no object and no new parent. */
export function rightsNeeded(p: RightsInput): AccessRight[] {
  const out = new Map<string, AccessRight>();
  const add = (verb: AccessRight["verb"], r: Pick<ObjRef, "group" | "kind" | "namespace">) => {
    const right = { verb, group: r.group, kind: r.kind, namespace: r.namespace };
    out.set(`${verb} ${r.group}/${r.kind} ${r.namespace}`, right);
  };
  for (const a of p.applies) {
    if (a.skip || a.operation === "unchanged") continue;
    if (a.operation === "create") add("create", a.ref);
    if (a.operation === "update" || a.method === "server-side") add("patch", a.ref);
  }
  for (const d of p.deletes) {
    if (d.decision.action === "delete") add("delete", d.ref);
    else if (d.decision.abandon) add("patch", d.ref);
  }
  for (const h of p.hooks ?? []) {
    add("create", h.ref);
    add("delete", h.ref);
  }
  // The parent is written when objects are (its scope follows them), or when there is none yet.
  if (p.parent && (out.size > 0 || !p.parent.exists || p.parent.changed || p.parent.removed)) {
    if (!p.parent.exists) add("create", p.parent.ref);
    add("update", p.parent.ref);
    if (p.parent.removed) add("delete", p.parent.ref);
  }
  return [...out.values()];
}
