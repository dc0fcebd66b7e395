// The hooks of a run (docs/lifecycle.md): the package's objects annotated `kpt-ts.dev/hook`, one
// planned hook per phase the run has, each created as the run creates objects and ordered into
// waves within its phase: by `kpt-ts.dev/hook-weight` (lowest first), then by depends-on among the
// phase's hooks. A package object may depend on a pre-apply hook (met before any package object is
// applied), never on one that runs later. Every problem is thrown here, before anything is
// written. Pure.

import { PackageError, type PackageIssue } from "../model/errors.js";
import { isHook, HOOK_ANNOTATION, type HookPhase } from "../model/lifecycle-keys.js";
import type { KubeObject, PackageObject } from "../model/kube-object.js";
import type { PlannedHook } from "../model/plan.js";
import { formatDependsOnRef, refKey, refOf, RefSet, type ObjRef } from "../model/ref.js";
import { lifecycleRules } from "../object/lifecycle-annotations.js";
import { DEPENDS_ON_ANNOTATION, readDependsOn } from "../order/depends-on.js";
import { policyRefusal } from "../inventory/policy.js";
import { decideObject, type ObjectPlanOptions } from "./plan-object.js";

/** The package's objects less its hooks, and its hooks. */
export function splitHooks(objects: readonly PackageObject[]): { objects: PackageObject[]; hooks: PackageObject[] } {
  const hooks = objects.filter((po) => isHook(po.object));
  return hooks.length ? { objects: objects.filter((po) => !isHook(po.object)), hooks } : { objects: [...objects], hooks };
}

export interface HookPlanOptions extends ObjectPlanOptions {
  /** The run's live objects by refKey (a hook left by an earlier run). */
  live: ReadonlyMap<string, KubeObject>;
}

/** The hooks of `phases`, phase by phase, each phase's in wave order. Throws a PackageError for bad ordering. */
export function planHooks(hooks: readonly PackageObject[], phases: readonly HookPhase[], o: HookPlanOptions): PlannedHook[] {
  const issues: PackageIssue[] = [];
  const planned = phases.flatMap((phase) => planPhase(hooks, phase, o, issues));
  if (issues.length) throw new PackageError(issues, "See docs/lifecycle.md for how hooks are ordered.");
  return planned;
}

