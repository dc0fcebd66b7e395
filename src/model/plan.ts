// What a run will do, as data: computed from the gathered facts by a pure planner, before the
// first write. The executor performs it; `live diff`, `--dry-run`, the confirmation prompt and
// the history record read the same plan.

import type { ObjRef } from "./ref.js";
import type { InventoryInfo, KubeObject, PackageObject, SourcePos } from "./kube-object.js";
import type { HookDeletePolicy, HookPhase } from "./lifecycle-keys.js";

export type CsaPatchType = "strategic" | "merge";

/**
 * Client-side apply's decision for one object (apply/csa/plan-csa.ts): create it with this body,
 * leave it, or patch it (the preview is the live object with the patch applied locally).
 */
export type CsaPlan =
  | { op: "create"; body: KubeObject }
  | { op: "unchanged" }
  | {
      op: "patch";
      patchType: CsaPatchType;
      patch: object;
      preview: KubeObject;
      /**
       * The patch only removes fields the package does not set (a `$retainKeys`, a list replaced
       * by one without the server's defaults) or adds zero values the server omits: the server
       * may undo it straight away, so only its dry run can tell whether the patch changes anything.
       */
      serverMaySettle?: true;
    };

/**
 * How an object is applied: the run's way, or server-side for an object too large for
 * client-side apply (its last-applied copy would not fit in the annotations the server stores).
 */
export type ApplyMethod = "client-side" | "server-side";

/** What the package leaves to others on an object that exists (its kpt-ts.dev annotations, docs/other-controllers.md). */
export interface LeftAlone {
  /** `kpt-ts.dev/create-only`: created when missing, never written once it exists. */
  createOnly?: true;
  /** `kpt-ts.dev/ignore-fields`: the fields neither set nor removed once the object exists, as written. */
  fields?: string[];
  /**
   * Server-side apply: the fields our field manager owned that it gives up (their values stay,
   * owned by no one), so that applying without them does not remove them.
   */
  release?: string[];
}

/** kpt's prune decision for one object (prune/prune-filters.ts). */
export type PruneDecision =
  | { action: "delete" }
  /** `abandon`: drop it from the inventory and remove its owning-inventory annotation. */
  | { action: "skip"; reason: string; abandon: boolean };

/**
 * What apply intends for one package object, decided against the live object read before the run
 * (plan/plan-object.ts; the executor decides again, the same way, when that object has changed).
 */
export type PlannedOperation = "create" | "update" | "unchanged";

export interface PlannedApply {
  ref: ObjRef;
  /** The object as the package has it: namespace assigned, owning-inventory annotation set. */
  object: KubeObject;
  /**
   * The object as a server-side apply sends it, when that differs from `object`: without the
   * fields it leaves to others (`leftAlone`), once it exists.
   */
  sent?: KubeObject;
  /** How it is applied; `methodReason` says why when that is not the run's way. */
  method: ApplyMethod;
  methodReason?: string;
  /** What the run leaves to others on this object (create-only, fields left alone). */
  leftAlone?: LeftAlone;
  /**
   * Server-side apply of an object client-side apply wrote: its client-side appliers' fields are
   * handed to the field manager first (kubectl's csaupgrade), so the fields the package dropped go.
   */
  migrate?: true;
  source: SourcePos;
  /** The object in the cluster before the run; absent when it does not exist. */
  live?: KubeObject;
  operation: PlannedOperation;
  /** Set when the run will not apply it, with kpt's reason (inventory policy, a dependency being pruned). */
  skip?: string;
  /** Client-side apply's decision, reused while the live object stays as it was read. */
  csa?: CsaPlan;
  /** Client-side apply's patch could not be computed (why): the executor tries again when it applies it. */
  unplanned?: string;
  /**
   * Client-side apply: the live object's last-applied annotation cannot be read (why). The patch
   * is computed as for an object without one (it removes nothing) and writes a valid one; the
   * run says so once, naming the object.
   */
  lastAppliedUnreadable?: string;
  /** The live object could not be read (why): the plan's `create` is a guess, which a preview says. */
  unreadable?: string;
  /** Index into the plan's apply waves. */
  wave: number;
  /** What it waits for: its depends-on objects, its Namespace, its CRD (package objects or prune candidates). */
  dependencies: ObjRef[];
  /** How the run waits for it, when not as for the rest of its wave (docs/lifecycle.md). */
  wait?: ObjectWait;
  /**
   * The server refuses the update (an immutable field changed) and the object says
   * `kpt-ts.dev/update-strategy: replace-on-immutable`: it is deleted, then created again. Why:
   * the server's words (`spec.template: Invalid value: ...: field is immutable`).
   */
  replace?: string;
}

/**
 * An object's own wait (`kpt-ts.dev/wait`, `kpt-ts.dev/reconcile-timeout`, `--wait-for-jobs`):
 * until it completes (a Job), not at all (nor does it hold its dependents), or at most its own timeout.
 */
export interface ObjectWait {
  until?: "complete" | "none";
  /** Its own timeout, and as written (`90s`), which the output names when it hits. */
  timeout?: { ms: number; text: string };
}

