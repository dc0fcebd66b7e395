// The change set the next apply would make, computed from what the server's dry run returned for
// each package object, the live objects, and the inventory objects that left the package with
// kpt's prune decision for each. Pure: IO lives in compute-diff.ts.

import { compareRefs, type ObjRef } from "../model/ref.js";
import type { KubeObject, SourcePos } from "../model/kube-object.js";
import type { PlannedDelete } from "../model/plan.js";
import { maskSecretPair } from "./mask-secrets.js";
import { jsonEqual, normalizeForDiff } from "./normalize.js";

export type ChangeOperation = "create" | "update" | "delete" | "noop";

export interface Change {
  ref: ObjRef;
  operation: ChangeOperation;
  /** Set when apply will leave the object alone: why (protection annotation, inventory policy, namespace in use...). */
  skip?: string;
  /** The server refused the dry run: the next apply would fail for this object. */
  error?: string;
  /** With an error: the package file and line the object came from. */
  source?: SourcePos;
  /** Anything else worth knowing, e.g. that the server could not preview the object. */
  note?: string;
  /** The object as it stands and as it would be, without server bookkeeping and with Secret values masked. */
  before?: KubeObject;
  after?: KubeObject;
}

export interface ChangeSet {
  inventory: { name: string; namespace: string; exists: boolean };
  changes: Change[];
  /** The run's order: apply waves, then delete waves (from the plan), when known. */
  waves?: { apply: ObjRef[][]; delete: ObjRef[][] };
  /** Set when some objects were previewed locally, not by the server: the one line saying so, why, and what it cannot see. */
  local?: string;
}

/** One package object: its live state and what the server's dry run of the apply returned. */
export interface ApplyOutcome {
  ref: ObjRef;
  live?: KubeObject;
  /** Successful: `object` is what the server would store (undefined = unchanged, the live object stays). */
  result: { status: "Successful"; object?: KubeObject; note?: string } | { status: "Failed"; error: string };
  /** Why the run will not apply it (the plan's skip: inventory policy, a dependency being pruned). */
  refusal?: string;
  source?: SourcePos;
}

/** One object the run would delete, with the plan's decision (see plan/plan-deletes.ts). */
export type DeleteCandidate = Pick<PlannedDelete, "ref" | "live" | "decision" | "unreadable">;

export function computeChangeSet(input: { inventory: ChangeSet["inventory"]; applies: ApplyOutcome[]; deletes: readonly DeleteCandidate[]; waves?: ChangeSet["waves"]; local?: string }): ChangeSet {
  const changes = [...input.applies.map(applyChange), ...input.deletes.map(deleteChange)].sort(compareChanges);
  return { inventory: input.inventory, changes, ...(input.waves ? { waves: input.waves } : {}), ...(input.local ? { local: input.local } : {}) };
}

function applyChange(a: ApplyOutcome): Change {
  const base: Change = { ref: a.ref, operation: a.live ? "update" : "create", ...(a.refusal ? { skip: a.refusal } : {}) };
  if (a.result.status === "Failed") return { ...base, error: a.result.error, ...(a.source ? { source: a.source } : {}), ...masked(a.live, undefined) };
  const after = a.result.object ?? a.live;
  const note = a.result.note ? { note: a.result.note } : {};
  if (!a.live) return { ...base, ...note, ...masked(undefined, after) };
  const before = normalizeForDiff(a.live);
  const would = after ? normalizeForDiff(after) : before;
  if (jsonEqual(before, would)) return { ...base, operation: "noop", ...note, ...masked(a.live, after) };
  return { ...base, ...note, ...masked(a.live, after) };
}

function deleteChange(d: DeleteCandidate): Change {
  if (d.unreadable) return { ref: d.ref, operation: "delete", error: `cannot read it, so it is neither deleted nor forgotten: ${d.unreadable}` };
  const skip = d.decision.action === "skip" ? d.decision.reason : undefined;
  return { ref: d.ref, operation: "delete", ...(skip ? { skip } : {}), ...masked(d.live, undefined) };
}

function masked(before: KubeObject | undefined, after: KubeObject | undefined): Pick<Change, "before" | "after"> {
  const m = maskSecretPair(before && normalizeForDiff(before), after && normalizeForDiff(after));
  return { ...(m.before ? { before: m.before } : {}), ...(m.after ? { after: m.after } : {}) };
}

/** kapp's order: namespace, then name, then kind. */
function compareChanges(a: Change, b: Change): number {
  return a.ref.namespace.localeCompare(b.ref.namespace) || a.ref.name.localeCompare(b.ref.name) || a.ref.kind.localeCompare(b.ref.kind) || compareRefs(a.ref, b.ref);
}

/** A change apply will make: not a noop, not skipped, not failing. */
export function isEffective(c: Change): boolean {
  return c.operation !== "noop" && !c.skip && !c.error;
}

export interface ChangeSummary {
  create: number;
  update: number;
  delete: number;
  noop: number;
  skipped: number;
  errors: number;
}

export function summarizeChanges(cs: ChangeSet): ChangeSummary {
  const s: ChangeSummary = { create: 0, update: 0, delete: 0, noop: 0, skipped: 0, errors: 0 };
  for (const c of cs.changes) {
    if (c.error) s.errors++;
    else if (c.skip && c.operation !== "noop") s.skipped++;
    else s[c.operation]++;
  }
  return s;
}

/** `live diff`'s exit code, as diff(1): 0 nothing would change, 1 something would, 2 trouble. */
export const DIFF_EXIT = { same: 0, changed: 1, trouble: 2 } as const;

export function diffExitCode(cs: ChangeSet): 0 | 1 | 2 {
  if (cs.changes.some((c) => c.error)) return DIFF_EXIT.trouble;
  return cs.changes.some(isEffective) ? DIFF_EXIT.changed : DIFF_EXIT.same;
}

/**
 * Why the server could not preview an object that this same apply makes possible: its namespace
 * or its CustomResourceDefinition comes with the package and does not exist yet. The object is
 * then shown as the package has it. Undefined when the error is a real one.
 */
export function previewBlockedByPackage(error: string, ref: ObjRef, packageObjects: readonly KubeObject[]): string | undefined {
  if (ref.namespace && error.includes(`namespaces "${ref.namespace}" not found`)) {
    const ns = packageObjects.some((o) => o.apiVersion === "v1" && o.kind === "Namespace" && o.metadata.name === ref.namespace);
    if (ns) return `namespace ${ref.namespace} is created by this apply: shown as in the package, not previewed by the server`;
  }
  if (/does not serve/.test(error)) {
    const crd = packageObjects.find((o) => {
      const spec = o.spec as { group?: string; names?: { kind?: string } } | undefined;
      return o.kind === "CustomResourceDefinition" && spec?.group === ref.group && spec?.names?.kind === ref.kind;
    });
    if (crd) return `its CustomResourceDefinition ${crd.metadata.name} is created by this apply: shown as in the package, not previewed by the server`;
  }
  return undefined;
}