function planPhase(all: readonly PackageObject[], phase: HookPhase, o: HookPlanOptions, issues: PackageIssue[]): PlannedHook[] {
  const inPhase = all.filter((po) => lifecycleRules(po.object).hook?.phases.includes(phase));
  if (!inPhase.length) return [];
  const byKey = new Map(inPhase.map((po) => [refKey(refOf(po.object)), po]));
  const weight = (po: PackageObject) => lifecycleRules(po.object).hook?.weight ?? 0;
  const otherHooks = new RefSet(all.map((po) => refOf(po.object)));
  const issue = (po: PackageObject, message: string, annotation = DEPENDS_ON_ANNOTATION) =>
    issues.push({ source: { ...po.source, line: po.lineOf?.(["metadata", "annotations", annotation]) ?? po.source.line }, object: `${po.object.kind}/${po.object.metadata.name ?? ""}`, message });

  // Each hook's dependencies among the phase's hooks of its own weight; the rest checked here.
  const deps = new Map<string, string[]>();
  for (const po of inPhase) {
    const key = refKey(refOf(po.object));
    const read = readDependsOn(po.object);
    if (!read.ok) {
      issue(po, read.message);
      continue;
    }
    const same: string[] = [];
    for (const ref of read.refs) {
      const dep = byKey.get(refKey(ref));
      if (dep) {
        if (weight(dep) > weight(po)) issue(po, `depends on ${formatDependsOnRef(ref)}, a ${phase} hook of weight ${weight(dep)}, which runs after this one (weight ${weight(po)}): give it a lower weight or remove the dependency`);
        else if (weight(dep) === weight(po)) same.push(refKey(ref));
      } else if (otherHooks.has(ref)) {
        issue(po, `depends on ${formatDependsOnRef(ref)}, a hook that does not run in ${phase}: a hook may depend only on hooks of its own phase`);
      } else if (phase === "pre-apply" || phase === "post-destroy") {
        issue(po, `depends on ${formatDependsOnRef(ref)}, which does not exist while ${phase} hooks run (${phase === "pre-apply" ? "before the package is applied" : "after it is deleted"}): a hook may depend only on hooks of its phase`);
      }
      // post-apply and pre-destroy hooks run while the package's objects exist: met already.
    }
    deps.set(key, same);
  }

  // Depth within a weight: one more than the deepest dependency; a cycle is refused.
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (key: string): number => {
    const known = depth.get(key);
    if (known !== undefined) return known;
    if (visiting.has(key)) {
      issue(byKey.get(key)!, `hooks of ${phase} depend on each other in a cycle (${[...visiting].map((k) => formatDependsOnRef(refOf(byKey.get(k)!.object))).join(" -> ")}): remove one of these dependencies`);
      depth.set(key, 0);
      return 0;
    }
    visiting.add(key);
    const d = Math.max(0, ...(deps.get(key) ?? []).map((k) => depthOf(k) + 1));
    visiting.delete(key);
    depth.set(key, d);
    return d;
  };
  const slots = inPhase.map((po) => ({ po, weight: weight(po), depth: depthOf(refKey(refOf(po.object))) }));
  const waveKeys = [...new Map(slots.map((s) => [[s.weight, s.depth].join("/"), [s.weight, s.depth] as const])).values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const waveOf = (s: { weight: number; depth: number }) => waveKeys.findIndex(([w, d]) => w === s.weight && d === s.depth);

  return slots
    .map(({ po, ...slot }): PlannedHook => {
      const ref = refOf(po.object);
      const rules = lifecycleRules(po.object);
      const live = o.live.get(refKey(ref));
      // Created as the run creates objects: client-side (with its last-applied copy) or server-side.
      const { refusal, ...decided } = decideObject(po.object, undefined, undefined, o);
      // The object an earlier run left is deleted first: only when the inventory policy lets the run touch it.
      const liveRefusal = live ? policyRefusal(live, o.inventoryId, o.inventoryPolicy, "Apply") : undefined;
      const why = refusal ?? liveRefusal;
      return {
        ref,
        phase,
        create: { ref, object: po.object, source: po.source, ...decided, wave: -1, dependencies: [] },
        source: po.source,
        ...(live ? { live } : {}),
        deletePolicy: rules.hook?.deletePolicy ?? [],
        weight: slot.weight,
        wave: waveOf(slot),
        complete: po.object.kind === "Job" && /^batch\//.test(po.object.apiVersion),
        ...(rules.reconcileTimeout ? { timeout: rules.reconcileTimeout } : {}),
        ...(why ? { refusal: why } : {}),
      };
    })
    .sort((a, b) => a.wave - b.wave);
}

/**
 * A package object's dependencies on hooks: one on a pre-apply hook is met before the package is
 * applied (dropped); one on any other hook can never be met while the package is applied (an
 * issue, at the depends-on line).
 */
export function checkDependenciesOnHooks(objects: readonly PackageObject[], hooks: readonly PackageObject[], dependencies: ReadonlyMap<string, ObjRef[]>): PackageIssue[] {
  const preApply = new RefSet(hooks.filter((po) => lifecycleRules(po.object).hook?.phases.includes("pre-apply")).map((po) => refOf(po.object)));
  const anyHook = new RefSet(hooks.map((po) => refOf(po.object)));
  const issues: PackageIssue[] = [];
  for (const po of objects) {
    for (const dep of dependencies.get(refKey(refOf(po.object))) ?? []) {
      if (!anyHook.has(dep) || preApply.has(dep)) continue;
      issues.push({
        source: { ...po.source, line: po.lineOf?.(["metadata", "annotations", DEPENDS_ON_ANNOTATION]) ?? po.source.line },
        object: `${po.object.kind}/${po.object.metadata.name ?? ""}`,
        message: `depends on ${formatDependsOnRef(dep)}, a hook that does not run before the package is applied (${HOOK_ANNOTATION}): depend only on pre-apply hooks, or make it a pre-apply hook`,
      });
    }
  }
  return issues;
}

/**
 * Hooks that cannot be created where their phase runs: a pre-apply hook in a namespace this apply
 * creates only after its pre-apply hooks (`createdLater`), a post-destroy hook in one the destroy
 * deletes first (`deletedBefore`). Throws a PackageError (bad input) naming each.
 */
export function refuseUnreachableHooks(hooks: readonly PlannedHook[], o: { createdLater?: ReadonlySet<string>; deletedBefore?: ReadonlySet<string> }): void {
  const issues: PackageIssue[] = [];
  for (const h of hooks) {
    const ns = h.ref.namespace;
    if (!ns) continue;
    const why =
      h.phase === "pre-apply" && o.createdLater?.has(ns)
        ? `a pre-apply hook in namespace "${ns}", which this apply creates only after its pre-apply hooks ran: create the namespace first (kubectl create namespace ${ns}), or make it the inventory's namespace (created before the hooks)`
        : h.phase === "post-destroy" && o.deletedBefore?.has(ns)
          ? `a post-destroy hook in namespace "${ns}", which this destroy deletes before its post-destroy hooks run: put the hook in a namespace the package does not delete`
          : undefined;
    if (why) issues.push({ source: h.source, object: `${h.ref.kind}/${h.ref.name}`, message: why });
  }
  if (issues.length) throw new PackageError(issues, "See docs/lifecycle.md for where hooks run.");
}
