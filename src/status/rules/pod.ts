// Pod (kstatus podConditions). Completed pods are Current either way: a finished Pod has
// nothing left to reconcile, and its success is the owner's (Job's) business.

import { isRecord, type KubeObject } from "../../model/kube-object.js";
import { findCondition, hasCondition, readConditions } from "../conditions.js";
import { stringField, unexpectedType } from "../fields.js";
import { current, failed, inProgress, unknown } from "../results.js";
import type { StatusResult } from "../types.js";

/** How long an Unschedulable pod stays InProgress before it is reported Failed (kstatus ScheduleWindow). */
const POD_SCHEDULE_WINDOW_MS = 15_000;

export function podStatus(obj: KubeObject, ctx: { now: Date }): StatusResult {
  const conds = readConditions(obj);
  const phase = stringField(obj, "status.phase", "");
  switch (phase) {
    case "Succeeded":
      return current("Pod has completed successfully");
    case "Failed":
      return current("Pod has completed, but not successfully");
    case "Running": {
      if (hasCondition(conds, "Ready", "True")) return current("Pod is Ready");
      const looping = crashLoopingContainers(obj);
      if (looping.length > 0) {
        return failed("ContainerCrashLooping", `Containers in CrashLoop state: ${looping.join(",")}`);
      }
      return inProgress("PodRunningNotReady", "Pod is running but is not Ready");
    }
    case "Pending": {
      const scheduled = findCondition(conds, "PodScheduled", "False");
      if (scheduled?.reason === "Unschedulable") {
        // The scheduler may just not have caught up (autoscaler, preemption): give it a window.
        if (ctx.now.getTime() - POD_SCHEDULE_WINDOW_MS < creationTime(obj)) {
          return inProgress("PodNotScheduled", "Pod has not been scheduled");
        }
        return failed("PodUnschedulable", "Pod could not be scheduled");
      }
      return inProgress("PodPending", "Pod is in the Pending phase");
    }
    case "":
      return inProgress("PodNotObserved", "Pod phase not available");
    default:
      return unknown(`unknown phase ${phase}`);
  }
}

/** Milliseconds since the epoch; a missing or unparsable timestamp counts as long ago, as in Go's zero time. */
function creationTime(obj: KubeObject): number {
  const ts = stringField(obj, "metadata.creationTimestamp", "");
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

function crashLoopingContainers(obj: KubeObject): string[] {
  const status = isRecord(obj["status"]) ? obj["status"] : {};
  const list = status["containerStatuses"];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw unexpectedType("status.containerStatuses", "a list", list);
  const names: string[] = [];
  for (const [i, cs] of list.entries()) {
    if (!isRecord(cs)) throw unexpectedType(`status.containerStatuses[${i}]`, "a map", cs);
    const name = cs["name"];
    const state = cs["state"];
    const waiting = isRecord(state) ? state["waiting"] : undefined;
    const reason = isRecord(waiting) ? waiting["reason"] : undefined;
    if (typeof name === "string" && reason === "CrashLoopBackOff") names.push(name);
  }
  return names;
}
