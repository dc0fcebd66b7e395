// What a run does to one object: the one vocabulary of the plan, the events' consumers (the run's
// tally, the change set), the change record and the previews. New kinds are new words here
// (replace: deleted, then created again, docs/lifecycle.md). Pure.

/** create, update, unchanged: an apply; replace: a delete, then a create; delete: a prune or a destroy; skip: left alone, with kpt's reason. */
export type Operation = "create" | "update" | "replace" | "unchanged" | "delete" | "skip";

export type OperationCounts = Record<Operation, number>;

/** The one count of what happens to objects: a plan's, a change set's, a run's (its tally). */
export function countOperations(ops: Iterable<Operation>): OperationCounts {
  const c: OperationCounts = { create: 0, update: 0, replace: 0, unchanged: 0, delete: 0, skip: 0 };
  for (const op of ops) c[op]++;
  return c;
}

/** How an apply event says its operation: kubectl's words, as kpt prints them (`deployment.apps/web created`). */
export const APPLIED = { create: "created", update: "configured", unchanged: "unchanged" } as const;
