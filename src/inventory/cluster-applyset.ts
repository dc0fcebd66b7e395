// An ApplySet in the cluster: its parent read and written (a Secret or ConfigMap, full updates
// guarded by the resourceVersion this run read, as the ResourceGroup's), its members found by
// their part-of label in each group-kind and namespace the parent names (kubectl's prune list),
// and every ApplySet in the cluster or a namespace (`live list`, `live status --inv-type remote`).

import { ApiError, briefApiError } from "../cluster/api-error.js";
import type { Cluster } from "../cluster/types.js";
import { ClusterError } from "../model/errors.js";
import { APPLYSET_ID_LABEL, APPLYSET_PART_OF_LABEL } from "../model/inventory-keys.js";
import type { InventoryInfo, KubeObject } from "../model/kube-object.js";
import type { ApplySetScope } from "../model/plan.js";
import type { ObjRef } from "../model/ref.js";
import { KPT_TS_VERSION } from "../util/version.js";
import { listedApplySet, type ListedInventory } from "./status-selection.js";
import { buildParent, formatParent, memberRefs, parentRef, parseGroupKind, scopeNamespaces, storedScope, TOOLING_NAME, unionScope } from "./applyset.js";

/** What kpt-ts writes in the tooling annotation: `kpt-ts/v0.1.0`. */
export const TOOLING = `${TOOLING_NAME}/v${KPT_TS_VERSION}`;

/**
 * Lists the objects of a kind in a namespace ("" for a cluster-scoped kind) that carry a label.
 * The engine passes one that answers from its live cache when that already listed the whole
 * collection (the package's own kinds), so a large ApplySet is not listed twice.
 */
export type MemberLister = (q: { group: string; kind: string; namespace: string; labelSelector: string }, signal?: AbortSignal) => Promise<KubeObject[]>;

export function listerOf(cluster: Cluster): MemberLister {
  // Metadata only: a member's identity is all the list is for.
  return async (q, signal) => (await cluster.list(q.group, q.kind, q.namespace || undefined, { labelSelector: q.labelSelector, signal, metadataOnly: true })).items;
}

/** An inventory as the cluster holds it: a ResourceGroup and its list, or an ApplySet's parent and its members. */
export interface StoredInventory {
  /** The ResourceGroup or parent; absent when there is none. */
  object?: KubeObject;
  refs: ObjRef[];
}

/** The parent (when it exists) and its members. */
export async function readApplySet(cluster: Cluster, info: InventoryInfo, o: { lister?: MemberLister; signal?: AbortSignal } = {}): Promise<StoredInventory> {
  const parent = await cluster.get(parentRef(info), o.signal).catch((err: unknown) => {
    throw parentError(info, "read", err);
  });
  if (!parent) return { refs: [] };
  return { object: parent, refs: await listMembers(cluster, info, parent, o) };
}

/** The members of the ApplySet this parent heads: one labelled LIST per group-kind and namespace it names. */
export async function listMembers(cluster: Cluster, info: Pick<InventoryInfo, "id" | "namespace" | "name" | "applySet">, parent: KubeObject, o: { lister?: MemberLister; signal?: AbortSignal } = {}): Promise<ObjRef[]> {
  const scope = storedScope(parent);
  if (scope.groupResources) {
    throw new ClusterError(`the ApplySet parent ${info.namespace}/${formatParent(info)} names its members' resources (kubectl 1.27's contains-group-resources), not their kinds`, {
      detail: "Apply it once with kubectl 1.28 or later (KUBECTL_APPLYSET=true kubectl apply --prune --applyset ...), which rewrites the annotation, then use kpt-ts.",
    });
  }
  const lister = o.lister ?? listerOf(cluster);
  const labelSelector = `${APPLYSET_PART_OF_LABEL}=${info.id}`;
  const namespaces = scopeNamespaces(info, scope);
  const lists = await Promise.all(
    scope.groupKinds.map(async (gkText) => {
      const gk = parseGroupKind(gkText);
      // A kind the cluster no longer serves (its CRD deleted) has no objects left to find.
      const scopeOfKind = await cluster.scopeOf(gk.group, gk.kind);
      if (!scopeOfKind) return [];
      const where = scopeOfKind === "Cluster" ? [""] : namespaces;
      const found = await Promise.all(where.map((namespace) => lister({ ...gk, namespace, labelSelector }, o.signal)));
      return memberRefs(found.flat(), gk.group, gk.kind);
    }),
  );
  return lists.flat();
}

export interface WriteParentOptions {
  /** The parent this run last read or wrote (`null`: there was none); the write is guarded by it. */
  basedOn: KubeObject | null;
  /** Someone else wrote it meanwhile: "fail" (before any object was touched), or "merge" (union of the scopes). */
  onConflict: "fail" | "merge";
  signal?: AbortSignal;
}

