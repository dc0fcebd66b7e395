// The change set of an apply, read from its run: the plan (the init event carries it) says each
// object's operation and why one is left alone; the dry run's own events add what the server
// would store (the objects a diff shows), its refusals, and skips decided as the run went. `live
// diff`, `live apply --dry-run --output markdown` and the confirmation before deleting all read
// it this way; nothing here decides anything again. Pure: events in, change set out.

import type { EngineEvent } from "../model/events.js";
import type { KubeObject, SourcePos } from "../model/kube-object.js";
import { countOperations, type Operation } from "../model/operation.js";
import type { PlannedApply, PlannedDelete, RunPlan, RunStep } from "../model/plan.js";
import { compareRefs, refKey, type ObjRef } from "../model/ref.js";
import { UPDATE_STRATEGY_ANNOTATION, type HookPhase } from "../model/lifecycle-keys.js";
import { operationOf } from "../model/run-tally.js";
import { maskSecretPair } from "./mask-secrets.js";
import { normalizeForDiff } from "./normalize.js";
import { deepEqualJson } from "../apply/csa/json-value.js";

/** A hook the apply would run (docs/lifecycle.md), in its place among the steps: its phase and wave. */
export interface HookChange {
  phase: HookPhase;
  wave: number;
  ref: ObjRef;
  /** `recreate`: the hook object an earlier run left is deleted first. */
  operation: "create" | "recreate";
  /** The server refused its dry run, or it may not be created: the run would fail there. */
  error?: string;
}

export interface Change {
  ref: ObjRef;
  /** What apply does to it (never `skip`: a skipped change keeps its operation and says why in `skip`). */
  operation: Exclude<Operation, "skip">;
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
  /** `kind`: how the inventory is named, when not a ResourceGroup (`ApplySet (Secret)`). */
  inventory: { name: string; namespace: string; exists: boolean; kind?: string };
  changes: Change[];
  /** The run's order: apply waves, then delete waves (from the plan), when known. */
  waves?: { apply: ObjRef[][]; delete: ObjRef[][] };
  /** What the run itself would do, in order, from the dry run's plan (`realSteps`). */
  steps?: RunStep[];
  /** The hooks the run would run, in order (pre-apply before the first apply wave, post-apply after the last prune wave); absent: none. */
  hooks?: HookChange[];
  /** Set when some objects were previewed locally, not by the server: the one line saying so, why, and what it cannot see. */
  local?: string;
}

/** An update whose diff is empty: what it writes is what diffs leave out. */
const BOOKKEEPING_ONLY = "only what a diff leaves out changes (the last-applied-configuration annotation, or the fields server-side apply records as owned)";

/** Why an object is replaced, as the preview says it. */
function replaceNote(why: string): string {
  return `${why}: deleted, then created again (${UPDATE_STRATEGY_ANNOTATION}: replace-on-immutable)`;
}

/** What the plan alone says of each object: its operation, or why the run leaves it alone. In kapp's order. */
export function planChanges(plan: RunPlan): Change[] {
  const applies =
    plan.command === "apply"
      ? plan.applies.map((p): Change => {
          if (p.replace && !p.skip) return { ref: p.ref, operation: "replace", note: replaceNote(p.replace) };
          const note = planNote(p);
          return { ref: p.ref, operation: p.operation, ...(p.skip ? { skip: p.skip } : {}), ...(note ? { note } : {}) };
        })
      : [];
  return [...applies, ...plan.deletes.map(deleteChange)].sort(compareChanges);
}

/** What the plan says of how an object is applied, when that is worth a note: applied server-side and why, what it leaves to others. */
export function planNote(p: PlannedApply): string | undefined {
  const notes: string[] = [];
  if (p.methodReason) notes.push(`applied server-side: ${p.methodReason}`);
  const la = p.leftAlone;
  if (la?.createOnly) notes.push("create-only: it exists, so it is left as it is");
  if (la?.fields?.length) notes.push(`${la.fields.join(", ")} left to other managers${p.live ? "" : " once it exists"}`);
  if (la?.release?.length) notes.push(`server-side apply's field manager gives up ${la.release.join(", ")} (the values stay)`);
  if (p.method === "server-side" && p.migrate) notes.push("applied client-side before: its fields are handed to server-side apply's field manager first");
  if (p.lastAppliedUnreadable) notes.push(`its last-applied-configuration annotation ${p.lastAppliedUnreadable}: read as missing, so nothing the package no longer sets is removed`);
  return notes.length ? notes.join("; ") : undefined;
}

function deleteChange(d: PlannedDelete): Change {
  if (d.unreadable) return { ref: d.ref, operation: "delete", error: `cannot read it, so it is neither deleted nor forgotten: ${d.unreadable}` };
  const skip = d.decision.action === "skip" ? d.decision.reason : undefined;
  return { ref: d.ref, operation: "delete", ...(skip ? { skip } : {}), ...masked(d.live, undefined) };
}

/**
 * The change set of a run's events (a dry run's, to preview an apply). `local`: the line saying
 * the whole preview was computed locally (--local, or a client-side dry run), when it was.
 */
