// Builders for the three result shapes kstatus produces, so every rule words them the same way.

import type { StatusResult } from "./types.js";

export function current(message: string): StatusResult {
  return { status: "Current", message, conditions: [] };
}

export function inProgress(reason: string, message: string): StatusResult {
  return {
    status: "InProgress",
    message,
    reason,
    conditions: [{ type: "Reconciling", status: "True", reason, message }],
  };
}

/** `conditionMessage` differs from `message` only where kstatus keeps the source condition's text (Deployment). */
export function failed(reason: string, message: string, conditionMessage = message): StatusResult {
  return {
    status: "Failed",
    message,
    reason,
    conditions: [{ type: "Stalled", status: "True", reason, message: conditionMessage }],
  };
}

export function unknown(message: string): StatusResult {
  return { status: "Unknown", message, conditions: [] };
}
