// The status engine's data shapes. Results follow kstatus' Result: a status, a one-line message,
// and the abnormal-true conditions (Reconciling/Stalled) kstatus would add to the object.

import type { KStatus, WaitReason } from "../model/events.js";
import type { KubeObject } from "../model/kube-object.js";

/** The two statuses a wait can target: Current after apply, NotFound after prune/delete. */
export type DesiredStatus = "Current" | "NotFound";

/** A condition kstatus derives; always abnormal-true, so `status` is always "True". */
export interface KStatusCondition {
  type: "Reconciling" | "Stalled";
  status: "True";
  reason: string;
  message: string;
}

export interface StatusResult {
  status: KStatus;
  message: string;
  /** Machine-readable cause for InProgress/Failed (kstatus' condition reason, e.g. "LessReplicas"). */
  reason?: string;
  conditions?: KStatusCondition[];
  /** Terminating: what keeps it from going (deletion-holds.ts); absent when nothing says. */
  heldBy?: WaitReason[];
}

export interface ComputeStatusOptions {
  /** Clock for time-dependent rules (Pod scheduling window); defaults to the current time. */
  now?: Date;
  /** The run's health rules (src/health/ compiles them); a matching rule replaces the kind's default rule. */
  healthRules?: HealthRuleLookup;
  /** Every Job must complete to be Current (`--wait-for-jobs`, a hook), as `kpt-ts.dev/wait: complete` asks of one. */
  jobsMustComplete?: boolean;
}

/** Finds the health rule for an object's apiVersion and kind, if any. */
export interface HealthRuleLookup {
  find(apiVersion: string, kind: string): HealthRule | undefined;
}

/** A health rule, compiled ahead of time: its expressions only need an object to evaluate. */
export interface HealthRule {
  /** How messages name it: `widget` in `rule widget current: status.phase == 'Ready'`. */
  name: string;
  current?: HealthExpression;
  failed?: HealthExpression;
  inProgress?: HealthExpression;
}

export interface HealthExpression {
  /** The expression as written. */
  text: string;
  /** Dotted paths of the object it reads (`status.phase`), to show their values while it waits. */
  fields: readonly string[];
  /** The expression's value on `obj`; throws when it cannot be evaluated (a missing field). */
  evaluate(obj: KubeObject): unknown;
}

/** A per-kind rule: once it is picked, it always decides (as in kstatus). */
export type KindRule = (obj: KubeObject, ctx: { now: Date }) => StatusResult;
