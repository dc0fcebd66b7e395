// The waiter's predicates.

import { describe, expect, it } from "vitest";
import type { KStatus } from "../../src/model/events.js";
import {
  describeWaitingFor,
  isReconciled,
} from "../../src/status/aggregate.js";
import type { DesiredStatus, StatusResult } from "../../src/status/types.js";

describe("isReconciled", () => {
  it.each<{ name: string; status: KStatus; desired: DesiredStatus; gens?: { liveGeneration?: number; appliedGeneration?: number }; want: boolean }>([
    { name: "Current when waiting for Current", status: "Current", desired: "Current", want: true },
    { name: "InProgress when waiting for Current", status: "InProgress", desired: "Current", want: false },
    { name: "Failed is not reconciled", status: "Failed", desired: "Current", want: false },
    { name: "NotFound when waiting for NotFound", status: "NotFound", desired: "NotFound", want: true },
    { name: "Terminating when waiting for NotFound", status: "Terminating", desired: "NotFound", want: false },
    { name: "status from an older generation does not count", status: "Current", desired: "Current", gens: { liveGeneration: 2, appliedGeneration: 3 }, want: false },
    { name: "status from the applied generation counts", status: "Current", desired: "Current", gens: { liveGeneration: 3, appliedGeneration: 3 }, want: true },
    { name: "unknown applied generation counts as 0", status: "Current", desired: "Current", gens: { liveGeneration: 1 }, want: true },
  ])("$name", ({ status, desired, gens, want }) => {
    expect(isReconciled(status, desired, gens)).toBe(want);
  });
});

describe("describeWaitingFor", () => {
  it.each<{ name: string; result: StatusResult; desired?: DesiredStatus; want: string }>([
    { name: "Deployment rollout", result: { status: "InProgress", message: "Available: 1/3" }, want: "Available: 1/3" },
    { name: "failed pod", result: { status: "Failed", message: "Pod could not be scheduled" }, want: "Pod could not be scheduled" },
    { name: "empty message falls back to the status", result: { status: "Unknown", message: "" }, want: "Unknown" },
    {
      name: "deletion in progress",
      result: { status: "Terminating", message: "Resource scheduled for deletion" },
      desired: "NotFound",
      want: "not yet deleted (Terminating: Resource scheduled for deletion)",
    },
    { name: "deleted", result: { status: "NotFound", message: "Resource not found" }, desired: "NotFound", want: "Resource not found" },
  ])("$name", ({ result, desired, want }) => {
    expect(describeWaitingFor(result, desired)).toBe(want);
  });
});
