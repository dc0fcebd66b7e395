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
import { dependencyDeleted } from "../prune/dependency-gate.js";
import { schemaKey, type ApplyFacts } from "./facts.js";
import { invertDependencies, planDeletes } from "./plan-deletes.js";
import type { ApplyPlan, ApplySetScope, PlannedApply } from "../model/plan.js";
import { decideObject } from "./plan-object.js";
import { rightsNeeded } from "./plan-rights.js";
import { applySteps, type StepOptions } from "./plan-steps.js";

export interface PlanApplyOptions extends StepOptions {
  dryRun: boolean;
  serverSide: boolean;
  fieldManager: string;
  inventoryPolicy: InventoryPolicy;
  /** Install the ResourceGroup CRD when it is missing (else a real run stops). */
  installResourceGroup: boolean;
}

export function planApply(facts: ApplyFacts, o: PlanApplyOptions): ApplyPlan {
  const info = facts.inventory.info;
  if (!facts.inventory.crdInstalled && !o.dryRun && !o.installResourceGroup) throw crdMissingError();
  const byKey = new Map(facts.objects.map((po) => [refKey(refOf(po.object)), po]));
  const localRefs = new RefSet(facts.objects.map((po) => refOf(po.object)));
  const candidates = stillThere(pruneCandidates(facts.inventory.previous, localRefs), facts.live, facts.unreadable);
  const deleting = new RefSet(candidates);

  // Prune candidates are in the graph so that depending on one is "scheduled for delete", not external.
  const ordered = orderWaves([...facts.objects.map((po) => ({ ref: refOf(po.object), object: po.object })), ...candidates.map((ref) => ({ ref }))]);
  if (ordered.issues.length) throw graphIssuesError(ordered.issues, facts.objects);
  refuseBadLeftAloneRules(facts.objects);
  const applyWaves = ordered.waves.map((w) => w.filter((r) => localRefs.has(r))).filter((w) => w.length);

  const namespacesInUse = new Set<string>([info.namespace, ...facts.objects.map((po) => po.object.metadata.namespace ?? "").filter(Boolean)]);
  const appliedDependents = invertDependencies(ordered.dependencies, localRefs);
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
      const dependencies = ordered.dependencies.get(refKey(ref)) ?? [];
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
      });
    }
  });

  const previous = new RefSet(facts.inventory.previous);
  const union = previous.union(localRefs);
  const stored = facts.inventory.stored;
  const nsObject = byKey.get(refKey({ group: "", kind: "Namespace", namespace: "", name: info.namespace }));
  const common = {
    applyWaves,
    deleteWaves,
    ...(nsObject && !facts.live.has(refKey(refOf(nsObject.object))) ? { inventoryNamespace: nsObject } : {}),
  };
  // An ApplySet lists nothing: its parent names the kinds and namespaces to find members in.
  const parts = info.applySet
    ? { installCrd: false, ...common, ...initialParent(info, localRefs, stored, o.inventoryPolicy) }
    : { installCrd: !facts.inventory.crdInstalled, ...common, ...(!stored || union.size !== previous.size ? { initialInventory: union.toArray() } : {}) };
  if (!info.applySet) refuseOversizedInventory(info, union.toArray(), stored);
  const rights = info.applySet ? { rights: rightsNeeded({ applies, deletes, parent: { ref: parentRef(info), exists: Boolean(stored), changed: "initialParent" in parts } }) } : undefined;
  return {
    command: "apply",
    inventory: { info, ...(stored ? { stored } : {}), previous: facts.inventory.previous },
    steps: applySteps(parts, o, rights),
    applies,
    deletes,
    namespacesInUse: [...namespacesInUse],
    ...parts,
  };
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
