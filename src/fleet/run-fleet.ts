// One package applied to (or destroyed on) many clusters: the rollout's waves run by the
// scheduler, each cluster through the engine's own entry points (runApply, runDestroy) on its own
// connection and with its own inventory, after the guard. Yields every cluster's events, named,
// between its start and its result, and ends with every cluster's result.

import type { Cluster } from "../cluster/types.js";
import { runApply, runDestroy } from "../engine/run.js";
import type { EngineOptions } from "../engine/options.js";
import type { EngineEvent, RunStats } from "../model/events.js";
import type { ClusterResult, FleetEvent } from "../model/fleet.js";
import type { Package } from "../model/kube-object.js";
import type { RunPlan } from "../model/plan.js";
import { countFor, RunTally } from "../model/run-tally.js";
import { EventChannel } from "../util/event-channel.js";
import { guardCluster, readClusterPins } from "./cluster-guard.js";
import { clusterExitCode, worstExitCode } from "./exit-codes.js";
import { DEFAULT_MAX_CLUSTERS_AT_ONCE } from "./options.js";
import { runWaves, type WaveOutcome } from "./run-waves.js";


/** A cluster of the fleet: its name (the kubeconfig context) and how to reach it. */
export interface FleetTarget {
  name: string;
  /** Opened when the cluster's turn comes; an error here fails this cluster only. */
  connect(): Cluster;
  /** True when the run closes what connect() opened (false for a Cluster the caller passed in). */
  owned: boolean;
}

export interface FleetRunOptions {
  command: "apply" | "destroy";
  /** The rollout's waves of cluster names (planWaves); every name has a target. */
  waves: readonly (readonly string[])[];
  maxClustersAtOnce?: number;
  /** --allow-any-cluster: deploy even where the package's kpt-ts.dev/clusters does not pin. */
  allowAnyCluster?: boolean;
  /** Each cluster's engine options (the same for all); its signal stops the whole run. */
  engine: EngineOptions;
  /** Asked on each cluster once its plan is known, before its first write (the CLI's question before deleting). */
  confirm?: (cluster: string, plan: RunPlan) => Promise<void>;
}

/** What one cluster's run came to. */
interface ClusterRun {
  stats?: RunStats;
  error?: unknown;
}

export function runFleet(pkg: Package, targets: ReadonlyMap<string, FleetTarget>, o: FleetRunOptions): AsyncIterable<FleetEvent> {
  // A malformed kpt-ts.dev/clusters is the package's error, once, before any cluster is touched.
  readClusterPins(pkg.inventory);
  const channel = new EventChannel<FleetEvent>();
  const signal = o.engine.signal;
  const dryRun = o.engine.dryRun !== undefined && o.engine.dryRun !== "none";

  const runOne = async (name: string): Promise<ClusterRun> => {
    const target = targets.get(name);
    if (!target) throw new Error(`no target for cluster ${name}`);
    const tally = new RunTally();
    let stats: RunStats | undefined;
    let cluster: Cluster | undefined;
    try {
      cluster = target.connect();
      await guardCluster(pkg.inventory, cluster, name, { allowAnyCluster: o.allowAnyCluster, signal });
      const engine: EngineOptions = o.confirm ? { ...o.engine, confirm: (plan) => o.confirm!(name, plan) } : o.engine;
      const events: AsyncIterable<EngineEvent> = o.command === "apply" ? runApply(pkg, cluster, engine) : runDestroy(pkg, cluster, engine);
      for await (const e of events) {
        tally.add(e);
        if (e.type === "summary") stats = e.stats;
        channel.push({ ...e, cluster: name });
      }
      return { stats: stats ?? tally.stats };
    } catch (error) {
      // The counts so far: an interrupted or failed run still says what it applied.
      return { stats: stats ?? (counted(tally.stats) ? tally.stats : undefined), error };
    } finally {
      if (target.owned) cluster?.close();
    }
  };

  const resultOf = (out: WaveOutcome<ClusterRun>): ClusterResult => {
    const base = { cluster: out.cluster, wave: out.wave };
    if (out.status === "not-run") return { ...base, outcome: "not-run", message: out.because };
    const run: ClusterRun = out.status === "done" ? out.value : { error: out.error };
    const exitCode = clusterExitCode({ ...run, interrupted: signal?.aborted });
    return {
      ...base,
      outcome: exitCode === 0 ? "succeeded" : "failed",
      exitCode,
      ...(run.stats ? { stats: run.stats } : {}),
      ...(run.error !== undefined ? { error: run.error, message: messageOf(run.error) } : {}),
      tookMs: out.tookMs,
    };
  };

  const results = new Map<string, ClusterResult>();
  (async () => {
    channel.push({ type: "fleet", command: o.command, dryRun, waves: o.waves.map((w) => [...w]) });
    const outcomes = await runWaves(o.waves, runOne, {
      maxAtOnce: o.maxClustersAtOnce ?? DEFAULT_MAX_CLUSTERS_AT_ONCE,
      signal,
      succeeded: (r) => clusterExitCode(r) === 0,
      onStart: (cluster, wave) => channel.push({ type: "cluster-started", cluster, wave }),
      onOutcome: (out) => {
        const result = resultOf(out);
        results.set(out.cluster, result);
        channel.push({ type: "cluster-finished", cluster: out.cluster, result });
      },
    });
    const all = outcomes.map((out) => results.get(out.cluster)!);
    channel.push({ type: "fleet-summary", results: all, exitCode: worstExitCode(all.flatMap((r) => (r.exitCode === undefined ? [] : [r.exitCode]))) });
  })().then(
    () => channel.close(),
    (err: unknown) => channel.fail(err),
  );
  return channel;
}

/** True once the run reported any object's outcome. */
function counted(s: RunStats): boolean {
  return countFor(s, "Apply") + countFor(s, "Prune") + countFor(s, "Delete") + countFor(s, "Wait") > 0;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
