// The small predicates a waiter needs (cli-utils' taskrunner Condition.Meets / allMatchStatus, WaitTask's failure check).

import type { KStatus } from "../model/events.js";
import { describeHolds } from "./deletion-holds.js";
import type { DesiredStatus, StatusResult } from "./types.js";

interface GenerationCheck {
  /** metadata.generation of the object the status was computed from; missing counts as 0. */
  liveGeneration?: number;
  /** metadata.generation the apply returned; missing counts as 0. */
  appliedGeneration?: number;
}

/**
 * True once an object has reached `desired`. With generations, a status computed from an object
 * older than the one just applied does not count: it describes the previous spec.
 */
export function isReconciled(status: KStatus, desired: DesiredStatus, gens?: GenerationCheck): boolean {
  if (status !== desired) return false;
  if (!gens) return true;
  return (gens.liveGeneration ?? 0) >= (gens.appliedGeneration ?? 0);
}

/**
 * One line saying what an object still lacks, for "waiting for ..." output: the rule's own
 * message when waiting for Current (e.g. "Available: 1/3"), or why it is not gone yet.
 */
export function describeWaitingFor(result: StatusResult, desired: DesiredStatus = "Current"): string {
  if (desired === "Current" || result.status === "NotFound") return result.message || result.status;
  if (result.heldBy?.length) return `not yet deleted (${result.status}: ${describeHolds(result.heldBy)})`;
  return `not yet deleted (${result.message ? `${result.status}: ${result.message}` : result.status})`;
}