/** Creates or updates the parent to name `scope`, with kpt-ts's tooling; returns it as stored. */
export async function writeParent(cluster: Cluster, info: InventoryInfo, scope: ApplySetScope, o: WriteParentOptions): Promise<KubeObject> {
  let base = o.basedOn ?? undefined;
  let want = scope;
  for (let attempt = 1; ; attempt++) {
    const desired = buildParent(info, want, TOOLING, base);
    try {
      return base ? await cluster.update(desired, { signal: o.signal }) : await cluster.create(desired, { signal: o.signal });
    } catch (err) {
      if (err instanceof ApiError && err.missingNamespace !== undefined) {
        throw new ClusterError(`cannot store the ApplySet parent ${info.namespace}/${formatParent(info)}: namespace "${info.namespace}" does not exist`, {
          detail: "Create the namespace, or add a Namespace object for it to the package.",
        });
      }
      if (!(err instanceof ApiError && (err.status === 409 || err.status === 404) && attempt < 8)) throw parentError(info, "write", err);
      const now = await cluster.get(parentRef(info), o.signal);
      if (o.onConflict === "fail") throw concurrentParentChange(info, "apply", "This apply stopped before changing anything.");
      base = now;
      want = unionScope(storedScope(now), want);
    }
  }
}

/**
 * Deletes the parent once its ApplySet has no member left (guarded: someone who changed it
 * meanwhile may have added members, which are then listed again first).
 */
export async function deleteParent(cluster: Cluster, info: InventoryInfo, o: { basedOn: KubeObject; lister?: MemberLister; signal?: AbortSignal }): Promise<void> {
  let base = o.basedOn;
  for (let attempt = 1; ; attempt++) {
    try {
      await cluster.delete(parentRef(info), { signal: o.signal, resourceVersion: base.metadata.resourceVersion });
      return;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 409 || attempt >= 8) throw parentError(info, "delete", err);
      const now = await readApplySet(cluster, info, o);
      if (!now.object) return;
      if (now.refs.length > 0) throw concurrentParentChange(info, "destroy", "The parent is kept: its ApplySet has members the other run added.");
      base = now.object;
    }
  }
}

/** Every ApplySet parent (Secrets and ConfigMaps with the id label) in the cluster, or in one namespace. */
export async function listApplySetParents(cluster: Cluster, o: { namespace?: string; signal?: AbortSignal } = {}): Promise<KubeObject[]> {
  const lists = await Promise.all(["Secret", "ConfigMap"].map((kind) => cluster.list("", kind, o.namespace, { labelSelector: APPLYSET_ID_LABEL, signal: o.signal })));
  return lists.flatMap((l) => l.items);
}

function parentError(info: Pick<InventoryInfo, "namespace" | "name" | "applySet">, what: "read" | "write" | "delete", err: unknown): unknown {
  if (err instanceof ApiError) return new ClusterError(`cannot ${what} the ApplySet parent ${info.namespace}/${formatParent(info)}: ${briefApiError(err)}`, { cause: err });
  return err;
}

function concurrentParentChange(info: InventoryInfo, command: "apply" | "destroy", done: string): ClusterError {
  return new ClusterError(`the ApplySet parent ${info.namespace}/${formatParent(info)} changed while this ${command} ran: another run of this package (or another tool) is writing it at the same time`, {
    detail: `${done} Run ${command} again once the other run has finished.`,
  });
}

/**
 * Every ApplySet (in one namespace, or all) with its members, kpt-ts's and other tools'. A
 * parent whose members cannot be listed is still shown, without them, and `onWarning` says why.
 */
export async function listApplySets(cluster: Cluster, o: { namespace?: string; signal?: AbortSignal; onWarning?: (message: string) => void } = {}): Promise<ListedInventory[]> {
  const parents = await listApplySetParents(cluster, o);
  return Promise.all(
    parents.map(async (parent) => {
      const kind = parent.kind === "ConfigMap" ? "ConfigMap" : "Secret";
      const info = { name: parent.metadata.name ?? "", namespace: parent.metadata.namespace ?? "", id: parent.metadata.labels?.[APPLYSET_ID_LABEL] ?? "", applySet: { kind } as const };
      const refs = await listMembers(cluster, info, parent, { signal: o.signal }).catch((err: unknown) => {
        o.onWarning?.(`cannot list the members of the ApplySet ${info.namespace}/${formatParent(info)}: ${err instanceof ApiError ? briefApiError(err) : (err as Error).message}`);
        return [];
      });
      return listedApplySet(parent, refs);
    }),
  );
}