export function changeSetOf(events: Iterable<EngineEvent>, o: { local?: string } = {}): ChangeSet {
  let cs: ChangeSet | undefined;
  const byKey = new Map<string, Change>();
  for (const e of events) {
    if (e.type === "init" && e.plan) {
      const plan = e.plan;
      const changes = planChanges(plan);
      for (const c of changes) byKey.set(refKey(c.ref), c);
      cs = {
        inventory: {
          name: plan.inventory.info.name,
          namespace: plan.inventory.info.namespace,
          exists: plan.inventory.stored !== undefined,
          ...(plan.inventory.info.applySet ? { kind: `ApplySet (${plan.inventory.info.applySet.kind})` } : {}),
        },
        changes,
        waves: { apply: plan.command === "apply" ? plan.applyWaves : [], delete: plan.deleteWaves },
        ...(plan.realSteps ? { steps: plan.realSteps } : {}),
        ...(o.local ? { local: o.local } : {}),
        ...(plan.hooks?.length ? { hooks: plan.hooks.map((h): HookChange => ({ phase: h.phase, wave: h.wave, ref: h.ref, operation: h.live ? "recreate" : "create", ...(h.refusal ? { error: h.refusal } : {}) })) } : {}),
      };
      continue;
    }
    if (cs && e.type === "hook") {
      const h = cs.hooks?.find((x) => x.phase === e.phase && refKey(x.ref) === refKey(e.ref));
      if (h && e.status === "Failed") h.error ??= e.message ?? "the server refused the dry run";
      continue;
    }
    if (!cs || !("ref" in e)) continue;
    const c = byKey.get(refKey(e.ref));
    if (!c) continue;
    if (e.type === "apply") {
      if (e.local) cs.local ??= e.local;
      if (e.status === "Failed") Object.assign(c, { error: e.error ?? "the server refused the dry run" }, e.source ? { source: e.source } : {}, masked(e.before, undefined));
      else if (e.status === "Skipped") Object.assign(c, e.error ? { skip: e.error } : {});
      else if (c.operation === "replace") Object.assign(c, masked(e.before, e.after ?? e.before));
      else {
        const op = e.operation && operationOf(e);
        Object.assign(c, op && op !== "skip" ? { operation: op } : {}, e.note ? { note: c.note ? `${c.note}; ${e.note}` : e.note } : {}, masked(e.before, e.after ?? e.before));
        if (c.operation === "update" && !e.note && deepEqualJson(c.before, c.after)) c.note = c.note ? `${c.note}; ${BOOKKEEPING_ONLY}` : BOOKKEEPING_ONLY;
      }
    } else if (e.type === "prune" || e.type === "delete") {
      if (e.status === "Failed") c.error ??= e.error ?? "the server refused the dry run";
      else if (e.status === "Skipped" && e.error) c.skip ??= e.error;
    }
  }
  if (!cs) throw new Error("the run ended before it had a plan");
  return cs;
}

/** The change set of a run, read to its end (a run that fails throws here). */
export async function collectChangeSet(events: AsyncIterable<EngineEvent>, o: { local?: string } = {}): Promise<ChangeSet> {
  const all: EngineEvent[] = [];
  for await (const e of events) all.push(e);
  return changeSetOf(all, o);
}

function masked(before: KubeObject | undefined, after: KubeObject | undefined): Pick<Change, "before" | "after"> {
  const b = before && normalizeForDiff(before);
  const m = maskSecretPair(b, after === before ? b : after && normalizeForDiff(after));
  return { ...(m.before ? { before: m.before } : {}), ...(m.after ? { after: m.after } : {}) };
}

/** kapp's order: namespace, then name, then kind. */
function compareChanges(a: Change, b: Change): number {
  return a.ref.namespace.localeCompare(b.ref.namespace) || a.ref.name.localeCompare(b.ref.name) || a.ref.kind.localeCompare(b.ref.kind) || compareRefs(a.ref, b.ref);
}

/** A change apply will make: not unchanged, not skipped, not failing. */
export function isEffective(c: Change): boolean {
  return c.operation !== "unchanged" && !c.skip && !c.error;
}

export interface ChangeSummary {
  create: number;
  update: number;
  delete: number;
  noop: number;
  skipped: number;
  errors: number;
  /** Objects deleted and created again; absent when none. */
  replace?: number;
  /** Hooks the run would run; absent when none (a hook that would fail counts in `errors`). */
  hooks?: number;
}

/** The counts `live diff` prints, in kapp's words (`noop` is unchanged). */
export function summarizeChanges(cs: ChangeSet): ChangeSummary {
  const sound = cs.changes.filter((c) => !c.error);
  const c = countOperations(sound.map((ch): Operation => (ch.skip && ch.operation !== "unchanged" ? "skip" : ch.operation)));
  const hookErrors = cs.hooks?.filter((h) => h.error).length ?? 0;
  return {
    create: c.create,
    update: c.update,
    delete: c.delete,
    noop: c.unchanged,
    skipped: c.skip,
    errors: cs.changes.length - sound.length + hookErrors,
    ...(c.replace ? { replace: c.replace } : {}),
    ...(cs.hooks?.length ? { hooks: cs.hooks.length } : {}),
  };
}

/** `live diff`'s exit code, as diff(1): 0 nothing would change, 1 something would, 2 trouble. */
const DIFF_EXIT = { same: 0, changed: 1, trouble: 2 } as const;

export function diffExitCode(cs: ChangeSet): 0 | 1 | 2 {
  if (cs.changes.some((c) => c.error) || cs.hooks?.some((h) => h.error)) return DIFF_EXIT.trouble;
  return cs.changes.some(isEffective) ? DIFF_EXIT.changed : DIFF_EXIT.same;
}
