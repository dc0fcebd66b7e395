// The apply planner: facts and options in, the whole run out (apply waves with each object's
// operation or skip, prune waves with kpt's decisions, the inventory to store first). Pure:
// nothing here reads the cluster, so `live diff`, `--dry-run`, the confirmation prompt and the
// run itself all see one plan.

import { coversScope, parentOwnership, parentRef, parentRefusal, scopeOf, storedScope, unionScope } from "../inventory/applyset.js";
import { crdMissingError } from "../inventory/cluster-inventory.js";
import { formatBytes, inventoryBytes, inventoryFit, objectsThatFit } from "../inventory/inventory-size.js";
import type { InventoryPolicy } from "../inventory/policy.js";
import { ClusterError, PackageError, type PackageIssue } from "../model/errors.js";
import { CREATE_ONLY_ANNOTATION, hasLeftAloneAnnotations, IGNORE_FIELDS_ANNOTATION, leftAloneRules } from "../apply/left-alone.js";
import { refKey, refOf, RefSet, type ObjRef } from "../model/ref.js";
import type { InventoryInfo, KubeObject, PackageObject } from "../model/kube-object.js";
import { graphIssuesError } from "../order/graph-issues.js";
import { orderWaves } from "../order/graph.js";
import { pruneCandidates, stillThere } from "../prune/candidates.js";
import { dependencyDeleted } from "../order/dependency-gate.js";
import { schemaKey, type ApplyFacts } from "./facts.js";
import { invertDependencies, planDeletes } from "./plan-deletes.js";
import type { ApplyPlan, ApplySetScope, PlannedApply } from "../model/plan.js";
import { decideObject } from "./plan-object.js";
import { rightsNeeded } from "./plan-rights.js";
import { applySteps, stepsOf, type StepOptions } from "./plan-steps.js";
import { checkDependenciesOnHooks, planHooks, refuseUnreachableHooks, splitHooks } from "./plan-hooks.js";
import { planChangesNothing, type ObjectWait } from "../model/plan.js";
import { lifecycleRules } from "../object/lifecycle-annotations.js";

export interface PlanApplyOptions extends StepOptions {
  dryRun: boolean;
  serverSide: boolean;
  fieldManager: string;
  inventoryPolicy: InventoryPolicy;
  /** Install the ResourceGroup CRD when it is missing (else a real run stops). */
  installResourceGroup: boolean;
  /** Every Job is waited for until it completes (`--wait-for-jobs`), as `kpt-ts.dev/wait: complete` asks of one. */
  waitForJobs?: boolean;
}

