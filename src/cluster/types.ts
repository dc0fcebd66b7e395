// The engine's view of a cluster. `KubeCluster` implements it over HTTP; tests may fake it.

import type { ObjRef } from "../model/ref.js";
import type { KubeObject } from "../model/kube-object.js";
import type { UnavailableApi } from "./unavailable-apis.js";

export type Scope = "Namespaced" | "Cluster";
export type PatchType = "strategic" | "merge" | "json";
export type PropagationPolicy = "Background" | "Foreground" | "Orphan";

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  object: KubeObject;
}

export interface WatchQuery {
  group: string;
  kind: string;
  /** Undefined: all namespaces (or a cluster-scoped kind). */
  namespace?: string;
  resourceVersion: string;
  fieldSelector?: string;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  signal?: AbortSignal;
  /**
   * For a dry run: the live object the request was computed against. The server answers the same
   * request against the same version of an object the same way, so KubeCluster keeps such answers
   * between runs (not a Secret's) and asks again only when the object or the request changed.
   */
  basedOn?: { uid?: string; resourceVersion?: string };
}

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  /** Delete only this incarnation of the object. */
  uid?: string;
  /** Delete only if nobody changed the object since this version (else 409 Conflict). */
  resourceVersion?: string;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface Cluster {
  /** The namespace objects without one get (-n, else the kubeconfig context's). */
  readonly defaultNamespace: string;
  /** True when -n was given. */
  readonly namespaceEnforced: boolean;
  readonly server: string;
  /** The kubeconfig user of the context (recorded in the change history); may be empty. */
  readonly user?: string;
  /** The kubeconfig context in use (`in-cluster` in a Pod), for messages that say which cluster was asked. */
  readonly context?: string;

  scopeOf(group: string, kind: string): Promise<Scope | undefined>;
  /** True when the cluster serves this exact apiVersion/kind. */
  serves(apiVersion: string, kind: string): Promise<boolean>;
  /** Forget discovery (after CRDs were created) so later lookups see new kinds. */
  resetDiscovery(): void;

  /** `metadataOnly`: just the metadata (a cheap read of resourceVersion, labels, annotations). */
  get(ref: ObjRef, signal?: AbortSignal, opts?: { metadataOnly?: boolean }): Promise<KubeObject | undefined>;
  /**
   * `metadataOnly`: each item's metadata alone (a PartialObjectMetadataList), given back with the kind's apiVersion and kind.
   * `limit`: at most that many items (one page); by default every item.
   */
  list(group: string, kind: string, namespace?: string, opts?: { fieldSelector?: string; labelSelector?: string; signal?: AbortSignal; metadataOnly?: boolean; limit?: number }): Promise<ListResult>;
  create(obj: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
  patch(ref: ObjRef, patch: unknown, type: PatchType, opts?: WriteOptions): Promise<KubeObject>;
  /** Server-side apply. */
  apply(obj: KubeObject, opts: WriteOptions & { fieldManager: string; force: boolean }): Promise<KubeObject>;
  update(obj: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
  updateStatus(obj: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
  /**
   * "deleted": gone now; "terminating": deletion started, finalizers or dependents still pending;
   * "notfound": it was already gone.
   */
  delete(ref: ObjRef, opts?: DeleteOptions): Promise<"deleted" | "terminating" | "notfound">;
  watch(q: WatchQuery, signal: AbortSignal): AsyncIterable<WatchEvent>;
  /** Aggregated APIs listed but unavailable (cluster/unavailable-apis.ts); a cluster that cannot tell may leave it out. */
  unavailableApis?(signal?: AbortSignal): Promise<UnavailableApi[]>;
  /**
   * Whether this identity may do `verb` on the kind in the namespace ("" cluster-wide): a
   * SelfSubjectAccessReview. Undefined when the server cannot tell (the review itself refused, the
   * kind unknown); a cluster that cannot ask may leave it out.
   */
  accessReview?(q: { verb: string; group: string; kind: string; namespace: string; name?: string }, signal?: AbortSignal): Promise<{ allowed: boolean; resource: string } | undefined>;
  /** Who the server takes this identity for (a SelfSubjectReview): `system:serviceaccount:app:deployer`; undefined when it cannot tell. */
  whoAmI?(signal?: AbortSignal): Promise<string | undefined>;
  /** The schemas (`components`) of a group/version's OpenAPI v3 document, for client-side apply's merge keys. */
  openapi(group: string, version: string): Promise<unknown | undefined>;
  close(): void;
}

/** The watch ended because its resourceVersion is too old: list again, then watch. */
export class WatchExpiredError extends Error {}