/** A hook of the package (`kpt-ts.dev/hook`) in one phase of the run: created, waited for, deleted as its policy says. */
export interface PlannedHook {
  ref: ObjRef;
  phase: HookPhase;
  /** How it is created: a create of the object as the package has it (namespace assigned, owning-inventory annotation set). */
  create: PlannedApply;
  source: SourcePos;
  /** The hook object an earlier run (or kpt, which applies hooks as plain objects) left: deleted before it is created again. */
  live?: KubeObject;
  /** Empty: kept until it runs again (`before-hook-creation`, the default). */
  deletePolicy: HookDeletePolicy[];
  weight: number;
  /** Index into the phase's hook waves (by weight, then depends-on among the phase's hooks). */
  wave: number;
  /** A Job is waited for until it completes; any other kind until it is reconciled (`Current`). */
  complete: boolean;
  /** Its own timeout (`kpt-ts.dev/reconcile-timeout`); else the run's reconcile timeout. */
  timeout?: { ms: number; text: string };
  /** Why it may not be created (the object left in its place belongs to another inventory): the hook fails. */
  refusal?: string;
}

export interface PlannedDelete {
  ref: ObjRef;
  /** The object in the cluster before the run; absent only when it could not be read. */
  live?: KubeObject;
  /**
   * kpt's decision in its filter order: protection, inventory policy, namespace in use, then a
   * dependent the run still applies. A `delete` may still be skipped at run time, when one of
   * `dependents` (also deleted) failed to go away first.
   */
  decision: PruneDecision;
  /** Why the object's state is unknown (its kind could not be read): it fails, and stays listed. */
  unreadable?: string;
  /** Index into the plan's delete waves. */
  wave: number;
  /** Objects deleted by this run that depend on it: they must be gone first. */
  dependents: ObjRef[];
}

export interface PlannedInventory {
  info: InventoryInfo;
  /** The ResourceGroup (or ApplySet parent) in the cluster, as read; absent when there is none. */
  stored?: KubeObject;
  /** What it lists (an ApplySet: the objects carrying its part-of label in its scope). */
  previous: ObjRef[];
}

/** What an ApplySet's parent names (KEP-3659's hints): its members' group-kinds and their namespaces besides its own. */
export interface ApplySetScope {
  /** `Kind.group` (`Kind` for the core group), sorted, unique. */
  groupKinds: string[];
  /** Sorted, unique; never the parent's namespace. */
  namespaces: string[];
}

/** A right a run needs, as a SelfSubjectAccessReview asks about it. */
export interface AccessRight {
  verb: "get" | "list" | "create" | "update" | "patch" | "delete";
  group: string;
  kind: string;
  /** "" for a cluster-scoped kind. */
  namespace: string;
}

/**
 * One step of a run. The planners write the list (plan/plan-steps.ts) and one runner performs any
 * list, step by step, each by the handler of its type (engine/run-steps.ts). A step names objects
 * by ref; what happens to each one is the plan's `applies` and `deletes`. A dry run's list waits
 * for nothing and writes no inventory.
 */
export type RunStep =
  /** The ResourceGroup CRD is missing: create it and wait until it is established. */
  | { type: "install-crd" }
  /**
   * Store the inventory before the first apply, so an interrupted run orphans nothing: `refs`
   * (absent when the stored one lists every object already), after `namespace`, the package's
   * Namespace the inventory lives in, applied as the plan says (its wave reports it).
   */
  | { type: "inventory-add"; refs?: ObjRef[]; namespace?: ObjRef }
  /** Apply a wave's objects, in parallel. */
  | { type: "apply"; wave: number; refs: ObjRef[] }
  /** Wait until what the wave wrote is reconciled (`Current`) or gone (`NotFound`), at most `timeoutMs`. */
  | { type: "wait"; wave: number; refs: ObjRef[]; until: "Current" | "NotFound"; timeoutMs?: number }
  /** Wait (bounded) until discovery serves the kinds the wave's CRDs define, so later waves can use them. */
  | { type: "serve-kinds"; wave: number; crds: ObjRef[] }
  /** Delete a wave's objects (apply's prune, or destroy), dependents first. */
  | { type: "delete"; wave: number; refs: ObjRef[]; action: "prune" | "delete" }
  /** Store the final inventory: every object that may exist, with its status. */
  | { type: "inventory-set" }
  /** Destroy's end: delete the inventory once it lists nothing, else store what is left. */
  | { type: "inventory-delete" }
  /**
   * Before the first write: ask the server (SelfSubjectAccessReview) for every right the writes
   * need, and stop, naming the missing ones, when any is refused. Planned for ApplySet runs.
   */
  | { type: "check-rights"; rights: AccessRight[] }
  /**
   * An ApplySet's parent before the first apply: created, or extended to `scope` (the stored
   * scope and the package's), so an interrupted run orphans nothing (absent when the stored
   * parent covers the package already); after `namespace`, as for `inventory-add`.
   */
  | { type: "applyset-add"; scope?: ApplySetScope; namespace?: ObjRef }
  /** An ApplySet's parent after the run: exactly the scope of the members that may still exist. */
  | { type: "applyset-set" }
  /** Destroy's end for an ApplySet: delete its parent once no member may be left, else narrow it to theirs. */
  | { type: "applyset-delete" }
  /**
   * Create the hooks of one wave of a phase (docs/lifecycle.md); a hook object left by an earlier
   * run is deleted first, and waited for until it is gone. The inventory lists them already.
   */
  | { type: "hook-apply"; phase: HookPhase; wave: number; refs: ObjRef[] }
  /**
   * Wait until the wave's hooks complete (a Job) or are reconciled, each at most its own timeout
   * or `timeoutMs`, then delete them as their policy says. A pre-apply or pre-destroy hook that
   * fails ends the run before the package is touched.
   */
  | { type: "hook-wait"; phase: HookPhase; wave: number; refs: ObjRef[]; timeoutMs?: number }
  /**
   * Delete, in the foreground, objects whose update the server refuses (an immutable field), and
   * wait until they are gone, at most `timeoutMs`: the wave's apply creates them again.
   */
  | { type: "replace"; wave: number; refs: ObjRef[]; timeoutMs?: number };