export function planApply(facts: ApplyFacts, o: PlanApplyOptions): ApplyPlan {
  const info = facts.inventory.info;
  if (!facts.inventory.crdInstalled && !o.dryRun && !o.installResourceGroup) throw crdMissingError();
  const byKey = new Map(facts.objects.map((po) => [refKey(refOf(po.object)), po]));
  // Hooks (docs/lifecycle.md) are not the package's objects: they are neither applied in its
  // waves nor, while the package has them, pruned.
  const { objects, hooks: hookObjects } = splitHooks(facts.objects);
  const localRefs = new RefSet(facts.objects.map((po) => refOf(po.object)));
  const packageRefs = hookObjects.length ? new RefSet(objects.map((po) => refOf(po.object))) : localRefs;
  const hookRefs = new RefSet(hookObjects.map((po) => refOf(po.object)));
  const candidates = stillThere(pruneCandidates(facts.inventory.previous, localRefs), facts.live, facts.unreadable);
  const deleting = new RefSet(candidates);

  // Prune candidates are in the graph so that depending on one is "scheduled for delete", not
  // external; hooks so that depending on one is checked (checkDependenciesOnHooks).
  const ordered = orderWaves([...objects.map((po) => ({ ref: refOf(po.object), object: po.object })), ...candidates.map((ref) => ({ ref })), ...hookRefs.toArray().map((ref) => ({ ref }))]);
  if (ordered.issues.length) throw graphIssuesError(ordered.issues, facts.objects);
  refuseBadLeftAloneRules(objects);
  if (hookObjects.length) {
    const issues = checkDependenciesOnHooks(objects, hookObjects, ordered.dependencies);
    if (issues.length) throw new PackageError(issues, "See docs/lifecycle.md for what hooks may depend on.");
  }
  const applyWaves = ordered.waves.map((w) => w.filter((r) => packageRefs.has(r))).filter((w) => w.length);

  const namespacesInUse = new Set<string>([info.namespace, ...facts.objects.map((po) => po.object.metadata.namespace ?? "").filter(Boolean)]);
  const appliedDependents = invertDependencies(ordered.dependencies, packageRefs);
  const { deletes, waves: deleteWaves } = planDeletes({
    refs: candidates,
    live: facts.live,
    unreadable: facts.unreadable,
    inventoryId: info.id,
    policy: o.inventoryPolicy,
    namespacesInUse,
    appliedDependents,
  });

  const applies: PlannedApply[] = [];
  applyWaves.forEach((wave, index) => {
    for (const ref of wave) {
      const po = byKey.get(refKey(ref))!;
      // A pre-apply hook has completed before any object is applied: not a dependency to gate on.
      const dependencies = (ordered.dependencies.get(refKey(ref)) ?? []).filter((d) => !hookRefs.has(d));
      const wait = objectWait(po.object, o);
      const live = facts.live.get(refKey(ref));
      const unreadable = live ? undefined : facts.unreadable.get(refKey(ref));
      const { refusal, ...decided } = decideObject(po.object, live, facts.schemas.get(schemaKey(po.object)), { ...o, inventoryId: info.id });
      const deletedDependency = dependencies.find((d) => deleting.has(d));
      const skip = refusal ?? (deletedDependency ? dependencyDeleted(deletedDependency) : undefined);
      applies.push({
        ref,
        object: po.object,
        source: po.source,
        ...(live ? { live } : {}),
        ...(unreadable ? { unreadable } : {}),
        ...decided,
        ...(skip ? { skip } : {}),
        wave: index,
        dependencies,
        ...(wait ? { wait } : {}),
      });
    }
  });

  const previous = new RefSet(facts.inventory.previous);
  const union = previous.union(packageRefs);
  const stored = facts.inventory.stored;
  const nsObject = byKey.get(refKey({ group: "", kind: "Namespace", namespace: "", name: info.namespace }));
  const unwaited = new Set(applies.filter((a) => a.wait?.until === "none").map((a) => refKey(a.ref)));
  const common = {
    applyWaves,
    deleteWaves,
    ...(nsObject && !facts.live.has(refKey(refOf(nsObject.object))) ? { inventoryNamespace: nsObject } : {}),
  };
  // An ApplySet lists nothing: its parent names the kinds and namespaces to find members in.
  const parts = info.applySet
    ? { installCrd: false, ...common, ...initialParent(info, packageRefs, stored, o.inventoryPolicy) }
    : { installCrd: !facts.inventory.crdInstalled, ...common, ...(!stored || union.size !== previous.size ? { initialInventory: union.toArray() } : {}) };
  // An inventory the run does not grow is one the server already stores.
  if ("initialInventory" in parts && parts.initialInventory) refuseOversizedInventory(info, parts.initialInventory, stored);
  const parent = info.applySet ? { ref: parentRef(info), exists: Boolean(stored), changed: "initialParent" in parts } : undefined;
  const plan: ApplyPlan = {
    command: "apply",
    inventory: { info, ...(stored ? { stored } : {}), previous: facts.inventory.previous },
    ...stepsOf((so) => applySteps({ ...parts, unwaited }, so, parent ? { rights: rightsNeeded({ applies, deletes, parent }) } : undefined), o),
    applies,
    deletes,
    namespacesInUse: [...namespacesInUse],
    ...parts,
  };
  if (!hookObjects.length) return plan;
  // Hook objects earlier runs left stay listed while they exist; hooks run only when the run
  // changes something (a no-op runs none and writes nothing).
  const keptHooks = hookRefs.toArray().filter((r) => previous.has(r) && facts.live.has(refKey(r)));
  const kept = keptHooks.length ? { keptHooks } : {};
  if (planChangesNothing(plan)) return { ...plan, ...kept };
  const hooks = planHooks(hookObjects, ["pre-apply", "post-apply"], { ...o, inventoryId: info.id, live: facts.live });
  if (!hooks.length) return { ...plan, ...kept };
  // Namespaces this apply creates in its waves (the inventory's is created before the hooks).
  const createdLater = objects
    .filter((po) => po.object.apiVersion === "v1" && po.object.kind === "Namespace" && !facts.live.has(refKey(refOf(po.object))) && po !== parts.inventoryNamespace)
    .map((po) => po.object.metadata.name ?? "");
  refuseUnreachableHooks(hooks, { createdLater: new Set(createdLater) });
  if (parent) {
    // The parent names the hooks' kinds and namespaces before the first is created.
    const hookParent = initialParent(info, [...packageRefs, ...hooks.map((h) => h.ref)], stored, o.inventoryPolicy).initialParent;
    const rights = rightsNeeded({ applies, deletes, hooks, parent: { ...parent, changed: Boolean(hookParent) } });
    return { ...plan, ...kept, hooks, ...stepsOf((so) => applySteps({ ...parts, unwaited, hooks, ...(hookParent ? { hookParent } : {}) }, so, { rights }), o) };
  }
  const withHooks = union.union(hooks.map((h) => h.ref));
  const hookInventory = withHooks.size !== previous.size ? { hookInventory: withHooks.toArray() } : {};
  refuseOversizedInventory(info, withHooks.toArray(), stored);
  return { ...plan, ...kept, hooks, ...stepsOf((so) => applySteps({ ...parts, unwaited, hooks, ...hookInventory }, so), o) };
}

