// Reads and checks kpt-ts' lifecycle annotations on one object (model/lifecycle-keys.ts,
// docs/lifecycle.md): every problem is found while the package is read, so a bad value stops the
// run before the cluster is touched, naming the file and the annotation's line. Pure.

import {
  HOOK_ANNOTATION,
  HOOK_DELETE_POLICIES,
  HOOK_DELETE_POLICY_ANNOTATION,
  HOOK_PHASES,
  HOOK_WEIGHT_ANNOTATION,
  RECONCILE_TIMEOUT_ANNOTATION,
  UPDATE_STRATEGIES,
  UPDATE_STRATEGY_ANNOTATION,
  WAIT_ANNOTATION,
  WAIT_VALUES,
  type HookDeletePolicy,
  type HookPhase,
  type WaitMode,
} from "../model/lifecycle-keys.js";
import type { KubeObject } from "../model/kube-object.js";
import { goDurationMs } from "./go-duration.js";

export interface HookRules {
  phases: HookPhase[];
  /** Empty: `before-hook-creation` alone (the default). */
  deletePolicy: HookDeletePolicy[];
  weight: number;
}

export interface LifecycleRules {
  wait?: WaitMode;
  /** The object's own reconcile timeout, and as written (`90s`), for messages. */
  reconcileTimeout?: { ms: number; text: string };
  hook?: HookRules;
  replaceOnImmutable?: true;
}

export interface LifecycleProblem {
  /** The annotation at fault (its line is the one to show). */
  annotation: string;
  message: string;
}

const ANNOTATIONS = [WAIT_ANNOTATION, RECONCILE_TIMEOUT_ANNOTATION, HOOK_ANNOTATION, HOOK_DELETE_POLICY_ANNOTATION, HOOK_WEIGHT_ANNOTATION, UPDATE_STRATEGY_ANNOTATION];

/** True when the object carries any of them (most objects carry none: nothing to read). */
export function hasLifecycleAnnotations(obj: KubeObject): boolean {
  const a = obj.metadata.annotations;
  return a !== undefined && ANNOTATIONS.some((k) => a[k] !== undefined);
}

const isJob = (obj: KubeObject) => obj.kind === "Job" && /^batch\//.test(obj.apiVersion);

/** Parses a comma-separated list of known words: the words, or the problem. */
function wordList<T extends string>(value: string, known: readonly T[], what: string): T[] | string {
  const words = value.split(",").map((w) => w.trim());
  const unknown = words.filter((w) => !(known as readonly string[]).includes(w));
  if (words.every((w) => w === "")) return `is empty: give one or more of ${known.join(", ")}`;
  if (unknown.length) return `${unknown.map((w) => JSON.stringify(w)).join(", ")} is not a ${what}: use ${known.join(", ")} (a comma-separated list)`;
  const dup = words.find((w, i) => words.indexOf(w) !== i);
  if (dup) return `names ${JSON.stringify(dup)} twice`;
  return words as T[];
}

export function readLifecycle(obj: KubeObject): { rules: LifecycleRules; problems: LifecycleProblem[] } {
  const a = obj.metadata.annotations ?? {};
  const rules: LifecycleRules = {};
  const problems: LifecycleProblem[] = [];
  const problem = (annotation: string, message: string) => problems.push({ annotation, message: `${annotation}: ${message}` });

  const wait = a[WAIT_ANNOTATION];
  if (wait !== undefined) {
    if (!(WAIT_VALUES as readonly string[]).includes(wait)) problem(WAIT_ANNOTATION, `${JSON.stringify(wait)} is not a wait mode: use complete (a Job, until it completes) or none (never waited for)`);
    else if (wait === "complete" && !isJob(obj)) problem(WAIT_ANNOTATION, `complete is for Jobs (batch/v1), which complete; a ${obj.kind} is waited for until it is reconciled: remove the annotation`);
    else rules.wait = wait as WaitMode;
  }

  const timeout = a[RECONCILE_TIMEOUT_ANNOTATION];
  if (timeout !== undefined) {
    const ms = goDurationMs(timeout);
    if (ms === undefined || ms <= 0) problem(RECONCILE_TIMEOUT_ANNOTATION, `${JSON.stringify(timeout)} is not a duration: use a number with a unit, like 90s, 5m or 1h30m`);
    else if (rules.wait === "none") problem(RECONCILE_TIMEOUT_ANNOTATION, `the object is never waited for (${WAIT_ANNOTATION}: none), so a timeout has no effect: remove one of the two`);
    else rules.reconcileTimeout = { ms, text: timeout.trim() };
  }

  const hook = a[HOOK_ANNOTATION];
  const policy = a[HOOK_DELETE_POLICY_ANNOTATION];
  const weight = a[HOOK_WEIGHT_ANNOTATION];
  if (hook !== undefined) {
    const phases = wordList(hook, HOOK_PHASES, "hook phase");
    const deletePolicy = policy === undefined ? [] : wordList(policy, HOOK_DELETE_POLICIES, "hook delete policy");
    const w = weight === undefined ? 0 : /^[+-]?\d{1,9}$/.test(weight.trim()) ? Number(weight.trim()) : undefined;
    if (typeof phases === "string") problem(HOOK_ANNOTATION, phases);
    if (typeof deletePolicy === "string") problem(HOOK_DELETE_POLICY_ANNOTATION, deletePolicy);
    if (w === undefined) problem(HOOK_WEIGHT_ANNOTATION, `${JSON.stringify(weight)} is not a whole number: hooks of a phase run by weight, lowest first (e.g. "-5", "0", "10")`);
    if (rules.wait === "none") problem(WAIT_ANNOTATION, `a hook is always waited for until it completes (or is reconciled): remove ${WAIT_ANNOTATION}: none`);
    if (!obj.metadata.name) problem(HOOK_ANNOTATION, "a hook needs metadata.name");
    if (typeof phases !== "string" && typeof deletePolicy !== "string" && w !== undefined) rules.hook = { phases, deletePolicy, weight: w };
  } else {
    if (policy !== undefined) problem(HOOK_DELETE_POLICY_ANNOTATION, `only hooks are deleted by policy: add ${HOOK_ANNOTATION} or remove it`);
    if (weight !== undefined) problem(HOOK_WEIGHT_ANNOTATION, `only hooks have a weight: add ${HOOK_ANNOTATION} or remove it`);
  }

  const strategy = a[UPDATE_STRATEGY_ANNOTATION];
  if (strategy !== undefined) {
    if (!(UPDATE_STRATEGIES as readonly string[]).includes(strategy)) problem(UPDATE_STRATEGY_ANNOTATION, `${JSON.stringify(strategy)} is not an update strategy: use replace-on-immutable`);
    else if (hook !== undefined) problem(UPDATE_STRATEGY_ANNOTATION, "a hook is created anew each time it runs, never updated: remove it");
    else rules.replaceOnImmutable = true;
  }
  return { rules, problems };
}

/** The rules of an object whose annotations were checked when the package was read. */
export function lifecycleRules(obj: KubeObject): LifecycleRules {
  return hasLifecycleAnnotations(obj) ? readLifecycle(obj).rules : {};
}