export type StepOf<T extends RunStep["type"]> = Extract<RunStep, { type: T }>;

export interface ApplyPlan {
  command: "apply";
  inventory: PlannedInventory;
  /** What the run does, in order. */
  steps: RunStep[];
  /** The ResourceGroup CRD is missing and will be installed first. */
  installCrd: boolean;
  /** Package objects, in apply order (wave by wave, kind order within a wave). */
  applies: PlannedApply[];
  /** Waves of `applies`; each waits for the one before to reconcile. */
  applyWaves: ObjRef[][];
  /** Inventory objects that left the package and still exist (or cannot be read), in delete order. */
  deletes: PlannedDelete[];
  /** Waves of `deletes`, dependents first; each is gone before the next starts. */
  deleteWaves: ObjRef[][];
  /** Namespaces the package (or its inventory) still uses: never pruned. */
  namespacesInUse: string[];
  /**
   * The list stored before the first apply (the stored one plus every package object), so an
   * interrupted run orphans nothing; absent when the stored inventory already lists them all.
   */
  initialInventory?: ObjRef[];
  /** The package's Namespace of the inventory, created before the inventory when it is missing. */
  inventoryNamespace?: PackageObject;
  /**
   * An ApplySet: the scope its parent names before the first apply (the stored one's and the
   * package's), when the stored parent does not cover the package yet, or is missing, or must be
   * taken over from another tool.
   */
  initialParent?: ApplySetScope;
  /** The hooks the run runs (pre-apply, post-apply), in order; none when the plan changes nothing. */
  hooks?: PlannedHook[];
  /** Hook objects earlier runs left that the inventory lists and that still exist: they stay listed while they exist. */
  keptHooks?: ObjRef[];
}

export interface DestroyPlan {
  command: "destroy";
  inventory: PlannedInventory;
  steps: RunStep[];
  /** Everything the inventory lists that still exists (or cannot be read), in delete order. */
  deletes: PlannedDelete[];
  deleteWaves: ObjRef[][];
  /** The hooks the run runs (pre-destroy, post-destroy), in order; none when it deletes nothing. */
  hooks?: PlannedHook[];
}

export type RunPlan = ApplyPlan | DestroyPlan;

/** Every object the steps act on, in their order (apply waves, then prune or delete waves). */
export function plannedObjects(steps: readonly RunStep[]): PlannedObject[] {
  return steps.flatMap((s): PlannedObject[] => {
    if (s.type === "apply") return s.refs.map((ref) => ({ ref, action: "Apply" }));
    if (s.type === "delete") return s.refs.map((ref) => ({ ref, action: s.action === "prune" ? "Prune" : "Delete" }));
    return [];
  });
}

export interface PlannedObject {
  ref: ObjRef;
  action: "Apply" | "Prune" | "Delete";
}

/** How many objects each operation touches: what the plan would change, at a glance. */
export interface PlanCounts {
  create: number;
  update: number;
  unchanged: number;
  delete: number;
  skip: number;
}

export function countPlan(plan: RunPlan): PlanCounts {
  const c: PlanCounts = { create: 0, update: 0, unchanged: 0, delete: 0, skip: 0 };
  if (plan.command === "apply") for (const a of plan.applies) a.skip ? c.skip++ : c[a.operation]++;
  for (const d of plan.deletes) d.decision.action === "delete" && !d.unreadable ? c.delete++ : c.skip++;
  return c;
}

/**
 * True when performing the plan would write nothing to the cluster: nothing to create, update or
 * delete, no object to let go of (detach), no CRD to install, no inventory to extend.
 */
export function planChangesNothing(plan: RunPlan): boolean {
  const c = countPlan(plan);
  const detaches = plan.deletes.some((d) => d.decision.action === "skip" && d.decision.abandon);
  if (plan.command === "destroy") return c.delete === 0 && !detaches;
  return c.create + c.update + c.delete === 0 && !detaches && !plan.installCrd && !plan.initialInventory && !plan.initialParent;
}
