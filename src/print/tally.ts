// Running counts kept by the printers while events stream past: kpt's group events carry
// cumulative counts, and the legacy summary lines need counts the engine's RunStats do not keep
// (server-side applies).

import { emptyStats, type EngineEvent, type RunStats } from "../model/events.js";

export interface RunTally {
  stats: RunStats;
  /** Successful applies whose operation was `serverside-applied` (also counted in successful). */
  serversideApplied: number;
}

export function createTally(): RunTally {
  return { stats: emptyStats(), serversideApplied: 0 };
}

/** Adds one per-object result to the tally; other events (and wait Pending) count nothing. */
export function countEvent(tally: RunTally, e: EngineEvent): void {
  const s = tally.stats;
  switch (e.type) {
    case "apply":
      if (e.status === "Successful") {
        s.apply.successful++;
        if (e.operation === "created") s.apply.created++;
        else if (e.operation === "configured") s.apply.configured++;
        else if (e.operation === "unchanged") s.apply.unchanged++;
      } else if (e.status === "Skipped") s.apply.skipped++;
      else s.apply.failed++;
      return;
    case "prune":
    case "delete": {
      const a = e.type === "prune" ? s.prune : s.delete;
      if (e.status === "Successful") a.successful++;
      else if (e.status === "Skipped") a.skipped++;
      else a.failed++;
      return;
    }
    case "wait":
      if (e.status === "Successful") s.wait.successful++;
      else if (e.status === "Skipped") s.wait.skipped++;
      else if (e.status === "Failed") s.wait.failed++;
      else if (e.status === "Timeout") s.wait.timeout++;
      return;
    default:
      return;
  }
}

/** How many objects an action has reported a result for (kpt's `count`). */
export function countFor(stats: RunStats, action: "Apply" | "Prune" | "Delete" | "Wait"): number {
  switch (action) {
    case "Apply":
      return stats.apply.successful + stats.apply.skipped + stats.apply.failed;
    case "Prune":
      return stats.prune.successful + stats.prune.skipped + stats.prune.failed;
    case "Delete":
      return stats.delete.successful + stats.delete.skipped + stats.delete.failed;
    case "Wait":
      return stats.wait.successful + stats.wait.skipped + stats.wait.failed + stats.wait.timeout;
  }
}
