// Config Connector resources (kpt pkg/status/configconnector.go). kpt reads them with its own
// status reader, ahead of kstatus, so none of the generic rules apply except Terminating.
// They all use observedGeneration and a Ready condition whose reason tells a hard failure
// from a retry.

import type { KStatus } from "../../model/events.js";
import type { KubeObject } from "../../model/kube-object.js";
import { readConditions } from "../conditions.js";
import { MalformedStatusError, strictBool, strictInt } from "../fields.js";
import type { StatusResult } from "../types.js";
import { generationMessage, isTerminating, terminating } from "./generic.js";

/** Ready=False reasons that will not fix themselves without a change to the object. */
const FAILURE_REASONS = new Set(["ManagementConflict", "UpdateFailed", "DeleteFailed", "DependencyInvalid"]);

export function isConfigConnectorGroup(group: string): boolean {
  return group.endsWith("cnrm.cloud.google.com");
}

export function configConnectorStatus(obj: KubeObject): StatusResult {
  if (isTerminating(obj)) return terminating();
  return obj.kind === "ConfigConnectorContext" ? contextStatus(obj) : resourceStatus(obj);
}

function contextStatus(obj: KubeObject): StatusResult {
  const healthy = strictBool(obj, "status.healthy");
  if (healthy === undefined) return plain("InProgress", "status.healthy property not set");
  if (!healthy) return plain("InProgress", "status.healthy is false");
  return plain("Current", "status.healthy is true");
}

function resourceStatus(obj: KubeObject): StatusResult {
  const generation = strictInt(obj, "metadata.generation");
  if (generation === undefined) throw new MalformedStatusError("metadata.generation not found");
  // Config Connector always sets it, so its absence is an error rather than "not observed yet".
  const observed = strictInt(obj, "status.observedGeneration");
  if (observed === undefined) throw new MalformedStatusError("status.ObservedGeneration not found");
  if (generation !== observed) return plain("InProgress", generationMessage(obj.kind, generation, observed));

  // The last Ready condition wins, as in kpt's loop.
  const ready = readConditions(obj).filter((c) => c.type === "Ready").at(-1);
  if (!ready) return plain("InProgress", "Ready condition not set");
  if (ready.status === "True") return plain("Current", "Resource is Current");
  return plain(FAILURE_REASONS.has(ready.reason) ? "Failed" : "InProgress", ready.message, ready.reason);
}

/** kpt's reader reports a bare status and message, without kstatus' derived conditions. */
function plain(status: KStatus, message: string, reason?: string): StatusResult {
  return reason === undefined ? { status, message, conditions: [] } : { status, message, reason, conditions: [] };
}
