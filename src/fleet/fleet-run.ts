// The library's handle on a fleet run: the events as they come (each cluster's named), and the
// per-cluster results once it ends.

import type { ExitCode } from "../model/errors.js";
import type { ClusterResult, FleetEvent } from "../model/fleet.js";

export interface FleetResult {
  /** Every cluster, in rollout order: succeeded, failed (with its exit code and why) or not run (and why). */
  clusters: ClusterResult[];
  /** The worst cluster's exit code, as the CLI would exit. */
  exitCode: ExitCode;
}

export interface FleetRun extends AsyncIterable<FleetEvent> {
  /** Runs what is left of the run (its events unread) and resolves to each cluster's result. */
  results(): Promise<FleetResult>;
}

/** Wraps a fleet's events: iterate them, or call results(), or both (results() drains the rest). */
export function fleetRun(events: AsyncIterable<FleetEvent>): FleetRun {
  let iterator: AsyncIterator<FleetEvent> | undefined;
  let result: FleetResult | undefined;
  const next = async (): Promise<IteratorResult<FleetEvent>> => {
    iterator ??= events[Symbol.asyncIterator]();
    const r = await iterator.next();
    if (!r.done && r.value.type === "fleet-summary") result = { clusters: r.value.results, exitCode: r.value.exitCode };
    return r;
  };
  return {
    [Symbol.asyncIterator]: () => ({ next }),
    async results() {
      while (!(await next()).done);
      if (!result) throw new Error("the fleet run ended without its results");
      return result;
    },
  };
}
