// The guard against the wrong cluster: a package may pin where it may be deployed, with the
// `kpt-ts.dev/clusters` annotation on its inventory (the ResourceGroup file, or the Kptfile's
// `inventory.annotations`): context-name patterns (`prod-*`) and cluster identities
// (`uid:<the kube-system Namespace's uid>`, which no rename of a context changes). An apply or
// destroy to a cluster outside the pins stops before its first write, naming both, unless the
// run allows any cluster (--allow-any-cluster).

import type { Cluster } from "../cluster/types.js";
import { PackageError, WrongClusterError } from "../model/errors.js";
import type { InventoryInfo, SourcePos } from "../model/kube-object.js";
import { formatNames, globMatcher } from "./select-contexts.js";

export const CLUSTERS_ANNOTATION = "kpt-ts.dev/clusters";
const UID_PREFIX = "uid:";
const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type PinnedInventory = Pick<InventoryInfo, "annotations" | "source" | "name" | "origin">;

/** Where a package may be deployed. */
export interface ClusterPins {
  /** Context-name patterns; when any, the context must match one. */
  names: string[];
  /** Cluster identities (kube-system Namespace uids); when any, the cluster must be one. */
  uids: string[];
  /** The annotation as written and where, for messages. */
  text: string;
  source: SourcePos;
}

/** The cluster a run is about to write to. */
export interface ClusterIdentity {
  /** The kubeconfig context ("" when the connection came from flags alone). */
  context: string;
  server: string;
  /** Its kube-system Namespace's uid, when read. */
  uid?: string;
}

/**
 * The package's pins, or undefined when it has none. Entries are separated by commas or
 * whitespace; a malformed one is the package's error, with file and line.
 */
export function readClusterPins(inv: PinnedInventory): ClusterPins | undefined {
  const text = inv.annotations[CLUSTERS_ANNOTATION];
  if (text === undefined) return undefined;
  const entries = text.split(/[\s,]+/).filter(Boolean);
  const bad = (message: string) => new PackageError([{ source: inv.source, object: inv.origin === "kptfile" ? "Kptfile" : `ResourceGroup/${inv.name}`, message: `annotation ${CLUSTERS_ANNOTATION}: ${message}` }]);
  if (entries.length === 0) throw bad(`names no cluster: list context names or patterns (prod-*) and/or uid:<kube-system Namespace uid>, or remove the annotation`);
  const pins: ClusterPins = { names: [], uids: [], text: entries.join(", "), source: inv.source };
  for (const e of entries) {
    if (e.startsWith(UID_PREFIX)) {
      const uid = e.slice(UID_PREFIX.length);
      if (!UID.test(uid)) throw bad(`"${e}" is not a cluster identity: write uid: and the kube-system Namespace's uid (kubectl get namespace kube-system -o jsonpath='{.metadata.uid}')`);
      pins.uids.push(uid.toLowerCase());
    } else pins.names.push(e);
  }
  return pins;
}

/** Why the cluster is outside the pins, or undefined when the pins allow it. */
export function pinViolation(pins: ClusterPins, target: ClusterIdentity): string | undefined {
  const problems: string[] = [];
  if (pins.names.length > 0 && !pins.names.some((p) => globMatcher(p)(target.context))) {
    problems.push(target.context ? `context "${target.context}" matches none of ${formatNames(pins.names)}` : `the connection has no kubeconfig context to match ${formatNames(pins.names)}`);
  }
  if (pins.uids.length > 0 && !(target.uid && pins.uids.includes(target.uid.toLowerCase()))) {
    problems.push(target.uid ? `its identity uid:${target.uid} is none of ${formatNames(pins.uids.map((u) => UID_PREFIX + u))}` : "its identity could not be read");
  }
  return problems.length ? problems.join(", and ") : undefined;
}

/** The cluster's identity: the uid of its kube-system Namespace (every cluster has one; it never changes). */
export async function readClusterUid(cluster: Cluster, signal?: AbortSignal): Promise<string | undefined> {
  const ns = await cluster.get({ group: "", kind: "Namespace", namespace: "", name: "kube-system" }, signal, { metadataOnly: true });
  return typeof ns?.metadata.uid === "string" ? ns.metadata.uid : undefined;
}

export interface GuardOptions {
  /** --allow-any-cluster: the pins are not checked. */
  allowAnyCluster?: boolean;
  signal?: AbortSignal;
}

/**
 * Stops the run before its first write when the package pins its clusters and this one is not
 * among them. Reads the cluster's identity only when the package pins identities.
 */
export async function guardCluster(inv: PinnedInventory, cluster: Cluster, context: string, o: GuardOptions = {}): Promise<void> {
  const pins = readClusterPins(inv);
  if (!pins || o.allowAnyCluster) return;
  let uid: string | undefined;
  let readError: unknown;
  if (pins.uids.length > 0) uid = await readClusterUid(cluster, o.signal).catch((err: unknown) => void (readError = err));
  const target: ClusterIdentity = { context, server: cluster.server, ...(uid ? { uid } : {}) };
  const why = pinViolation(pins, target);
  if (!why) return;
  const where = `${pins.source.file}:${pins.source.line}`;
  const what = `${target.context ? `context "${target.context}"` : "this connection"} (${target.server}${uid ? `, uid:${uid}` : ""})`;
  const readFailed = readError ? ` (reading the kube-system Namespace failed: ${(readError as Error).message})` : "";
  throw new WrongClusterError(
    `the package may not be deployed to ${what}: ${why}${readFailed}. Its inventory pins the clusters it may be deployed to (${CLUSTERS_ANNOTATION}: ${pins.text}, ${where}); nothing was written. Use a context the package pins, add this cluster to the annotation, or pass --allow-any-cluster to deploy there anyway`,
    readError ? { cause: readError } : undefined,
  );
}
