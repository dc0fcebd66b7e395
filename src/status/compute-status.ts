// computeStatus: kstatus' Compute for one object, plus kpt's Config Connector reader.
// Pure: the object must already carry its live status; `now` is injected for the Pod rule.

import { isRecord, type KubeObject } from "../model/kube-object.js";
import { mustComplete } from "../model/lifecycle-keys.js";
import { groupOf } from "../model/ref.js";
import { deletionHolds } from "./deletion-holds.js";
import { MalformedStatusError } from "./fields.js";
import { current, unknown } from "./results.js";
import { configConnectorStatus, isConfigConnectorGroup } from "./rules/config-connector.js";
import { findKindRule } from "./rules/by-kind.js";
import { checkGenericProperties, checkReadyCondition, isTerminating, terminating } from "./rules/generic.js";
import { checkRuleGeneration, healthRuleStatus } from "./rules/health-rule.js";
import { jobCompletionStatus } from "./rules/job.js";
import type { ComputeStatusOptions, StatusResult } from "./types.js";

/**
 * Order as kstatus: Terminating; generation not observed; Reconciling/Stalled conditions;
 * the kind's rule; the Ready condition; else Current. Config Connector groups use kpt's rules.
 * A health rule for the kind (opts.healthRules) replaces all of that after the generation check.
 * A Job that must complete (its `kpt-ts.dev/wait: complete`, or opts.jobsMustComplete) is
 * Current only once it has completed.
 * Never throws: an object whose fields have the wrong types is Unknown, with the reason.
 */
export function computeStatus(obj: KubeObject, opts: ComputeStatusOptions = {}): StatusResult {
  const result = computeKStatus(obj, opts);
  if (result.status !== "Terminating") return result;
  const heldBy = deletionHolds(obj);
  return heldBy.length ? { ...result, heldBy } : result;
}

function computeKStatus(obj: KubeObject, opts: ComputeStatusOptions): StatusResult {
  const now = opts.now ?? new Date();
  try {
    if (!isRecord(obj) || typeof obj.apiVersion !== "string" || typeof obj.kind !== "string") {
      return unknown("object has no apiVersion or kind");
    }
    const health = opts.healthRules?.find(obj.apiVersion, obj.kind);
    if (health) {
      if (isTerminating(obj)) return terminating();
      return checkRuleGeneration(obj) ?? healthRuleStatus(obj, health);
    }
    const group = groupOf(obj.apiVersion);
    if (isConfigConnectorGroup(group)) return configConnectorStatus(obj);
    const generic = checkGenericProperties(obj);
    if (generic) return generic;
    // A Job that must complete (docs/lifecycle.md) is not reconciled while it runs.
    if (group === "batch" && obj.kind === "Job" && (opts.jobsMustComplete || mustComplete(obj))) return jobCompletionStatus(obj);
    const rule = findKindRule(group, obj.kind);
    if (rule) return rule(obj, { now });
    return checkReadyCondition(obj) ?? current("Resource is current");
  } catch (e) {
    if (e instanceof MalformedStatusError) return unknown(e.message);
    // A bug in a rule must not take the whole wait down; report it against this object only.
    return unknown(`computing status: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export const NOT_FOUND: StatusResult = { status: "NotFound", message: "Resource not found" };

/** The status of an object as the cache knows it; absent means NotFound. `opts` adds the run's rules. */
export function statusOfLive(obj: KubeObject | undefined, now: Date, opts: ComputeStatusOptions = {}): StatusResult {
  return obj ? computeStatus(obj, { ...opts, now }) : NOT_FOUND;
}
