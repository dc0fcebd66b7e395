// One package on many clusters in one run (docs/fleet.md): the events of a fleet run and each
// cluster's result, shared by the library, the commands and the printers.

import type { ExitCode } from "./errors.js";
import type { EngineEvent, RunStats } from "./events.js";

/** One cluster's engine event, naming the cluster (its kubeconfig context). */
export type ClusterEngineEvent = EngineEvent & { cluster: string };

/** How a cluster's part of the run ended. */
export type ClusterOutcome = "succeeded" | "failed" | "not-run";

export interface ClusterResult {
  /** The kubeconfig context. */
  cluster: string;
  /** The rollout wave it belongs to, 1-based. */
  wave: number;
  outcome: ClusterOutcome;
  /** Its exit code, as a run on that cluster alone would end; absent when it did not run. */
  exitCode?: ExitCode;
  /** The run's counts, when the engine got as far as a summary (or was interrupted after writing). */
  stats?: RunStats;
  /** What stopped it (unreachable, refused by the guard, interrupted), or why it did not run. */
  message?: string;
  /** The error that stopped it, as thrown (a KptTsError for the ones kpt-ts names). */
  error?: unknown;
  tookMs?: number;
}

export interface FleetStartEvent {
  type: "fleet";
  command: "apply" | "destroy";
  dryRun: boolean;
  /** The rollout: each wave's clusters, in order. */
  waves: string[][];
}

export interface ClusterStartEvent {
  type: "cluster-started";
  cluster: string;
  wave: number;
}

export interface ClusterEndEvent {
  type: "cluster-finished";
  cluster: string;
  result: ClusterResult;
}

/** The last event of a fleet run: every cluster's result (those not run too), and the run's exit code (the worst). */
export interface FleetSummaryEvent {
  type: "fleet-summary";
  results: ClusterResult[];
  exitCode: ExitCode;
}

export type FleetEvent = FleetStartEvent | ClusterStartEvent | ClusterEngineEvent | ClusterEndEvent | FleetSummaryEvent;
