// The status engine's data shapes. Results follow kstatus' Result: a status, a one-line message,
// and the abnormal-true conditions (Reconciling/Stalled) kstatus would add to the object.

import type { KStatus } from "../events.js";
import type { KubeObject } from "../object/types.js";

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
}

export interface ComputeStatusOptions {
  /** Clock for time-dependent rules (Pod scheduling window); defaults to the current time. */
  now?: Date;
}

/** A per-kind rule: once it is picked, it always decides (as in kstatus). */
export type KindRule = (obj: KubeObject, ctx: { now: Date }) => StatusResult;
