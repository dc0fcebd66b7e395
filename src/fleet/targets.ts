// The clusters of a fleet run and its waves, from what the user named: kubeconfig context names
// and globs (the CLI's --contexts, the library's `clusters`), an optional rollout, and the
// kubeconfig that holds the contexts. Each target opens its own connection when its turn comes.

import { KubeCluster, type KubeClusterOptions } from "../cluster/kube-cluster.js";
import { readKubeconfigs } from "../cluster/kubeconfig-files.js";
import type { Cluster } from "../cluster/types.js";
import { UsageError } from "../model/errors.js";
import { planWaves, rolloutPatterns } from "./rollout.js";
import type { FleetTarget } from "./run-fleet.js";
import { selectContexts } from "./select-contexts.js";

/** A cluster of the library's fleet run: a kubeconfig context, or any `Cluster` under a name of your choosing. */
export interface ClusterTarget {
  context: string;
  /** Use this cluster instead of opening the context (it is then not closed by the run). */
  cluster?: Cluster;
}

export interface FleetSelection {
  /** Context names and globs (`prod-*`), or targets; absent: the rollout's patterns select. */
  clusters?: readonly (string | ClusterTarget)[];
  /** Waves of context names and globs; the next starts when every cluster of the one before succeeded. */
  rollout?: readonly (readonly string[])[];
}

export interface PlannedFleet {
  waves: string[][];
  targets: Map<string, FleetTarget>;
}

/**
 * The run's waves and targets. Names and globs are matched against the kubeconfig's contexts
 * (`connection.kubeconfig`, else KUBECONFIG, else ~/.kube/config); each context's connection is
 * the given one with that context.
 */
export function planFleet(sel: FleetSelection, connection: KubeClusterOptions, flags = { contexts: "--contexts", rollout: "--rollout" }): PlannedFleet {
  const given = new Map<string, ClusterTarget>();
  const patterns: string[] = [];
  for (const c of sel.clusters ?? []) {
    if (typeof c === "string") patterns.push(c);
    else if (c.cluster) given.set(c.context, c);
    else patterns.push(c.context);
  }
  if (!sel.clusters && !sel.rollout) throw new UsageError(`name the clusters: ${flags.contexts} a,b or ${flags.rollout} 'canary;*'`);
  const wanted = sel.clusters ? patterns : rolloutPatterns(sel.rollout!);
  let known: string[] = [];
  let where = "the kubeconfig";
  if (wanted.length > 0) {
    const kc = readKubeconfigs(connection.kubeconfig, connection.env ?? process.env);
    known = [...kc.contexts.keys()];
    where = kc.files.length ? `kubeconfig ${kc.files.join(":")}` : `the kubeconfig (none of ${kc.searched.join(", ")} exists)`;
  }
  const fromKubeconfig = wanted.length > 0 ? selectContexts(wanted, known, sel.clusters ? flags.contexts : flags.rollout, where) : [];
  const selected = [...fromKubeconfig, ...[...given.keys()].filter((n) => !fromKubeconfig.includes(n))];
  const waves = planWaves(selected, sel.rollout);
  const targets = new Map<string, FleetTarget>();
  for (const name of selected) {
    const own = given.get(name)?.cluster;
    targets.set(name, own ? { name, connect: () => own, owned: false } : { name, connect: () => new KubeCluster({ ...connection, context: name }), owned: true });
  }
  return { waves, targets };
}
