// Reads what explains a slow wait (see wait-reasons.ts), cheaply: only when asked (a wait has
// objects that are still not Current), at most once per `minIntervalMs` per namespace, with
// one LIST of Pods (and one of ReplicaSets, for Deployments) per namespace under a label
// selector the owners share, and one LIST of PersistentVolumes for pending claims. No watch, no
// per-object reads; a read that fails (e.g. forbidden) simply explains nothing.

import type { Cluster } from "../cluster/types.js";
import type { WaitReason } from "../model/events.js";
import { refKey, refOf } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import { combinedSelector, explainWait, explanationNeeds } from "./wait-reasons.js";

const EXPLAIN_INTERVAL_MS = 3_000;
/**
 * Objects explained per round: the first still waiting, in apply order. Explaining a thousand waiting
 * Deployments would LIST every Pod and ReplicaSet of their namespace each round (memory and API
 * server load) and print a line each; the progress line already counts the rest.
 */
export const MAX_EXPLAINED = 20;

interface Snapshot {
  at: number;
  /** The selector the snapshot was read with: a wider need means a new read. */
  key: string;
  items: KubeObject[];
}

export class WaitExplainer {
  private readonly snapshots = new Map<string, Snapshot>();
  private inFlight = false;
  /** Requests made, for tests. */
  readonly stats = { lists: 0 };

  constructor(
    private readonly cluster: Cluster,
    private readonly opts: { minIntervalMs?: number; now?: () => number; signal?: AbortSignal } = {},
  ) {}

  /** True for the kinds it can explain. */
  canExplain(obj: KubeObject): boolean {
    return explanationNeeds(refOf(obj)) !== undefined;
  }

  /**
   * The reasons of each waiting object (refKey → reasons); undefined when a read is already in
   * progress (the caller asks again on its next tick).
   */
  async explain(waiting: readonly KubeObject[]): Promise<Map<string, WaitReason[]> | undefined> {
    if (this.inFlight) return undefined;
    this.inFlight = true;
    try {
      const explainable = waiting.filter((o) => this.canExplain(o));
      const byNamespace = new Map<string, KubeObject[]>();
      for (const o of explainable) {
        const ns = o.metadata.namespace ?? "";
        byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), o]);
      }
      const needs = (objs: KubeObject[], what: "pods" | "replicaSets" | "volumes") => objs.filter((o) => explanationNeeds(refOf(o))?.[what]);
      const reads: Promise<unknown>[] = [];
      const pods = new Map<string, KubeObject[]>();
      const replicaSets = new Map<string, KubeObject[]>();
      let volumes: KubeObject[] = [];
      for (const [ns, objs] of byNamespace) {
        const podOwners = needs(objs, "pods");
        if (podOwners.length) reads.push(this.read("", "Pod", ns, combinedSelector(podOwners)).then((items) => pods.set(ns, items)));
        const deployments = needs(objs, "replicaSets");
        if (deployments.length) reads.push(this.read("apps", "ReplicaSet", ns, combinedSelector(deployments)).then((items) => replicaSets.set(ns, items)));
      }
      if (explainable.some((o) => explanationNeeds(refOf(o))?.volumes)) reads.push(this.read("", "PersistentVolume", undefined, undefined).then((items) => (volumes = items)));
      await Promise.all(reads);
      const out = new Map<string, WaitReason[]>();
      for (const o of explainable) {
        const ns = o.metadata.namespace ?? "";
        out.set(refKey(refOf(o)), explainWait(o, { pods: pods.get(ns) ?? [], replicaSets: replicaSets.get(ns) ?? [], volumes }));
      }
      return out;
    } finally {
      this.inFlight = false;
    }
  }

  private async read(group: string, kind: string, namespace: string | undefined, labelSelector: string | undefined): Promise<KubeObject[]> {
    const now = (this.opts.now ?? Date.now)();
    const id = `${group}/${kind}/${namespace ?? ""}`;
    const key = labelSelector ?? "";
    const last = this.snapshots.get(id);
    if (last && last.key === key && now - last.at < (this.opts.minIntervalMs ?? EXPLAIN_INTERVAL_MS)) return last.items;
    try {
      this.stats.lists++;
      const list = await this.cluster.list(group, kind, namespace, { ...(labelSelector ? { labelSelector } : {}), signal: this.opts.signal });
      this.snapshots.set(id, { at: now, key, items: list.items });
      return list.items;
    } catch {
      // Best effort: an unexplained wait is still a wait; try again after the interval.
      this.snapshots.set(id, { at: now, key, items: last?.items ?? [] });
      return last?.items ?? [];
    }
  }
}
