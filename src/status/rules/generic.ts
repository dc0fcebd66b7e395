// kstatus' kind-independent rules: the checks before the kind rules (checkGenericProperties)
// and the Ready-condition fallback after them (checkReadyCondition).

import type { KubeObject } from "../../model/kube-object.js";
import { readConditions } from "../conditions.js";
import { strictInt, strictString } from "../fields.js";
import { current, failed, inProgress } from "../results.js";
import type { StatusResult } from "../types.js";

/** Terminating, then generation vs observedGeneration, then Reconciling/Stalled; undefined when none decide. */
export function checkGenericProperties(obj: KubeObject): StatusResult | undefined {
  if (isTerminating(obj)) return terminating();
  const gen = checkGeneration(obj);
  if (gen) return gen;
  for (const c of readConditions(obj)) {
    if (c.type === "Reconciling" && c.status === "True") return inProgress(c.reason, c.message);
    if (c.type === "Stalled" && c.status === "True") return failed(c.reason, c.message);
  }
  return undefined;
}

export function isTerminating(obj: KubeObject): boolean {
  const ts = strictString(obj, "metadata.deletionTimestamp");
  return ts !== undefined && ts !== "";
}

export function terminating(): StatusResult {
  return { status: "Terminating", message: "Resource scheduled for deletion", conditions: [] };
}

/** The message kstatus and kpt's Config Connector reader both use for an unobserved generation. */
export function generationMessage(kind: string, generation: number, observed: number): string {
  return `${kind} generation is ${generation}, but latest observed generation is ${observed}`;
}

/** A missing observedGeneration is not a mismatch: many resources never set it. */
function checkGeneration(obj: KubeObject): StatusResult | undefined {
  const generation = strictInt(obj, "metadata.generation");
  if (generation === undefined) return undefined;
  const observed = strictInt(obj, "status.observedGeneration");
  if (observed === undefined || observed === generation) return undefined;
  return inProgress("LatestGenerationNotObserved", generationMessage(obj.kind, generation, observed));
}

/**
 * The fallback for kinds without a rule: Ready=True is Current, Ready=False/Unknown is
 * InProgress with the condition's message; any other value (or no Ready) decides nothing.
 */
export function checkReadyCondition(obj: KubeObject): StatusResult | undefined {
  const ready = readConditions(obj).find((c) => c.type === "Ready" && ["True", "False", "Unknown"].includes(c.status));
  if (!ready) return undefined;
  return ready.status === "True" ? current("Resource is Ready") : inProgress(ready.reason, ready.message);
}