/** How the run waits for one object, when not as for its wave: its own annotations, then `--wait-for-jobs`. */
function objectWait(obj: KubeObject, o: Pick<PlanApplyOptions, "waitForJobs">): ObjectWait | undefined {
  const rules = lifecycleRules(obj);
  const isJob = obj.kind === "Job" && /^batch\//.test(obj.apiVersion);
  const until = rules.wait ?? (o.waitForJobs && isJob ? "complete" : undefined);
  if (!until && !rules.reconcileTimeout) return undefined;
  return { ...(until ? { until } : {}), ...(rules.reconcileTimeout ? { timeout: rules.reconcileTimeout } : {}) };
}

/**
 * What an ApplySet's parent must name before the first apply (kubectl's superset: the stored
 * scope and the package's), when the stored parent does not already cover the package as
 * kpt-ts's own. A parent kpt-ts may not write stops the run here, before anything is written.
 */
function initialParent(info: InventoryInfo, localRefs: Iterable<ObjRef>, stored: KubeObject | undefined, policy: InventoryPolicy): { initialParent?: ApplySetScope } {
  const wanted = scopeOf(localRefs, info.namespace);
  if (!stored) return { initialParent: wanted };
  const refusal = parentRefusal(stored, info, policy);
  if (refusal) throw new ClusterError(refusal);
  const current = storedScope(stored);
  const ours = parentOwnership(stored, info) === "ours";
  return ours && coversScope(current, wanted) ? {} : { initialParent: unionScope(current, wanted) };
}

/** The kpt-ts.dev rules of what objects leave to others must all make sense before anything is decided. */
function refuseBadLeftAloneRules(objects: readonly PackageObject[]): void {
  const issues: PackageIssue[] = [];
  for (const po of objects) {
    if (!hasLeftAloneAnnotations(po.object)) continue;
    for (const message of leftAloneRules(po.object).problems) {
      const annotation = message.startsWith(CREATE_ONLY_ANNOTATION) ? CREATE_ONLY_ANNOTATION : IGNORE_FIELDS_ANNOTATION;
      const line = po.lineOf?.(["metadata", "annotations", annotation]) ?? po.source.line;
      issues.push({ source: { ...po.source, line }, object: `${po.object.kind}/${po.object.metadata.name ?? ""}`, message });
    }
  }
  if (issues.length) throw new PackageError(issues, "See docs/other-controllers.md for the annotations kpt-ts reads.");
}

/**
 * The inventory must list every object the run may leave behind in one ResourceGroup: when even
 * that list is more than the server stores in one object, nothing is written (exit 2).
 */
function refuseOversizedInventory(info: InventoryInfo, refs: ObjRef[], stored: KubeObject | undefined): void {
  if (inventoryFit(info, refs, undefined, stored) !== "none") return;
  const fit = objectsThatFit(info, refs, stored);
  const n = (x: number) => x.toLocaleString("en-US");
  throw new PackageError(
    [
      {
        object: `ResourceGroup ${info.namespace}/${info.name}`,
        message:
          `the inventory would list ${n(refs.length)} objects (${formatBytes(inventoryBytes(info, refs, undefined, stored))}), more than the API server can store in one object ` +
          `(etcd's request limit, 1.5 MiB by default): at most ${n(fit.listOnly)} objects like these fit in one inventory, ${n(fit.withStatuses)} with their statuses. Nothing was written.`,
      },
    ],
    `Use an ApplySet inventory, which lists nothing and has no such ceiling: \`kpt-ts live migrate --to applyset\` moves this package's inventory to one, ` +
      `or \`kpt-ts live init --inventory-kind applyset\` starts one for a new package (docs/inventories.md). ` +
      `Or split the package into packages of at most ${n(fit.listOnly)} objects, each with its own inventory, ` +
      `and pass --status-policy=none to those of more than ${n(fit.withStatuses)} objects (else their statuses are left out of the inventory, with a warning).`,
  );
}
